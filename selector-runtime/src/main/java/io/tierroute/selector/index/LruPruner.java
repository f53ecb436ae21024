package io.tierroute.selector.index;

import java.util.ArrayList;
import java.util.Arrays;

/**
 * The block cap ({@code maxBlocks}): when a write has taken the count past it, drops whole runs of
 * {@link RunLayout} in least-recently-used order, and counts the blocks it dropped. Writer thread only.
 */
final class LruPruner {

    private final RunPrefixIndexConfig config;
    private final RunLayout layout;
    private long prunedBlocks;

    LruPruner(RunPrefixIndexConfig config, RunLayout layout) {
        this.config = config;
        this.layout = layout;
    }

    /** Blocks dropped by the cap since construction. */
    long prunedBlocks() {
        return prunedBlocks;
    }

    /**
     * Drops least recently used runs (by the epoch of their last store or match) until the count is
     * at {@code maxBlocks * pruneToFraction}. O(runs log runs) per prune; prunes are batched by the
     * fraction, so the cost per indexed block is logarithmic.
     */
    void prune() {
        final ArrayList<Run> live = layout.live;
        final long target = (long) Math.floor(config.maxBlocks() * config.pruneToFraction());
        final long need = layout.count() - target;
        if (need <= 0) {
            return;
        }
        final int n = live.size();
        final long[] stamps = new long[n];
        final int[] lengths = new int[n];
        for (int i = 0; i < n; i++) {
            Run r = live.get(i);
            stamps[i] = r.lastUsed();
            lengths[i] = r.end - r.start;
        }
        final long[] sorted = stamps.clone();
        Arrays.sort(sorted);
        int lo = 0;
        int hi = n - 1;
        while (lo < hi) { // smallest threshold whose runs at or below it cover the need
            int mid = (lo + hi) >>> 1;
            if (blocksAtOrBelow(stamps, lengths, sorted[mid]) >= need) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        final long threshold = sorted[lo];
        final ArrayList<Run> older = new ArrayList<>();
        final ArrayList<Run> atThreshold = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (stamps[i] < threshold) {
                older.add(live.get(i));
            } else if (stamps[i] == threshold) {
                atThreshold.add(live.get(i));
            }
        }
        for (Run r : older) {
            drop(r);
        }
        for (int i = 0; i < atThreshold.size() && layout.count() > target; i++) {
            drop(atThreshold.get(i));
        }
    }

    private static long blocksAtOrBelow(long[] stamps, int[] lengths, long threshold) {
        long sum = 0;
        for (int i = 0; i < stamps.length; i++) {
            if (stamps[i] <= threshold) {
                sum += lengths[i];
            }
        }
        return sum;
    }

    private void drop(Run r) {
        prunedBlocks += layout.drop(r);
    }
}
