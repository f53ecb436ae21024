package io.tierroute.jobs.join;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;

/**
 * What {@link RequestJoinFunction} keeps for one request id while it waits for the other side: the
 * side that arrived (exactly one of the two is set) and the event time at which it stops waiting.
 */
public class PendingJoin {
    public DecisionRow decision;
    public CompletionRow completion;
    /** Decision timeout or completion grace: from a watermark at or past it, the side counts as unmatched, ms. */
    public long deadlineMs;

    public PendingJoin() {}

    /** Whether the watermark has passed the deadline (the per-request timer of before would have fired). */
    boolean expiredAt(long watermark) {
        return deadlineMs <= watermark;
    }
}
