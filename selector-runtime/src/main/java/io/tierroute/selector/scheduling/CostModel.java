package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.sequences.LoadView;

/**
 * The cost model of DESIGN.md §3: the estimated time (µs) until request {@code r} gets its first
 * token on worker {@code w}, plus the harm it does there.
 *
 * <pre>
 * Cost(w,r) = C_prefill + C_decode + C_kv + C_tier + C_hol − B_wf − B_tools
 * </pre>
 *
 * Each term is a method below whose comment carries its formula. {@link #score} fills a
 * {@link CostTerms} with every term and feature; it allocates nothing.
 */
public final class CostModel {

    private static final int HBM = Tier.HBM.ordinal();

    private CostModel() {}

    /**
     * Scores one candidate.
     *
     * @param request   the request-level inputs (ISL, {@code d̂(r)}, block size, bytes per token…)
     * @param worker    the candidate
     * @param match     the prefix lookup of the request (cumulative matched blocks per tier)
     * @param load      the candidate's in-flight load
     * @param bandwidth the candidate's configured bandwidth per tier in bytes/s (0: no such tier)
     * @param params    the active parameter set
     * @param out       receives every term and feature
     */
    public static void score(RouteContext request, int worker, PrefixMatch match, LoadView load,
                             double[] bandwidth, ParameterSet params, CostTerms out) {
        CostParameters p = params.cost();
        out.clear();

        // Which prompt tokens are held, and on which tier (H_t), after the ρ_thr cut-off.
        long held = 0;
        for (int t = 0; t < Tier.COUNT; t++) {
            long upToTier = Math.min((long) match.cumulativeBlocks(worker, t) * request.blockSize(), request.isl());
            long segment = upToTier - held;
            if (segment <= 0) {
                continue;
            }
            if (t == HBM) {
                out.tierTokens[t] = segment;
                held = upToTier;
                continue;
            }
            double bw = Double.isNaN(params.bandwidthOverride(t)) ? bandwidth[t] : params.bandwidthOverride(t);
            double rho = params.rho(worker, t);
            if (bw <= 0 || rho > p.rhoThreshold()) {
                // The AIMD cut-off: a congested link is a miss. Engines match prefixes contiguously,
                // so every slower segment after this one is unusable too.
                out.cutOffTier = t;
                break;
            }
            out.tierTokens[t] = segment;
            out.tierTransferUs[t] = transferMicros(segment, request.bytesPerToken(), bw, rho, p.rhoEpsilon());
            held = upToTier;
        }
        out.hitTokens = held;
        out.pEffTokens = request.isl() - held;
        out.recomputeQuadratic = ((double) request.isl() * request.isl() - (double) held * held) / 2.0;

        out.prefill = prefill(p, out.pEffTokens, out.recomputeQuadratic);

        out.decodeTokens = load.decodeTokens();
        out.decodeQuadratic = load.decodeQuadratic();
        out.decode = decode(p, out.decodeTokens, out.decodeQuadratic);

        out.kvOverflowTokens = Math.max(0.0,
                (double) load.kvUsedTokens() + request.isl() + request.predictedOutputTokens() - load.kvCapacityTokens());
        out.kv = kvOverflow(p, out.kvOverflowTokens);

        out.tier = tier(p, out.tierTransferUs);

        out.queueLength = load.waiting();
        out.queueExcessSquared = queueExcessSquared(p, load.waiting());
        out.headOfLine = headOfLine(p, out.queueExcessSquared);

        out.affinityDecay = request.lastWorker() == worker
                ? affinityDecay(p, request.secondsSinceLastStep()) : 0.0;
        out.workflowBonus = workflowBonus(p, out.affinityDecay);

        out.toolHitFraction = request.expectedToolCount() == 0
                ? 0.0 : (double) request.toolHits(worker) / request.expectedToolCount();
        out.toolsBonus = toolsBonus(p, out.toolHitFraction);

        out.total = out.prefill + out.decode + out.kv + out.tier + out.headOfLine
                - out.workflowBonus - out.toolsBonus;
    }

    /** {@code C_prefill = α_p·p_eff + α_p2·(ISL² − hit²)/2}, with {@code p_eff = ISL − hit}. */
    static double prefill(CostParameters p, long pEffTokens, double recomputeQuadratic) {
        return p.alphaP() * pEffTokens + p.alphaP2() * recomputeQuadratic;
    }

    /** {@code C_decode = α_d·Σ d̂(r') + α_d2·Σ [ctx(r')·d̂(r') + d̂(r')²/2]} over requests in flight. */
    static double decode(CostParameters p, long decodeTokens, double decodeQuadratic) {
        return p.alphaD() * decodeTokens + p.alphaD2() * decodeQuadratic;
    }

    /** {@code C_kv = α_p·max(0, KV_used + ISL + d̂ − KV_cap)}: tokens evicted now and recomputed later. */
    static double kvOverflow(CostParameters p, double overflowTokens) {
        return p.alphaP() * overflowTokens;
    }

    /** Physical time to load {@code H_t} tokens: {@code H_t·bytes_per_token / (BW_t·max(ε, 1 − ρ_t))·10⁶} µs. */
    static double transferMicros(long tokens, double bytesPerToken, double bandwidth, double rho, double epsilon) {
        return tokens * bytesPerToken / (bandwidth * Math.max(epsilon, 1.0 - rho)) * 1e6;
    }

    /** {@code C_tier = Σ_{t≠HBM} α_t·transfer_t}. */
    static double tier(CostParameters p, double[] transferUs) {
        double sum = 0;
        for (int t = 0; t < Tier.COUNT; t++) {
            if (t != HBM) {
                sum += transferUs[t];
            }
        }
        return p.alphaT() * sum;
    }

    /** {@code max(0, Q − Q_slack)²}. */
    static double queueExcessSquared(CostParameters p, int waiting) {
        double excess = Math.max(0.0, waiting - p.qSlack());
        return excess * excess;
    }

    /** {@code C_hol = α_ho·max(0, Q − Q_slack)²}. */
    static double headOfLine(CostParameters p, double queueExcessSquared) {
        return p.alphaHo() * queueExcessSquared;
    }

    /** {@code e^{−λ·t_since_last}}: the probability the workflow's previous context is still cached. */
    static double affinityDecay(CostParameters p, double secondsSinceLast) {
        return Math.exp(-p.lambda() * Math.max(0.0, secondsSinceLast));
    }

    /** {@code B_wf = α_wf·1[last_worker(r) = w]·e^{−λ·t_since_last(r)}}. */
    static double workflowBonus(CostParameters p, double affinityDecay) {
        return p.alphaWf() * affinityDecay;
    }

    /** {@code B_tools = α_wf2·|ExpectedHits(w,r)| / |expected_next_tools(r)|}. */
    static double toolsBonus(CostParameters p, double toolHitFraction) {
        return p.alphaWf2() * toolHitFraction;
    }
}
