package io.tierroute.selector.scheduling;

/**
 * Receives every admitted decision (not previews) on the route thread, right after admission: the
 * decisions producer of the Kafka package implements it. It must never block and should allocate
 * little: hand the inputs to another thread and build records there.
 */
@FunctionalInterface
public interface DecisionSink {

    /**
     * @param request             the routed request
     * @param decision            the decision, with the chosen worker's cost breakdown
     * @param candidateCount      workers that were scored (healthy, not draining)
     * @param prefixGroupId       hash of the prompt's first block (0 when the prompt has no full block)
     * @param idleSinceLastStepMs time since the workflow's previous step finished (0 while it runs), ms;
     *                            -1 when the request has no known previous step
     * @param lastWorkerHeldTokens tokens of the prompt's prefix the workflow's previous worker held on its own tiers
     *                            (HBM, CPU, NVMe) by the index at this decision, whichever worker was chosen (λ's
     *                            observation); -1 when the request has no known previous step, the previous step still
     *                            runs or did not complete (failed, dropped), or the previous worker is approximate (the
     *                            index holds its own admissions)
     * @param timestampMs         decision time, ms since epoch (UTC)
     */
    void decided(RouteRequest request, RouteDecision decision, int candidateCount, long prefixGroupId, long idleSinceLastStepMs,
                 long lastWorkerHeldTokens, long timestampMs);
}
