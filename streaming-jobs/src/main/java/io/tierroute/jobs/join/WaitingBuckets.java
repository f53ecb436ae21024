package io.tierroute.jobs.join;

import java.util.Arrays;

/**
 * What one side of the join (decisions or completions) has waiting per shard and clean-up bucket, in memory only (not
 * state), so that {@link RequestJoinFunction} skips a clean-up scan of a shard's map when no waiting side can have
 * expired (with a backlog the completions' scans found nothing to remove: 9 % of the join task's samples, ninth
 * round) and its wall-clock backstop knows which buckets no side holds any more (their timers, {@link CleanupTimers},
 * can go).
 *
 * <p>Sides per shard and bucket (the bucket end at or after a side's deadline). A shard's counts are unknown after
 * {@code open()} — a fresh start or a restore, whose state this class does not see — and then every clean-up timer
 * scans, as without this class; the first scan counts the sides it leaves, and from then on every put and removal
 * keeps the counts exact. A side whose deadline the watermark has passed lies in a bucket ending at or before the
 * bucket end of the watermark: if no counted bucket does, the scan would remove nothing. The join reports every
 * removal here, the wall clock's ({@link WallClockBackstop}) included; were one missed, a count would only be too
 * high, i.e. one scan more, and the next scan recounts.
 */
final class WaitingBuckets {
    private final long bucketMs;
    /** Per shard: null = unknown (no scan since open), else the buckets that hold at least one side. */
    private final Shard[] shards = new Shard[RequestShards.COUNT];

    WaitingBuckets(long bucketMs) {
        this.bucketMs = bucketMs;
    }

    /** The clean-up time (bucket end) of a side waiting until {@code deadlineMs}. */
    long end(long deadlineMs) {
        return RequestJoinFunction.bucketEnd(deadlineMs, bucketMs);
    }

    /** A side with this deadline entered the shard's map; returns its bucket's end, the clean-up time. */
    long added(int shard, long deadlineMs) {
        long end = end(deadlineMs);
        Shard s = shards[shard];
        if (s != null) {
            s.add(end);
        }
        return end;
    }

    /**
     * Whether a side of the shard may wait in the bucket ending at {@code end}: always when the counts are unknown
     * (then its clean-up timer must stay).
     */
    boolean mayHold(int shard, long end) {
        Shard s = shards[shard];
        return s == null || s.holds(end);
    }

    /** A side with this deadline left the shard's map (joined, or counted as unmatched outside a scan). */
    void removed(int shard, long deadlineMs) {
        Shard s = shards[shard];
        if (s != null && !s.remove(end(deadlineMs))) {
            shards[shard] = null; // not counted: cannot happen while the counts are exact; fall back to scanning
        }
    }

    /**
     * Whether a side of the shard may have a deadline at or before the watermark (then the clean-up must scan):
     * always when the counts are unknown.
     */
    boolean mayHaveExpired(int shard, long watermark) {
        Shard s = shards[shard];
        if (s == null) {
            return true;
        }
        long limit = watermark >= Long.MAX_VALUE - bucketMs ? Long.MAX_VALUE
            : RequestJoinFunction.bucketEnd(watermark, bucketMs);
        for (int i = 0; i < s.n; i++) {
            if (s.ends[i] <= limit) {
                return true;
            }
        }
        return false;
    }

    /** Starts counting the shard anew; the caller adds every side its scan leaves in the map. */
    Counting recount(int shard) {
        Shard s = new Shard();
        shards[shard] = s;
        return deadlineMs -> s.add(end(deadlineMs));
    }

    /** Adds one remaining side's deadline during a scan. */
    interface Counting {
        void add(long deadlineMs);
    }

    /**
     * The bucket ends of one shard with their side counts; a handful while the watermark moves (8 + 1 decision buckets,
     * 2 + 1 completion buckets), up to the state TTL's worth of buckets while it stalls.
     */
    private static final class Shard {
        long[] ends = new long[4];
        int[] counts = new int[4];
        int n;

        /** Counts one side in the bucket. */
        void add(long end) {
            for (int i = n - 1; i >= 0; i--) {
                if (ends[i] == end) {
                    counts[i]++;
                    return;
                }
            }
            if (n == ends.length) {
                ends = Arrays.copyOf(ends, n * 2);
                counts = Arrays.copyOf(counts, n * 2);
            }
            ends[n] = end;
            counts[n] = 1;
            n++;
        }

        /** Whether the bucket holds a side. */
        boolean holds(long end) {
            for (int i = 0; i < n; i++) {
                if (ends[i] == end) {
                    return true;
                }
            }
            return false;
        }

        /** Uncounts one side of the bucket; false if the bucket had none. */
        boolean remove(long end) {
            for (int i = 0; i < n; i++) {
                if (ends[i] == end) {
                    if (--counts[i] == 0) {
                        n--;
                        ends[i] = ends[n];
                        counts[i] = counts[n];
                    }
                    return true;
                }
            }
            return false;
        }
    }
}
