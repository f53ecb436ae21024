package io.tierroute.selector.bench;

import java.util.concurrent.TimeUnit;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.index.PrefixIndex;
import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.protocol.BlockHasher;
import io.tierroute.selector.protocol.Tier;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Hashing (BlockHasher, 8,000 tokens at block size 16 = 500 blocks) plus {@code match} against an
 * index of at least {@code blocks} Mooncake blocks, in SampleTime mode so the percentiles print.
 * Each invocation takes the next of 1,024 prompts (so the index paths are not all cache-resident);
 * an untimed per-invocation setup copies its tokens into a reused buffer first, as a request's
 * tokens are hot in cache right after the HTTP layer parsed them.
 * {@code queries=trace}: prompts drawn from the whole trace (real sharing); {@code queries=indexed}:
 * prompts of indexed requests (a full 500-block match for their owner: the worst case).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseParallelGC"})
public class IndexMatchBenchmark {

    @Param({"8", "64", "256"})
    public int workers;

    @Param({"production", "naive"})
    public String impl;

    @Param({"trace", "indexed"})
    public String queries;

    @Param({"1100000"})
    public long blocks;

    private PrefixIndex index;
    private int[][] prompts;
    private final BlockHasher hasher = new BlockHasher();
    private final long[] hashes = new long[MooncakeFixture.QUERY_TOKENS / MooncakeFixture.BLOCK_SIZE];
    private PrefixMatch out;
    private int next;
    private long[][] promptHashes;
    private final int[] tokens = new int[MooncakeFixture.QUERY_TOKENS];
    private long[] current;

    @Setup(Level.Trial)
    public void setUp() {
        MooncakeFixture fx = MooncakeFixture.load();
        index = "naive".equals(impl)
                ? new NaiveReferenceIndex(workers)
                : RunPrefixIndex.builder().workers(workers).maxBlocks(8_000_000).expectedBlocks((int) (blocks * 2)).build();
        int indexed = fx.populate(index, workers, blocks);
        prompts = fx.queries(1024, 42, "indexed".equals(queries) ? indexed : Integer.MAX_VALUE);
        out = new PrefixMatch(workers);
        long sum = 0;
        long best = 0;
        promptHashes = new long[prompts.length][];
        for (int i = 0; i < prompts.length; i++) {
            int[] p = prompts[i];
            int n = hasher.hashTokens(p, p.length, MooncakeFixture.BLOCK_SIZE, MooncakeFixture.SALT, hashes);
            promptHashes[i] = hashes.clone();
            index.match(hashes, n, 0, out);
            int max = 0;
            for (int w = 0; w < workers; w++) {
                max = Math.max(max, out.cumulativeBlocks(w, Tier.COUNT - 1));
            }
            sum += max;
            best = Math.max(best, max);
        }
        String runs = index instanceof RunPrefixIndex r ? ", runs " + r.runCount() : "";
        System.out.printf("%n[fixture] %s: %d requests indexed, %d blocks%s; queries=%s: mean best depth %.1f of %d blocks%n",
                impl, indexed, index.blockCount(), runs, queries, (double) sum / prompts.length, hashes.length);
    }

    @Setup(Level.Invocation)
    public void nextPrompt() {
        int i = next++ & 1023;
        System.arraycopy(prompts[i], 0, tokens, 0, tokens.length);
        current = promptHashes[i];
    }

    @Benchmark
    public PrefixMatch hashAndMatch() {
        int n = hasher.hashTokens(tokens, tokens.length, MooncakeFixture.BLOCK_SIZE, MooncakeFixture.SALT, hashes);
        index.match(hashes, n, 0, out);
        return out;
    }

    /** Match alone (hashes precomputed), for the split of the figure above. */
    @Benchmark
    public PrefixMatch matchOnly() {
        index.match(current, current.length, 0, out);
        return out;
    }

    /** Hashing alone, for the split of the figure above. */
    @Benchmark
    public long hashOnly() {
        hasher.hashTokens(tokens, tokens.length, MooncakeFixture.BLOCK_SIZE, MooncakeFixture.SALT, hashes);
        return hashes[hashes.length - 1];
    }
}
