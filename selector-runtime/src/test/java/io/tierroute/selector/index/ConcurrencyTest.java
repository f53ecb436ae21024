package io.tierroute.selector.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;

import org.junit.jupiter.api.Test;

/**
 * One writer churns events (stores, middle removals that split runs, moves, clears, approximate
 * inserts, expiry, pruning) while readers match. Readers must never see an impossible answer: depth
 * beyond the longest prefix ever stored for that chain, non-monotone cumulative depths, depth for a
 * worker that never got an event, or less than a pinned prefix stored before the readers started.
 */
class ConcurrencyTest {

    private static final int WORKERS = 130;
    private static final int PINNED_WORKER = 0;   // holds pinned prefixes; never touched again
    private static final int SILENT_WORKER = 129; // never receives anything

    @Test
    void readersNeverSeeImpossibleAnswers() throws Exception {
        run(1_000_000, true);
    }

    @Test
    void readersNeverSeeImpossibleAnswersWhileTheCapPrunes() throws Exception {
        run(5_000, false); // pruning may drop the pinned prefixes, so they are not checked
    }

    @Test
    void aReaderSeesMovedBlocksOnTheirOldOrTheirNewTier() throws Exception {
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).build();
        long[] chain = new long[2_000];
        for (int i = 0; i < chain.length; i++) {
            chain[i] = 1_000_000 + i;
        }
        index.apply(new KvEvent.Stored(0, Tier.HBM, false, 0, chain));
        long[] moved = java.util.Arrays.copyOfRange(chain, 10, chain.length); // the only holder: HBM -> CPU and back
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        AtomicLong torn = new AtomicLong();
        Thread reader = new Thread(() -> {
            PrefixMatch m = new PrefixMatch(2);
            while (!stop.get()) {
                index.match(chain, chain.length, 0, m);
                if (m.totalBlocks(0) != chain.length) { // held on some tier, before and after every Moved
                    torn.incrementAndGet();
                }
                reads.incrementAndGet();
            }
        });
        reader.start();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_000);
        while (System.nanoTime() < deadline) {
            index.apply(new KvEvent.Moved(0, Tier.HBM, Tier.CPU, moved));
            index.apply(new KvEvent.Moved(0, Tier.CPU, Tier.HBM, moved));
        }
        stop.set(true);
        reader.join();
        assertThat(reads.get()).isPositive();
        assertThat(torn.get()).as("of %d reads, those that saw worker 0 hold moved blocks on no tier", reads.get())
                .isZero();
    }

    private void run(long cap, boolean checkPinned) throws Exception {
        Random setup = new Random(11);
        int chains = 200;
        long[][] chain = new long[chains][];
        int[] maxStored = new int[chains];   // writer stores only prefixes up to this length
        int[] pinned = new int[chains];
        for (int c = 0; c < chains; c++) {
            int len = 20 + setup.nextInt(200);
            chain[c] = new long[len];
            for (int i = 0; i < len; i++) {
                chain[c][i] = setup.nextLong();
            }
            if (c % 3 == 0 && len > 20) { // share a prefix with another chain
                int other = setup.nextInt(Math.max(1, c));
                int keep = Math.min(10, chain[other].length);
                System.arraycopy(chain[other], 0, chain[c], 0, keep);
            }
            maxStored[c] = 1 + setup.nextInt(len - 5);
        }
        // shared prefixes: a chain's storable depth is bounded by the max over chains sharing hashes
        int[] bound = new int[chains];
        for (int c = 0; c < chains; c++) {
            bound[c] = maxStored[c];
            for (int d = 0; d < chains; d++) {
                int common = 0;
                while (common < chain[c].length && common < chain[d].length && chain[c][common] == chain[d][common]) {
                    common++;
                }
                bound[c] = Math.max(bound[c], Math.min(common, maxStored[d]));
            }
        }
        RunPrefixIndex index = RunPrefixIndex.builder().workers(WORKERS).maxBlocks(cap).build();
        for (int c = 0; c < chains; c += 7) {
            pinned[c] = Math.min(maxStored[c], 5);
            index.apply(new KvEvent.Stored(PINNED_WORKER, Tier.HBM, false, 0, java.util.Arrays.copyOf(chain[c], pinned[c])));
        }

        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong nowNanos = new AtomicLong();
        AtomicLong matches = new AtomicLong();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();

        Thread writer = new Thread(() -> {
            Random rnd = new Random(12);
            try {
                while (!stop.get()) {
                    int c = rnd.nextInt(chains);
                    int w = 1 + rnd.nextInt(WORKERS - 2);
                    long[] ch = chain[c];
                    int n = 1 + rnd.nextInt(maxStored[c]);
                    long now = nowNanos.addAndGet(rnd.nextInt(5));
                    int k = rnd.nextInt(20);
                    if (k < 8) {
                        int from = rnd.nextInt(n);
                        index.apply(new KvEvent.Stored(w, Tier.ofOrdinal(rnd.nextInt(Tier.COUNT)), from > 0,
                                from > 0 ? ch[from - 1] : 0, java.util.Arrays.copyOfRange(ch, from, n)));
                    } else if (k < 12) {
                        int from = rnd.nextInt(n);
                        int to = from + 1 + rnd.nextInt(Math.min(5, n - from));
                        index.apply(new KvEvent.Removed(w, Tier.ofOrdinal(rnd.nextInt(Tier.COUNT)),
                                java.util.Arrays.copyOfRange(ch, from, to)));
                    } else if (k < 14) {
                        index.apply(new KvEvent.Moved(w, Tier.HBM, Tier.CPU, java.util.Arrays.copyOfRange(ch, 0, n)));
                    } else if (k < 15) {
                        index.apply(new KvEvent.Cleared(w));
                    } else if (k < 19) {
                        index.recordRouted(w, ch, n, now, 50);
                    } else {
                        index.expire(now);
                    }
                }
            } catch (Throwable t) {
                problems.add("writer: " + t);
            }
        });

        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            int seed = 100 + r;
            readers.add(new Thread(() -> {
                Random rnd = new Random(seed);
                PrefixMatch m = new PrefixMatch(WORKERS);
                try {
                    while (!stop.get()) {
                        int c = rnd.nextInt(chains);
                        long[] ch = chain[c];
                        index.match(ch, ch.length, nowNanos.get(), m);
                        matches.incrementAndGet();
                        for (int w = 0; w < WORKERS; w++) {
                            int prev = 0;
                            for (int t = 0; t < Tier.COUNT; t++) {
                                int d = m.cumulativeBlocks(w, t);
                                if (d < prev || d > bound[c] || (w == SILENT_WORKER && d != 0)) {
                                    problems.add("chain " + c + " worker " + w + " tier " + t + " depth " + d
                                            + " (prev tier " + prev + ", bound " + bound[c] + ")");
                                }
                                prev = d;
                            }
                        }
                        int d0 = m.cumulativeBlocks(PINNED_WORKER, Tier.HBM.ordinal());
                        if (checkPinned && d0 < pinned[c]) {
                            problems.add("chain " + c + " lost pinned prefix: " + d0 + " < " + pinned[c]);
                        }
                        if (problems.size() > 20) {
                            return;
                        }
                    }
                } catch (Throwable t) {
                    problems.add("reader: " + t);
                }
            }));
        }
        writer.start();
        readers.forEach(Thread::start);
        TimeUnit.MILLISECONDS.sleep(2_000);
        stop.set(true);
        writer.join();
        for (Thread t : readers) {
            t.join();
        }
        assertThat(problems).isEmpty();
        assertThat(matches.get()).isPositive();
    }
}
