package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.BlockHasher;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

/** Distinct token prompts, and their blocks stored in a worker's HBM, for the queue and late-binding tests. */
final class HeldPrompts {

    static final int BLOCK = 16;

    private HeldPrompts() {}

    /**
     * A selector over {@code workers} workers of 1 M tokens each, block size {@link #BLOCK}, seed 7, default
     * parameters, on {@code clock}; {@code settings} adds what the test is about.
     */
    static Selector selector(int workers, LongSupplier clock, UnaryOperator<SelectorSettings.Builder> settings) {
        List<WorkerSpec> specs = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            specs.add(WorkerSpec.of("w" + w, 1_000_000));
        }
        NaiveReferenceIndex index = new NaiveReferenceIndex(workers);
        return new Selector(settings.apply(SelectorSettings.builder(specs).blockSize(BLOCK).seed(7L)).build(), index,
                new DirectIndexWriter(index), new ParameterStore(ParameterSet.defaults(workers)), clock);
    }

    /** {@code tokens} token ids, distinct for each {@code seed}. */
    static int[] prompt(int seed, int tokens) {
        int[] t = new int[tokens];
        for (int i = 0; i < tokens; i++) {
            t[i] = seed * 1_000_003 + i;
        }
        return t;
    }

    /** A request of the given prompt, 512 output tokens at most, 100 expected. */
    static RouteRequest request(String id, int[] tokens) {
        return new RouteRequest(id, null, null, null, tokens, null, null, null, 512, 100, null, false);
    }

    /** The prompt's whole blocks land in {@code worker}'s HBM, as a KV event from the engine would put them. */
    static void storeInHbm(Selector s, int worker, int[] tokens) {
        long[] hashes = new long[tokens.length / BLOCK];
        int n = new BlockHasher().hashTokens(tokens, tokens.length, BLOCK, BlockHasher.salt("default", null, null), hashes);
        s.indexWriter().submit(List.of(new KvEvent.Stored(worker, Tier.HBM, false, 0, Arrays.copyOf(hashes, n))));
    }
}
