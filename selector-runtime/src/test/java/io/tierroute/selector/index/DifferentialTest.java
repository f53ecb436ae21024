package io.tierroute.selector.index;

import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;

import io.tierroute.selector.protocol.Tier;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Drives {@link RunPrefixIndex} and {@link NaiveReferenceIndex} with the same seeded random stream
 * (stores with parents, removes, moves, clears, approximate inserts and their releases, expiry on a controlled clock,
 * lookups of known, forked and random prefixes) and compares every answer and the block count. On a
 * mismatch it prints the seed and op number and shrinks the op list to a small failing case.
 */
class DifferentialTest {

    private static final int OPS = 100_000;

    @ParameterizedTest(name = "seed {0}, {1} workers")
    @CsvSource({"1, 3", "2, 70", "3, 130", "42, 64"})
    void productionIndexAgreesWithNaive(long seed, int workers) {
        IndexOps gen = new IndexOps(seed, workers, 40, 40);
        List<IndexOps.Op> ops = new ArrayList<>(OPS);
        for (int i = 0; i < OPS; i++) {
            ops.add(gen.next());
        }
        String failure = firstMismatch(ops, workers);
        if (failure != null) {
            List<IndexOps.Op> small = shrink(ops, workers);
            StringBuilder sb = new StringBuilder("seed " + seed + ", workers " + workers + ": " + failure
                    + "\nshrunk to " + small.size() + " ops (" + firstMismatch(small, workers) + "):");
            for (IndexOps.Op op : small) {
                sb.append("\n  ").append(op);
            }
            fail(sb.toString());
        }
    }

    private static RunPrefixIndex production(int workers) {
        // a cap large enough that pruning never happens here (pruning is PruningTest's subject)
        return RunPrefixIndex.builder().workers(workers).maxBlocks(Long.MAX_VALUE / 2).expectedBlocks(16).build();
    }

    /** Replays {@code ops} against fresh indexes; describes the first disagreement, or null. */
    static String firstMismatch(List<IndexOps.Op> ops, int workers) {
        RunPrefixIndex prod = production(workers);
        NaiveReferenceIndex naive = new NaiveReferenceIndex(workers);
        PrefixMatch a = new PrefixMatch(workers);
        PrefixMatch b = new PrefixMatch(workers);
        PrefixMatch staged = new PrefixMatch(workers);
        for (int i = 0; i < ops.size(); i++) {
            IndexOps.Op op = ops.get(i);
            if (IndexOps.write(prod, op)) {
                IndexOps.write(naive, op);
                if (prod.blockCount() != naive.blockCount()) {
                    return "op " + i + " " + op + ": blockCount " + prod.blockCount() + " vs naive " + naive.blockCount();
                }
                continue;
            }
            IndexOps.Lookup q = (IndexOps.Lookup) op;
            prod.match(q.hashes(), q.blocks(), q.now(), a);
            naive.match(q.hashes(), q.blocks(), q.now(), b);
            // The same lookup in three stages (as the selector hashes long prompts) must agree too.
            prod.match(q.hashes(), q.blocks() / 3, q.now(), staged);
            prod.matchMore(q.hashes(), 2 * q.blocks() / 3, q.now(), staged);
            prod.matchMore(q.hashes(), q.blocks(), q.now(), staged);
            String mismatch = compare(a, b, workers, "");
            if (mismatch == null) {
                mismatch = compare(staged, b, workers, "staged ");
            }
            if (mismatch != null) {
                return "op " + i + " " + op + ": " + mismatch;
            }
        }
        return null;
    }

    private static String compare(PrefixMatch a, PrefixMatch naive, int workers, String what) {
        if (a.requestBlocks() != naive.requestBlocks()) {
            return what + "requestBlocks " + a.requestBlocks() + " vs " + naive.requestBlocks();
        }
        for (int w = 0; w < workers; w++) {
            for (int t = 0; t < Tier.COUNT; t++) {
                if (a.cumulativeBlocks(w, t) != naive.cumulativeBlocks(w, t)) {
                    return what + "worker " + w + " tier " + Tier.ofOrdinal(t) + " depth "
                            + a.cumulativeBlocks(w, t) + " vs naive " + naive.cumulativeBlocks(w, t);
                }
            }
        }
        return null;
    }

    /** Greedy chunk deletion (ddmin-like) under a replay budget. */
    static List<IndexOps.Op> shrink(List<IndexOps.Op> ops, int workers) {
        List<IndexOps.Op> cur = new ArrayList<>(ops);
        int budget = 3000;
        for (int chunk = Math.max(1, cur.size() / 2); chunk >= 1 && budget > 0; chunk /= 2) {
            for (int start = 0; start < cur.size() && budget > 0; ) {
                List<IndexOps.Op> trial = new ArrayList<>(cur.subList(0, start));
                trial.addAll(cur.subList(Math.min(cur.size(), start + chunk), cur.size()));
                budget--;
                if (!trial.isEmpty() && firstMismatch(trial, workers) != null) {
                    cur = trial;
                } else {
                    start += chunk;
                }
            }
        }
        return cur;
    }
}
