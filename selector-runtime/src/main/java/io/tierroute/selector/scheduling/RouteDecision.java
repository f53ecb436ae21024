package io.tierroute.selector.scheduling;

import java.util.List;

/**
 * The answer to a route: the chosen worker, the snapshot its cost was computed with, the chosen
 * worker's cost breakdown, and with {@code explain} every candidate's.
 *
 * @param requestId             the request
 * @param worker                the chosen worker's name
 * @param workerIndex           its dense index
 * @param scope                 the parameter scope used
 * @param snapshotVersion       the parameter snapshot version used (0 = built-in defaults)
 * @param inputTokens           ISL as the cost model saw it
 * @param predictedOutputTokens {@code d̂(r)}
 * @param predictionSource      where {@code d̂(r)} came from
 * @param previousStepOutputTokens the output tokens of the workflow's previous step, a feature of {@code d̂(r)}
 *                              (null: no agent workflow, its previous step unknown, running or without a count)
 * @param explored              true when the pick was not the argmin (softmax or ε)
 * @param spread                true when the light-load spread left out a worker cheaper than every one it kept (the
 *                              pick is the argmin of the workers left, unless also {@code explored};
 *                              {@link SelectorSettings#spreadWithin})
 * @param queuedNanos           time the request waited in the admission queue
 * @param chosen                the chosen worker's cost, term by term
 * @param candidates            every candidate with its cost or the filter that excluded it (explain only), else empty
 */
public record RouteDecision(String requestId, String worker, int workerIndex, String scope, long snapshotVersion,
                            int inputTokens, int predictedOutputTokens, PredictionSource predictionSource,
                            Integer previousStepOutputTokens, boolean explored, boolean spread, long queuedNanos,
                            CostBreakdown chosen, List<Candidate> candidates) {

    /** Where {@code d̂} came from, in DESIGN.md §3's order of preference. */
    public enum PredictionSource { HINT, QUANTILE_MODEL, MAX_TOKENS_HALF }

    /** One candidate of an explained decision. */
    public record Candidate(String worker, String excludedBecause, CostBreakdown cost) {}

    /** This decision without the explained candidates (itself when there are none). */
    public RouteDecision withoutCandidates() {
        return candidates.isEmpty() ? this : new RouteDecision(requestId, worker, workerIndex, scope, snapshotVersion,
                inputTokens, predictedOutputTokens, predictionSource, previousStepOutputTokens, explored, spread,
                queuedNanos, chosen, List.of());
    }
}
