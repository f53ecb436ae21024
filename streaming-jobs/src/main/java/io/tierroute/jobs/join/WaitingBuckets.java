package io.tierroute.jobs.join;

import java.util.Arrays;

/**
 * What one side of the join (decisions or completions) has waiting in each shard, in memory only (not state),
 * so that {@link RequestJoinFunction} registers a clean-up timer once per shard and bucket instead of once
 * per side (Flink deduplicates it, but only after building and hashing a timer: 7 % of the join task's
 * samples, ninth round) and skips a clean-up scan of a shard's map when no waiting side can have expired
 * (with a backlog the completions' scans found nothing to remove: 9 % of the join task's samples).
 *
 * <p><b>Timers.</b> The bucket ends registered per shard in this run whose timers may still be pending: a timer
 * at a time after the current watermark has not fired, so another side of that bucket needs no registration unless
 * the join deleted the timer ({@link #forget}). The join's wall-clock backstop deletes the timer of a bucket that
 * no side of either map holds any more (it emptied it, or joins did): with a stalled watermark nothing fires them,
 * and the event times of new sides keep opening buckets. Ends at or before the watermark (fired) are dropped
 * when the list would grow, so it holds about the shard's pending timers.
 *
 * <p><b>Scans.</b> Sides per shard and bucket (the bucket end at or after a side's deadline). A shard's counts
 * are unknown after {@code open()} — a fresh start or a restore, whose state this class does not see — and
 * then every clean-up timer scans, as without this class; the first scan counts the sides it leaves, and from
 * then on every put and removal keeps the counts exact. A side whose deadline the watermark has passed lies in
 * a bucket ending at or before the bucket end of the watermark: if no counted bucket does, the scan would
 * remove nothing. The join reports every removal here, the wall clock's ({@link WallClockBackstop}) included; were
 * one missed, a count would only be too high, i.e. one scan more, and the next scan recounts.
 */
final class WaitingBuckets {
    private final long bucketMs;
    /** Per shard: null = unknown (no scan since open), else the buckets that hold at least one side. */
    private final Shard[] shards = new Shard[RequestShards.COUNT];
    /** Per shard: the clean-up times registered since open whose timers may be pending, newest last (null: none). */
    private final long[][] registered = new long[RequestShards.COUNT][];
    private final int[] registeredCount = new int[RequestShards.COUNT];

    WaitingBuckets(long bucketMs) {
        this.bucketMs = bucketMs;
    }

    /** The clean-up time (bucket end) of a side waiting until {@code deadlineMs}. */
    long end(long deadlineMs) {
        return RequestJoinFunction.bucketEnd(deadlineMs, bucketMs);
    }

    /**
     * A side with this deadline entered the shard's map at this watermark; returns the clean-up time to register,
     * or Long.MIN_VALUE when that timer is registered already and has not fired.
     */
    long added(int shard, long deadlineMs, long watermark) {
        long end = end(deadlineMs);
        Shard s = shards[shard];
        if (s != null) {
            s.add(end);
        }
        if (end > watermark) {
            if (isRegistered(shard, end)) {
                return Long.MIN_VALUE;
            }
            register(shard, end, watermark);
        }
        return end;
    }

    private boolean isRegistered(int shard, long end) {
        long[] ends = registered[shard];
        for (int i = registeredCount[shard] - 1; i >= 0; i--) { // newest first: mostly the bucket now filling
            if (ends[i] == end) {
                return true;
            }
        }
        return false;
    }

    private void register(int shard, long end, long watermark) {
        long[] ends = registered[shard];
        int n = registeredCount[shard];
        if (ends == null) {
            ends = registered[shard] = new long[4];
        } else if (n == ends.length) {
            n = registeredCount[shard] = dropFired(shard, watermark);
            if (n == ends.length) {
                ends = registered[shard] = Arrays.copyOf(ends, n * 2);
            }
        }
        ends[n] = end;
        registeredCount[shard] = n + 1;
    }

    /** Drops the shard's registered ends at or before the watermark (their timers fired); returns how many are left. */
    int dropFired(int shard, long watermark) {
        long[] ends = registered[shard];
        int kept = 0;
        for (int i = 0; i < registeredCount[shard]; i++) {
            if (ends[i] > watermark) {
                ends[kept++] = ends[i];
            }
        }
        registeredCount[shard] = kept;
        return kept;
    }

    /** The shard's registered ends whose timers may be pending (a copy; after {@link #dropFired}: all after the watermark). */
    long[] registered(int shard) {
        long[] ends = registered[shard];
        return ends == null ? new long[0] : Arrays.copyOf(ends, registeredCount[shard]);
    }

    /** The timer at {@code end} was deleted: a side of that bucket registers it again. */
    void forget(int shard, long end) {
        long[] ends = registered[shard];
        int n = registeredCount[shard];
        for (int i = 0; i < n; i++) {
            if (ends[i] == end) {
                System.arraycopy(ends, i + 1, ends, i, n - i - 1); // keeps newest last
                registeredCount[shard] = n - 1;
                return;
            }
        }
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
