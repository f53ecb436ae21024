package io.tierroute.jobs.join;

import java.util.Arrays;

/**
 * When the join gives up on a waiting side by the wall clock: the backstop for a watermark that stalls (a source
 * partition whose event time stops), which the event-time deadlines alone would leave waiting for ever. A side is due
 * once it has waited {@code stateTtl} of the join's <em>running clock</em>: the wall clock without the time the job was
 * down. A checkpoint keeps the running clock; a restore resumes it from there ({@link #start}), so a job back from an
 * outage longer than the TTL catches up on its backlog by event time first instead of giving up at once on every side
 * that waited through the outage, and a job that fails over often during a stall still expires its sides on time (each
 * wait counts across restarts). A side restored from a version that kept no arrival clock counts from the first
 * restore into this version, which checkpoints keep too.
 *
 * <p>The join counts and removes due sides at processing-time timers: one per shard and bucket of
 * {@code stateTtl / 4} (the first bucket end at or after a side's due time, in wall-clock time), so a due side leaves at
 * most a quarter of the TTL late and a shard has a handful of timers. Which timer each shard has armed in this run is
 * kept in memory only, like {@link WaitingBuckets}, so that a side of a bucket already armed registers nothing.
 */
final class WallClockBackstop {
    /** Buckets per TTL. */
    static final int BUCKETS = 4;
    /** No time (no timer armed, no clock seen, nothing restored). */
    static final long NONE = Long.MIN_VALUE;

    private final long ttlMs;
    private final long bucketMs;
    /** Wall clock minus running clock: the downtime before this run. */
    private long offsetMs;
    /** Where a side of unknown arrival starts to wait: the running clock of the first run of this version. */
    private long unknownArrivalMs;
    /** Per shard: the timer armed in this run that has not fired (NONE: none). */
    private final long[] armed = new long[RequestShards.COUNT];

    WallClockBackstop(long ttlMs) {
        this.ttlMs = ttlMs;
        this.bucketMs = Math.max(1, ttlMs / BUCKETS);
        Arrays.fill(armed, NONE);
    }

    /**
     * Starts this run at wall-clock time {@code wallMs}: the running clock resumes at {@code restoredRunningMs}, the
     * latest running clock the restored checkpoint kept (one per subtask of the run before), or equals the wall clock
     * when nothing was restored ({@link #NONE}). {@code restoredUnknownArrivalMs} is {@link #unknownArrival()} as the
     * checkpoint kept it; NONE (a fresh start, or a restore from the version before) makes it this run's start.
     */
    void start(long wallMs, long restoredRunningMs, long restoredUnknownArrivalMs) {
        offsetMs = restoredRunningMs == NONE ? 0 : wallMs - restoredRunningMs;
        unknownArrivalMs = restoredUnknownArrivalMs == NONE ? wallMs - offsetMs : restoredUnknownArrivalMs;
    }

    /** The running clock from which a side of unknown arrival waits (a checkpoint keeps it). */
    long unknownArrival() {
        return unknownArrivalMs;
    }

    /** The running clock at wall-clock time {@code wallMs}: what a side's arrival, its due time and a checkpoint keep. */
    long running(long wallMs) {
        return wallMs - offsetMs;
    }

    /** The running clock at which a side that arrived at running time {@code arrivalMs} is due. */
    long dueAt(long arrivalMs) {
        long from = arrivalMs == PendingJoin.UNKNOWN_ARRIVAL_CLOCK ? unknownArrivalMs : arrivalMs;
        return saturatedAdd(from, ttlMs);
    }

    /**
     * The processing-time timer to register for a side of {@code shard} due at running time {@code dueMs}, or NONE
     * when this run armed that timer already and it has not fired (nothing deletes the join's timers).
     */
    long arm(int shard, long dueMs) {
        long wall = saturatedAdd(dueMs, offsetMs);
        long end = wall >= Long.MAX_VALUE - bucketMs ? Long.MAX_VALUE : RequestJoinFunction.bucketEnd(wall, bucketMs);
        if (end == armed[shard]) {
            return NONE;
        }
        armed[shard] = end;
        return end;
    }

    /** Whether this run has no timer armed for the shard (a shard restored with sides of unknown arrival needs one). */
    boolean unarmed(int shard) {
        return armed[shard] == NONE;
    }

    /** The shard's timer at {@code timestampMs} fired: the one armed, if at or before it, is gone. */
    void fired(int shard, long timestampMs) {
        if (armed[shard] <= timestampMs) {
            armed[shard] = NONE;
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
    }
}
