package io.tierroute.jobs.ingest;

import io.tierroute.fitter.regression.LatencyObservation;

/**
 * The chosen worker's cost regressors as the decision priced them (tier transfer time summed over tiers): the latency
 * regression's row once the completion says how long the request took. Part of a {@link DecisionRow} and, shared
 * with it, of the {@code JoinedRow} the join makes of it; written by {@code RowFields}.
 */
public final class CostRegressors {
    /**
     * {@link #kvOverflowTokens} of a decision written without its queued prefill (RoutingDecision v1), and
     * {@link #pEffTokens} of one that cut a congested tier off.
     */
    public static final double UNKNOWN = Double.NaN;

    /**
     * p_eff as the decision priced it; {@link #UNKNOWN} when it cut a congested tier off (RoutingDecision
     * {@code cutOffTier}): the engine loads what it holds, so it computed fewer tokens than p_eff and spent the
     * load's time instead, and the row would pull α_p down where links are congested.
     */
    public double pEffTokens;
    /**
     * Tokens priced at α_p beyond p_eff: KV overflow (C_kv) plus the queued prefill ahead (C_queue); {@link #UNKNOWN}
     * when the decision's schema had no queued prefill (its 0 would put the queue wait on the other terms).
     */
    public double kvOverflowTokens;
    public double recomputeQuadratic;
    public double inflightDecodeTokens;
    public double inflightDecodeQuadratic;
    public double tierTransferUs;
    public int queueLength;
    public double affinityDecay;
    public double expectedToolHitFraction;

    /** Whether the regression can use this row: every α_p-priced token is known. */
    public boolean alphaPColumnKnown() {
        return !Double.isNaN(kvOverflowTokens) && !Double.isNaN(pEffTokens);
    }

    /** Whether the decision cut a congested tier off ({@link #pEffTokens} unknown). */
    public boolean cutOff() {
        return Double.isNaN(pEffTokens);
    }

    /** The regression's observation: these regressors against the realised time to first token. */
    public LatencyObservation observation(long eventTimeMs, double realisedUs) {
        return new LatencyObservation(eventTimeMs, realisedUs, pEffTokens, kvOverflowTokens, recomputeQuadratic,
            inflightDecodeTokens, inflightDecodeQuadratic, tierTransferUs, queueLength, affinityDecay,
            expectedToolHitFraction);
    }

    /** As {@link #observation}, an unknown α_p column at 0: for the sanity checks of the row's other figures. */
    public LatencyObservation checkableObservation(long eventTimeMs, double realisedUs) {
        if (alphaPColumnKnown()) {
            return observation(eventTimeMs, realisedUs);
        }
        CostRegressors c = copy();
        c.kvOverflowTokens = Double.isNaN(kvOverflowTokens) ? 0 : kvOverflowTokens;
        c.pEffTokens = Double.isNaN(pEffTokens) ? 0 : pEffTokens;
        return c.observation(eventTimeMs, realisedUs);
    }

    public CostRegressors copy() {
        CostRegressors c = new CostRegressors();
        c.pEffTokens = pEffTokens;
        c.kvOverflowTokens = kvOverflowTokens;
        c.recomputeQuadratic = recomputeQuadratic;
        c.inflightDecodeTokens = inflightDecodeTokens;
        c.inflightDecodeQuadratic = inflightDecodeQuadratic;
        c.tierTransferUs = tierTransferUs;
        c.queueLength = queueLength;
        c.affinityDecay = affinityDecay;
        c.expectedToolHitFraction = expectedToolHitFraction;
        return c;
    }
}
