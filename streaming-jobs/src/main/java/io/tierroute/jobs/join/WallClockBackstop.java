package io.tierroute.jobs.join;

import java.util.Arrays;

/**
 * When the join gives up on a waiting side by the wall clock: the backstop for a watermark that stalls (a source
 * partition whose event time stops), which the event-time deadlines alone would leave waiting for ever. A side is due
 * {@code stateTtl} of processing time after it arrived, or after this run of the operator first saw the clock if it
 * arrived before (restored from a checkpoint or savepoint): a job restored after a long outage catches up on its
 * backlog by event time first instead of giving up at once on every side that waited through the outage. A side
 * restored from a version that kept no arrival clock counts from that first sight too.
 *
 * <p>The join counts and removes due sides at processing-time timers: one per shard and bucket of
 * {@code stateTtl / 4} (the first bucket end at or after a side's due time), so a due side leaves at most a quarter
 * of the TTL late and a shard has a handful of timers. In memory only, like {@link WaitingBuckets}: the bucket end
 * last armed per shard in this run, so that a side of a bucket already armed registers nothing.
 */
final class WallClockBackstop {
    /** Buckets per TTL. */
    static final int BUCKETS = 4;

    private final long ttlMs;
    private final long bucketMs;
    /** The processing time at which this run first saw the clock; Long.MIN_VALUE until then. */
    private long firstSeenMs = Long.MIN_VALUE;
    /** Per shard: the timer last armed in this run (Long.MIN_VALUE: none). */
    private final long[] armed = new long[RequestShards.COUNT];

    WallClockBackstop(long ttlMs) {
        this.ttlMs = ttlMs;
        this.bucketMs = Math.max(1, ttlMs / BUCKETS);
        Arrays.fill(armed, Long.MIN_VALUE);
    }

    /** Notes the operator's processing time; the first call fixes when this run began to count. */
    void saw(long nowMs) {
        if (firstSeenMs == Long.MIN_VALUE) {
            firstSeenMs = nowMs;
        }
    }

    /** The processing time at which a side that arrived at {@code arrivalClockMs} is due (after {@link #saw}). */
    long dueAt(long arrivalClockMs) {
        return saturatedAdd(Math.max(arrivalClockMs, firstSeenMs), ttlMs);
    }

    /**
     * The processing-time timer to register for a side of {@code shard} due at {@code dueMs}, or Long.MIN_VALUE when
     * this run armed that timer already and it has not fired (nothing deletes the join's timers).
     */
    long arm(int shard, long dueMs, long nowMs) {
        long end = dueMs >= Long.MAX_VALUE - bucketMs ? Long.MAX_VALUE : RequestJoinFunction.bucketEnd(dueMs, bucketMs);
        if (end == armed[shard] && end > nowMs) {
            return Long.MIN_VALUE;
        }
        armed[shard] = end;
        return end;
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
