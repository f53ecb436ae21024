package io.tierroute.jobs.join;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;

/**
 * What {@link RequestJoinFunction} keeps for one request id while it waits for the other side: the
 * side that arrived (exactly one of the two is set) and its event-time timer. One value state instead of
 * three: one state access per input instead of up to six.
 */
public class PendingJoin {
    public DecisionRow decision;
    public CompletionRow completion;
    /** Event-time timer (decision timeout or completion grace), ms. */
    public long eventTimer;

    public PendingJoin() {}
}
