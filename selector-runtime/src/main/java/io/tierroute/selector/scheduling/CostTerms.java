package io.tierroute.selector.scheduling;

import io.tierroute.selector.protocol.Tier;

/**
 * The cost of one candidate, term by term, plus the features the fitter regresses on. Mutable and
 * reused across routes (one array of them per thread) so scoring allocates nothing; turn it into an
 * immutable {@link CostBreakdown} for anything that leaves the route call.
 */
public final class CostTerms {

    // Terms of DESIGN.md §3, in µs. `total` = prefill + harm + queue + ownDecode + decode + kv + tier + hol − workflowBonus − toolsBonus.
    public double prefill;
    /**
     * {@code C_harm}: the delay r's recomputed tokens add to the requests in flight (weight κ, Ā of them) and queued behind
     * it (κ_q), plus {@code C_step}, the prefill step r's admission adds to each request decoding on w (CostModel.admissionStep).
     */
    public double harm;
    /** {@code C_queue}: prefill work queued ahead on the worker. */
    public double queue;
    /** {@code C_own}: the part of r's own decode time that depends on the worker. */
    public double ownDecode;
    public double decode;
    public double kv;
    /**
     * {@code α_p·κ·Ā·(m_load·(1 − D̄)² + m_rec·(1 − D̄)³)}, the harm part of the overflow price
     * {@code α_p·overflow + kvOverflowHarm} (CostModel.overflowHarm); {@code kv} is the larger of that price and
     * {@code kvWait}.
     */
    public double kvOverflowHarm;
    /** {@code k·(1 − D̄)²·W}, the admission wait part of {@code kv} (which is the larger of it and the overflow price). */
    public double kvWait;
    public double tier;
    public double headOfLine;
    public double workflowBonus;
    public double toolsBonus;
    public double total;

    // Features (what the terms were computed from).
    /** Prompt tokens that will not be recomputed (held on a usable tier). */
    public long hitTokens;
    /** {@code p_eff = ISL − hit}. */
    public long pEffTokens;
    /** {@code (ISL² − hit²)/2}. */
    public double recomputeQuadratic;
    /** {@code |A(w)|}: requests in flight on the worker. */
    public int inFlight;
    /** {@code Ā}: requests in flight per healthy worker, fleet-wide (C_harm's count of requests r delays). */
    public double fleetInFlight;
    /** {@code Σ p_eff(r')} of the worker's requests without a first token yet. */
    public long queuedPrefillTokens;
    /** {@code Σ d̂} on the worker. */
    public long decodeTokens;
    /** {@code Σ [ctx·d̂ + d̂²/2]} on the worker. */
    public double decodeQuadratic;
    /** {@code KV_used(w)}: KV tokens in use on the worker. */
    public long kvUsedTokens;
    /** {@code d̂(r)·KV_used(w)}: C_own's regressor, token·steps. */
    public double ownDecodeKvTokenSteps;
    /** Tokens that must be evicted and recomputed: {@code max(0, KV_used + ISL + d̂ − KV_cap)}. */
    public double kvOverflowTokens;
    /** Tokens loaded from each tier ({@code H_t} after the cut-off); index 0 (HBM) is loaded from nowhere. */
    public final long[] tierTokens = new long[Tier.COUNT];
    /** Physical transfer time per tier in µs, before {@code α_t}. */
    public final double[] tierTransferUs = new double[Tier.COUNT];
    /**
     * The first tier cut off ({@code ρ} past {@code ρ_thr}, no bandwidth, or a link too slow for a finite transfer
     * time), so it and everything after it became a miss; -1 when none was.
     */
    public int cutOffTier;
    /** {@code Q(w)}. */
    public int queueLength;
    /** {@code max(0, Q − Q_slack)²}. */
    public double queueExcessSquared;
    /** {@code 1[last_worker = w]·e^{−λt}}. */
    public double affinityDecay;
    /** {@code |ExpectedHits(w,r)| / |expected_next_tools(r)|}, 0 without expected tools. */
    public double toolHitFraction;

    void clear() {
        prefill = harm = queue = ownDecode = decode = kv = kvOverflowHarm = kvWait = tier = headOfLine = workflowBonus = toolsBonus = total = 0;
        hitTokens = pEffTokens = decodeTokens = queuedPrefillTokens = kvUsedTokens = 0;
        ownDecodeKvTokenSteps = 0;
        recomputeQuadratic = decodeQuadratic = kvOverflowTokens = 0;
        // Element by element, not Arrays.fill: scoring clears these once per candidate and reads them back at once,
        // and the loop measured 13–15 % less scoring time at 256 workers on a quick host (bench/RESULTS.md, "Decision
        // latency measured again"; JMH's whole decision could not show it).
        for (int t = 0; t < Tier.COUNT; t++) {
            tierTokens[t] = 0;
            tierTransferUs[t] = 0;
        }
        cutOffTier = -1;
        queueLength = 0;
        inFlight = 0;
        fleetInFlight = 0;
        queueExcessSquared = affinityDecay = toolHitFraction = 0;
    }

    public CostBreakdown toBreakdown() {
        return new CostBreakdown(prefill, decode, kv, tier, headOfLine, workflowBonus, toolsBonus, total,
                hitTokens, pEffTokens, recomputeQuadratic, decodeTokens, decodeQuadratic, kvOverflowTokens,
                tierTokens.clone(), tierTransferUs.clone(), cutOffTier, queueLength, queueExcessSquared,
                affinityDecay, toolHitFraction, queue, queuedPrefillTokens, harm, inFlight, ownDecode, kvUsedTokens,
                ownDecodeKvTokenSteps, fleetInFlight, kvOverflowHarm, kvWait);
    }
}
