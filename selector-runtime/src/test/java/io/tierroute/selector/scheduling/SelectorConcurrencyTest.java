package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.KvEventPipeline;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.BlockHasher;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many route threads, an event writer and a parameter publisher at once, over the production index:
 * no exception, no decision that mixes two snapshots, and the in-flight books balance at the end.
 */
class SelectorConcurrencyTest {

    private static final int WORKERS = 16;
    private static final int BLOCK = 16;

    @Test
    void routesEventsAndSnapshotSwapsInterleaveSafely() throws Exception {
        List<WorkerSpec> specs = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            specs.add(WorkerSpec.of("w" + w, 2_000_000));
        }
        RunPrefixIndex index = RunPrefixIndex.builder().workers(WORKERS).maxBlocks(200_000).build();
        ParameterStore store = new ParameterStore(ParameterSet.defaults(WORKERS));
        try (KvEventPipeline pipeline = new KvEventPipeline(index, 10_000)) {
            Selector selector = new Selector(SelectorSettings.builder(specs).blockSize(BLOCK).build(),
                    index, pipeline, store, System::nanoTime);

            int threads = 4;
            int perThread = 3_000;
            CountDownLatch start = new CountDownLatch(1);
            ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            AtomicLong mixed = new AtomicLong();
            List<Thread> all = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                all.add(new Thread(() -> {
                    SplittableRandom r = new SplittableRandom(id);
                    try {
                        start.await();
                        for (int i = 0; i < perThread; i++) {
                            int[] tokens = prompt(r.nextInt(50), 64 * BLOCK);
                            RouteRequest req = new RouteRequest("t" + id + "-" + i, null, null, null, tokens, null,
                                    null, null, 256, 64, null, false);
                            RouteDecision d = selector.route(req).get(10, TimeUnit.SECONDS);
                            // alphaD is set to the snapshot version by the publisher: a decision's
                            // decode term must match the version it reports.
                            double expectedAlphaD = d.snapshotVersion() == 0 ? 50 : d.snapshotVersion();
                            double decode = d.chosen().decodeUs();
                            double fromVersion = expectedAlphaD * d.chosen().inflightDecodeTokens()
                                    + 0.001 * d.chosen().inflightDecodeQuadratic();
                            if (Math.abs(decode - fromVersion) > 1e-6 * Math.max(1, decode)) {
                                mixed.incrementAndGet();
                            }
                            selector.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FINISHED, 64));
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }));
            }
            Thread events = new Thread(() -> {
                SplittableRandom r = new SplittableRandom(99);
                BlockHasher hasher = new BlockHasher();
                long salt = BlockHasher.salt("default", null, null);
                long[] hashes = new long[64];
                try {
                    start.await();
                    for (int i = 0; i < 5_000; i++) {
                        int[] tokens = prompt(r.nextInt(50), 64 * BLOCK);
                        int n = hasher.hashTokens(tokens, tokens.length, BLOCK, salt, hashes);
                        int depth = r.nextInt(1, n + 1);
                        long[] chain = java.util.Arrays.copyOf(hashes, depth);
                        KvEvent e = r.nextInt(4) == 0
                                ? new KvEvent.Removed(r.nextInt(WORKERS), Tier.HBM, chain)
                                : new KvEvent.Stored(r.nextInt(WORKERS), Tier.ofOrdinal(r.nextInt(2)), false, 0, chain);
                        while (!pipeline.submit(List.of(e))) {
                            Thread.onSpinWait();
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            Thread publisher = new Thread(() -> {
                try {
                    start.await();
                    for (int v = 1; v <= 200; v++) {
                        store.activate(ParameterSet.builder(WORKERS).version(v).source("test")
                                .cost(CostParameters.builder().alphaD(v).build()).build());
                        Thread.sleep(1);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            all.add(events);
            all.add(publisher);
            all.forEach(Thread::start);
            start.countDown();
            for (Thread t : all) {
                t.join(60_000);
            }

            assertThat(errors).isEmpty();
            assertThat(mixed.get()).as("decisions whose terms disagree with their snapshot version").isZero();
            assertThat(selector.routedCount()).isEqualTo((long) threads * perThread);
            assertThat(selector.inflight().size()).isZero();
            for (WorkerView w : selector.workers()) {
                assertThat(w.load().inFlight()).isZero();
                assertThat(w.load().decodeTokens()).isZero();
                assertThat(w.load().kvUsedTokens()).isZero();
            }
            assertThat(pipeline.awaitIdle(10, TimeUnit.SECONDS)).isTrue();
            assertThat(pipeline.appliedEvents()).isEqualTo(5_000);
        }
    }

    private static int[] prompt(int group, int tokens) {
        int[] t = new int[tokens];
        for (int i = 0; i < tokens; i++) {
            t[i] = group * 7919 + i;
        }
        return t;
    }
}
