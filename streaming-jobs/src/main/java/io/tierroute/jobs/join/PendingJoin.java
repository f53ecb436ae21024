package io.tierroute.jobs.join;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.serde.RowTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * What {@link RequestJoinFunction} keeps for one request id while it waits for the other side: the
 * side that arrived (exactly one of the two is set), the event time at which it stops waiting, and the wall-clock
 * time of its arrival (the backstop's, {@link WallClockBackstop}).
 * Never changed once built: its serializer ({@code PendingJoinSerializer}) is declared immutable, so the
 * heap backend's copy-on-write shares it.
 */
@TypeInfo(RowTypeInfo.OfPendingJoin.class)
public final class PendingJoin {
    public final DecisionRow decision;
    public final CompletionRow completion;
    /** Decision timeout or completion grace: from a watermark at or past it, the side counts as unmatched, ms. */
    public final long deadlineMs;
    /** The operator's watermark when the side arrived, ms. */
    public final long arrivalWatermark;
    /**
     * The operator's processing time when the side arrived, ms; {@link #UNKNOWN_ARRIVAL_CLOCK} for a side restored from
     * state of a version that did not keep it.
     */
    public final long arrivalClockMs;

    /** {@link #arrivalClockMs} of a side written before the join kept it. */
    public static final long UNKNOWN_ARRIVAL_CLOCK = Long.MIN_VALUE;

    public PendingJoin(DecisionRow decision, CompletionRow completion, long deadlineMs, long arrivalWatermark,
            long arrivalClockMs) {
        this.decision = decision;
        this.completion = completion;
        this.deadlineMs = deadlineMs;
        this.arrivalWatermark = arrivalWatermark;
        this.arrivalClockMs = arrivalClockMs;
    }

    /**
     * Whether the side stops waiting at this watermark: the watermark is at or past the deadline. The deadline
     * is at least the arrival watermark plus the wait ({@code RequestJoinFunction.waitUntil}), so the watermark
     * has always moved since the side arrived; the second test keeps that true for a side restored from a
     * savepoint of the job before that rule (its late sides had deadlines behind their arrival watermark).
     */
    boolean expiredAt(long watermark) {
        return deadlineMs <= watermark && watermark > arrivalWatermark;
    }
}
