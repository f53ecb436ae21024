package io.tierroute.jobs.join;

/**
 * How many sides of one kind (decisions or completions) wait in each shard, by clean-up bucket (the bucket
 * end at or after a side's deadline). In memory only, not state: it lets {@link RequestJoinFunction}
 * register a bucket's clean-up timer once, when the bucket gets its first side, instead of for every side
 * (Flink deduplicates the timer, but only after building and hashing it: 7 % of the join task's samples,
 * ninth round), and skip a clean-up scan of the shard's map when no waiting side can have expired (with a
 * backlog every scan of the completions found nothing: 9 % of the join task's samples).
 *
 * <p>A shard's counts are unknown after {@code open()} — a fresh start or a restore, whose state this class
 * does not see — and then the join behaves as without it: a timer registered for every side, a scan at
 * every clean-up timer. The first scan of the shard counts the sides it leaves behind, and from then on
 * every put and every removal of the side keeps the counts exact. So "the bucket has a side" implies "its
 * clean-up timer is registered and has not fired" (a timer fires only when the watermark is at or past the
 * bucket end, and then every side of the bucket has expired and the scan removes it), and a side whose
 * deadline the watermark has passed lies in a bucket ending at or before the bucket end of the watermark.
 */
final class WaitingBuckets {
    private final long bucketMs;
    /** Per shard: null = unknown (no scan since open), else the buckets that hold at least one side. */
    private final Shard[] shards = new Shard[RequestShards.COUNT];

    WaitingBuckets(long bucketMs) {
        this.bucketMs = bucketMs;
    }

    /** A side with this deadline entered the shard's map; true if its bucket's clean-up timer must be registered. */
    boolean added(int shard, long deadlineMs) {
        Shard s = shards[shard];
        return s == null || s.add(RequestJoinFunction.bucketEnd(deadlineMs, bucketMs));
    }

    /** A side with this deadline left the shard's map (joined, or counted as unmatched outside a scan). */
    void removed(int shard, long deadlineMs) {
        Shard s = shards[shard];
        if (s != null && !s.remove(RequestJoinFunction.bucketEnd(deadlineMs, bucketMs))) {
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
        return deadlineMs -> s.add(RequestJoinFunction.bucketEnd(deadlineMs, bucketMs));
    }

    /** Adds one remaining side's deadline during a scan. */
    interface Counting {
        void add(long deadlineMs);
    }

    /** The bucket ends of one shard with their side counts; a handful at most (8 + 1 decision buckets, 2 + 1 completion buckets). */
    private static final class Shard {
        long[] ends = new long[4];
        int[] counts = new int[4];
        int n;

        /** Counts one side in the bucket; true if the bucket had none. */
        boolean add(long end) {
            for (int i = n - 1; i >= 0; i--) { // newest bucket last: sides mostly arrive in event-time order
                if (ends[i] == end) {
                    counts[i]++;
                    return false;
                }
            }
            if (n == ends.length) {
                ends = java.util.Arrays.copyOf(ends, n * 2);
                counts = java.util.Arrays.copyOf(counts, n * 2);
            }
            ends[n] = end;
            counts[n] = 1;
            n++;
            return true;
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
