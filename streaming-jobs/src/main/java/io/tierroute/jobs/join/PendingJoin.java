package io.tierroute.jobs.join;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.serde.RowTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * What {@link RequestJoinFunction} keeps for one request id while it waits for the other side: the
 * side that arrived (exactly one of the two is set) and the event time at which it stops waiting.
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

    public PendingJoin(DecisionRow decision, CompletionRow completion, long deadlineMs, long arrivalWatermark) {
        this.decision = decision;
        this.completion = completion;
        this.deadlineMs = deadlineMs;
        this.arrivalWatermark = arrivalWatermark;
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
