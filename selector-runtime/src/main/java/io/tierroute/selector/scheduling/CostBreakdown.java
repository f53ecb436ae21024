package io.tierroute.selector.scheduling;

/**
 * An immutable copy of {@link CostTerms}: why a worker cost what it did. Every decision carries the
 * breakdown of the chosen worker (and, with {@code explain}, of every candidate), so an operator can
 * see why a worker won and the fitter can regress realised times on the features. Times in µs.
 */
// queueUs / queuedPrefillTokens: C_queue = α_p·Σ p_eff(r') of the requests queued ahead; harmUs / inFlight:
// C_harm = α_p·p_eff·(κ·Ā + κ_q·max(0, Q − Q_slack)), Ā = fleetInFlight (min(Ā, λ_w·T_pf) where inFlight = 0;
// κ = harmWeight·(0.5 + 2·D̄); D̄ and λ_w are fleet-wide, not per candidate: Selector.prefillDuty / arrivalRatePerWorker); ownDecodeUs / kvUsedTokens / ownDecodeKvTokenSteps: C_own = α_own·d̂(r)·KV_used(w)
// (see CostModel). All three are part of totalUs. kvOverflowHarmUs / kvWaitUs: two parts of C_kv, the
// overflow's harm α_p·κ·Ā·(m_load·(1 − D̄)² + m_rec·(1 − D̄)³) (kvUs = α_p·kvOverflowTokens + this, unless the wait
// is larger) and the HBM-admission wait k·(1 − D̄)²·W, so an operator can tell which of the two priced the worker.
public record CostBreakdown(
        double prefillUs,
        double decodeUs,
        double kvUs,
        double tierUs,
        double headOfLineUs,
        double workflowBonusUs,
        double toolsBonusUs,
        double totalUs,
        long hitTokens,
        long pEffTokens,
        double recomputeQuadratic,
        long inflightDecodeTokens,
        double inflightDecodeQuadratic,
        double kvOverflowTokens,
        long[] tierTokens,
        double[] tierTransferUs,
        int cutOffTier,
        int queueLength,
        double queueExcessSquared,
        double affinityDecay,
        double toolHitFraction,
        double queueUs,
        long queuedPrefillTokens,
        double harmUs,
        int inFlight,
        double ownDecodeUs,
        long kvUsedTokens,
        double ownDecodeKvTokenSteps,
        double fleetInFlight,
        double kvOverflowHarmUs,
        double kvWaitUs) {
}
