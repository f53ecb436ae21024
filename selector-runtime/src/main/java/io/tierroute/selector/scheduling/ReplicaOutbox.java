package io.tierroute.selector.scheduling;

import io.tierroute.selector.sequences.RequestEvent;

/**
 * What this selector tells the other replicas of its deployment (the {@code sync} package's {@code ReplicaSync}):
 * each request it admits, and each request event reported to it. Without it a replica prices a worker's load from its
 * own requests only, on top of the engine's telemetry. Both calls come on route or request threads and must not block.
 */
public interface ReplicaOutbox {

    /** This selector admitted {@code admission}, right after its own tracker did. */
    void admitted(ReplicaAdmission admission);

    /**
     * A request event was reported to this selector (a gateway's post, a route abandoned after its admission) and
     * {@code appliedHere} says whether its request was in flight here. The outbox tells the other replicas; when the
     * request is not in flight here it may yet be (its admission by another replica not heard yet), so the outbox
     * applies it once that admission comes.
     *
     * @return {@link ReportedEvent#APPLIED} or {@link ReportedEvent#RELAYED}
     */
    ReportedEvent reported(RequestEvent event, boolean appliedHere);
}
