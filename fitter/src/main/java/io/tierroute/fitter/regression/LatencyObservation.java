package io.tierroute.fitter.regression;

/**
 * One joined (decision, completion) row: the chosen worker's cost features (Avro CostFeatures) and the
 * realised time the cost should have predicted.
 *
 * @param eventTimeMs event time of the completion, ms since epoch
 * @param realisedUs realised time, µs (the target y; >= 0)
 * @param pEffTokens p_eff = ISL − hit, tokens
 * @param kvOverflowTokens max(0, KV_used + ISL + d̂ − KV_cap), tokens (priced at alpha_p, so added to p_eff)
 * @param recomputeQuadratic (ISL² − hit²)/2, tokens²
 * @param inflightDecodeTokens Σ d̂ over in-flight requests, tokens
 * @param inflightDecodeQuadratic Σ [ctx·d̂ + d̂²/2], tokens²
 * @param tierTransferUs physical transfer time summed over non-HBM tiers, µs
 * @param queueLength Q(w), requests waiting
 * @param affinityDecay 1[last worker = w]·exp(−λ t), 0..1
 * @param expectedToolHitFraction |ExpectedHits| / |expected_next_tools|, 0..1
 */
public record LatencyObservation(
        long eventTimeMs,
        double realisedUs,
        double pEffTokens,
        double kvOverflowTokens,
        double recomputeQuadratic,
        double inflightDecodeTokens,
        double inflightDecodeQuadratic,
        double tierTransferUs,
        int queueLength,
        double affinityDecay,
        double expectedToolHitFraction) {

    /** Why this row cannot be used, or {@link UpdateOutcome#ACCEPTED}. */
    public UpdateOutcome check() {
        double[] nonNegative = {realisedUs, pEffTokens, kvOverflowTokens, recomputeQuadratic,
            inflightDecodeTokens, inflightDecodeQuadratic, tierTransferUs, affinityDecay, expectedToolHitFraction};
        for (double v : nonNegative) {
            if (!Double.isFinite(v)) {
                return UpdateOutcome.REJECTED_NON_FINITE;
            }
        }
        for (double v : nonNegative) {
            if (v < 0) {
                return UpdateOutcome.REJECTED_NEGATIVE;
            }
        }
        if (queueLength < 0) {
            return UpdateOutcome.REJECTED_NEGATIVE;
        }
        if (affinityDecay > 1 || expectedToolHitFraction > 1) {
            return UpdateOutcome.REJECTED_OUT_OF_RANGE;
        }
        // A TTFT of 0 is no measurement: a first token takes at least one engine step. An adapter that fills only a
        // completion's ttftUs leaves its phases at 0, and a share of such rows drove R² below the gate's minimum (every
        // snapshot rejected) or pulled α_wf to 9× its value.
        if (realisedUs == 0) {
            return UpdateOutcome.REJECTED_OUT_OF_RANGE;
        }
        // Physically impossible magnitudes (e.g. a realised time computed from a missing start
        // timestamp is the epoch in µs, ~1.7e15) would otherwise drag the noise scale and the fit.
        if (realisedUs > MAX_REALISED_US || pEffTokens > MAX_TOKENS || kvOverflowTokens > MAX_TOKENS
                || inflightDecodeTokens > MAX_INFLIGHT_TOKENS || tierTransferUs > MAX_REALISED_US
                || recomputeQuadratic > (double) MAX_TOKENS * MAX_TOKENS
                || inflightDecodeQuadratic > (double) MAX_INFLIGHT_TOKENS * MAX_TOKENS
                || queueLength > MAX_QUEUE) {
            return UpdateOutcome.REJECTED_OUT_OF_RANGE;
        }
        return UpdateOutcome.ACCEPTED;
    }

    /** A time to first token beyond this (≈ 2.8 h) is a broken timestamp, not a latency. */
    public static final double MAX_REALISED_US = 1e10;
    /** More prompt tokens than any context window. */
    public static final double MAX_TOKENS = 1e8;
    /** More tokens in flight on one worker than any engine holds. */
    public static final double MAX_INFLIGHT_TOKENS = 1e10;
    /** More waiting requests than any engine queues. */
    public static final int MAX_QUEUE = 1_000_000;

    /**
     * Writes the regressors for a given Q_slack into {@code x} (length 8, or 9 with the intercept as the
     * last entry), in {@link Coefficient} order.
     */
    void features(int qSlack, boolean intercept, double[] x) {
        x[0] = pEffTokens + kvOverflowTokens;
        x[1] = recomputeQuadratic;
        x[2] = inflightDecodeTokens;
        x[3] = inflightDecodeQuadratic;
        x[4] = tierTransferUs;
        x[5] = holFeature(queueLength, qSlack);
        x[6] = -affinityDecay;
        x[7] = -expectedToolHitFraction;
        if (intercept) {
            x[8] = 1.0;
        }
    }

    /** {@code max(0, Q − slack)²}. */
    static double holFeature(int queueLength, int qSlack) {
        double excess = Math.max(0, queueLength - qSlack);
        return excess * excess;
    }
}
