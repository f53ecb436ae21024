package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.sequences.LoadView;

/**
 * The cost model of DESIGN.md §3: the estimated time (µs) until request {@code r} gets its first
 * token on worker {@code w}, plus the harm it does there, plus (where {@code α_own} is set) the part of
 * r's own decode time that depends on {@code w}: together, when r will <em>finish</em> on {@code w}.
 *
 * <pre>
 * Cost(w,r) = C_prefill + C_harm + C_queue + C_own + C_decode + C_kv + C_tier + C_hol − B_wf − B_tools
 * </pre>
 *
 * {@code C_kv} is DESIGN.md §3's overflow price plus the harm of the KV r misses, or, once fitted, the wait for
 * HBM if that is longer ({@link #kvOverflow}, {@link #overflowHarm}, {@link #kvWait}).
 *
 * Two terms beyond DESIGN.md §3's list, both zero in its worked example (nothing waits, nothing in flight
 * is counted there), both priced at {@code α_p} so they add no fitted coefficient:
 * <ul>
 * <li>{@code C_harm = α_p·p_eff·(κ·Ā + κ_q·max(0, Q(w) − Q_slack))}: the harm r does. Recomputing is GPU work
 *     the fleet would not do if r loaded or reused its prefix, and while it runs it is taken from the requests
 *     in flight: on w each prompt token r recomputes lengthens every step its batch shares by about {@code α_p}
 *     (continuous batching; a mixed step is prefill time plus decode time), and the fleet's routing spreads that
 *     lost capacity over every worker. So each recomputed token costs {@code α_p} to about {@code Ā} requests,
 *     {@code Ā} the fleet's mean number in flight per worker (the same on every candidate: w's own
 *     {@code |A(w)|} here turned the term into balancing by request count, which sent long prompts to workers
 *     with few but long requests; fleet-sim/experiments/ROUNDS.md). κ is the weight of others' time against r's own:
 *     {@code κ = harmWeight·(0.5 + 2·D̄)} (harmWeight default 1), with {@code D̄} the fleet's prefill duty (the
 *     share of workers with a request waiting for its first token, an EWMA over routes): a recompute takes
 *     time from others as far as the fleet has no spare capacity to absorb it, and where it has none the
 *     recomputed tokens also lengthen the backlog later arrivals wait behind ({@link #harmKappa}). On a worker with nothing in
 *     flight ({@code |A(w)| = 0}) the {@code Ā} is replaced by {@code min(Ā, λ_w·T_pf)}: there r's prefill
 *     delays only the requests that arrive while it runs ({@code λ_w} the fleet's arrival rate per healthy
 *     worker, {@code T_pf} = r's {@code C_prefill} on w); charging {@code Ā} there kept a cold worker from ever
 *     being chosen (fleet-sim/experiments/ROUNDS.md, "Starved-worker round"). Under a
 *     queue, the requests that will wait behind r (FCFS) wait for all of r's prefill: an arrival leaves behind
 *     about the queue it found, so each request waiting beyond {@code Q_slack} counts once more at weight κ_q
 *     (default 1; not scaled by {@code D̄}). Both parts are 0 when nothing is in flight or queued (DESIGN.md §3's worked example counts
 *     nothing in flight and Q ≤ 2 < Q_slack). It is what makes a cache or CPU-tier hit worth more than r's own
 *     prefill time under load: without it a router minimising its own TTFT recomputes 40–60 k-token contexts
 *     on an idle worker rather than wait for the link of the one holding them, and the recomputes saturate the
 *     GPUs (agentic-pcie load 1.25). C_harm also carries r's harm to w's decoders, {@code C_step}
 *     ({@link #admissionStep}): the prefill step r's admission adds to each of them, where the fleet has spare
 *     capacity and r's prefix does not pick a worker.</li>
 * <li>{@code C_queue = α_p·Σ_{r'∈A(w), no first token yet} p_eff(r')}: the prefill work queued ahead of
 *     {@code r} on {@code w}. With continuous batching and chunked prefill a newcomer's first token waits
 *     for the uncached prompt tokens of the requests admitted before it (FCFS), priced at the same
 *     {@code α_p} as its own; in-flight decodes only take one budget token each per step.</li>
 * <li>{@code C_own = α_own·d̂(r)·KV_used(w)}: r's own decode speed on {@code w}. Every other term prices
 *     the time to r's first token (or r's effect on others); but a request finishes after its {@code d̂(r)}
 *     decode steps too, and a decode step is memory-bound: it reads the KV of the whole running batch, so
 *     its time grows with the KV resident on the worker ({@code τ(w) ≈ τ₀ + α_own·KV_used(w)}; vLLM-style
 *     engines and DESIGN.md §6's step-time model both grow with KV use). {@code τ₀·d̂(r)} is the same on
 *     every worker and is left out. Without this term a cache-following router piles decodes onto the
 *     workers that hold the prefixes and loses job completion time at low load to load-spreading
 *     routers. {@code α_own} (µs per decode step per resident KV token) is configured, default 0, so DESIGN.md
 *     §3's defaults and worked example are unchanged: no snapshot carries it. The simulator fits it from completion
 *     logs (realised decode time per predicted output token against {@code KV_used} at decision time, so a biased
 *     {@code d̂} is absorbed) and reports it without applying it: every way of pricing C_own measured bought JCT
 *     with TTFT (fleet-sim's {@code TierrouteFitting}; fleet-sim/experiments/ROUNDS.md).</li>
 * </ul>
 *
 * Each term is a method below whose comment carries its formula. {@link #score} fills a
 * {@link CostTerms} with every term and feature; it allocates nothing.
 */
public final class CostModel {

    private static final int HBM = Tier.HBM.ordinal();

    /** The weight of {@code D̄} in {@link #harmKappa}'s κ (fleet-sim/experiments/ROUNDS.md, "Saturation-harm round"). */
    static final double DUTY_WEIGHT = 2.0;

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

        // Which prompt tokens are held, and on which tier (H_t), after the ρ_thr cut-off. An engine computes at least
        // one prompt token (for the first output's logits), so a prompt held whole still recomputes its last block.
        long usable = (long) ((request.isl() - 1) / request.blockSize()) * request.blockSize();
        long held = 0;
        for (int t = 0; t < Tier.COUNT; t++) {
            long upToTier = Math.min((long) match.cumulativeBlocks(worker, t) * request.blockSize(), usable);
            long segment = upToTier - held;
            if (segment <= 0) {
                continue;
            }
            if (t == HBM) {
                out.tierTokens[t] = segment;
                held = upToTier;
                continue;
            }
            double bw = params.bandwidth(t, bandwidth[t]);
            double rho = params.rhoOn(worker, t, bw); // ρ of the link in use, whatever BW_t it was measured on
            // The link serves the loads queued ahead of r (its requests without a first token) first.
            double transferUs = bw <= 0 ? Double.POSITIVE_INFINITY
                    : transferMicros(segment + load.queuedTierTokens(t), request.bytesPerToken(), bw, rho, p.rhoEpsilon());
            if (rho > p.rhoThreshold() || !Double.isFinite(transferUs)) {
                // The AIMD cut-off: a congested link is a miss, as is one too slow to time at all (no tier, or a
                // bandwidth so small the load never ends): r recomputes rather than leave the worker unpriced.
                // Engines match prefixes contiguously, so every slower segment after this one is unusable too.
                out.cutOffTier = t;
                break;
            }
            out.tierTokens[t] = segment;
            out.tierTransferUs[t] = transferUs;
            held = upToTier;
        }
        out.hitTokens = held;
        out.pEffTokens = request.isl() - held;
        out.recomputeQuadratic = ((double) request.isl() * request.isl() - (double) held * held) / 2.0;

        out.prefill = prefill(p, out.pEffTokens, out.recomputeQuadratic);

        out.inFlight = load.inFlight();
        out.fleetInFlight = request.fleetMeanInFlight();
        double kappa = harmKappa(p, request.prefillDuty());
        // |A(w)| is this selector's own count (with replica sync, every replica's), as C_queue's and C_decode's sums
        // are: counted by the engine's telemetry instead (idle or not, n_dec, Ā), two replicas without sync routed
        // worse, e.g. Mooncake 2.5's p99 TTFT 1.18× longer (fleet-sim/experiments/ROUNDS.md, "Engine-count round").
        out.harm = harm(p, out.pEffTokens, kappa, out.fleetInFlight, load.waiting())
                * idleHarmShare(out.inFlight, out.fleetInFlight, request.arrivalRatePerWorker(), out.prefill)
                + admissionStep(p.prefillStepUs(), load.inFlight() - load.waiting(), request.prefillDuty(),
                        (request.hitSpreadBlocks() >= 0 ? request.hitSpreadBlocks() : hitSpreadBlocks(match)) > 1);
        out.queuedPrefillTokens = load.queuedPrefillTokens();
        out.queue = queuedPrefill(p, out.queuedPrefillTokens);

        out.kvUsedTokens = load.kvUsedTokens();
        out.ownDecodeKvTokenSteps = (double) request.predictedOutputTokens() * out.kvUsedTokens;
        out.ownDecode = ownDecode(p, out.ownDecodeKvTokenSteps);

        out.decodeTokens = load.decodeTokens();
        out.decodeQuadratic = load.decodeQuadratic();
        out.decode = decode(p, out.decodeTokens, out.decodeQuadratic);

        out.kvOverflowTokens = Math.max(0.0,
                (double) load.kvUsedTokens() + request.isl() + request.predictedOutputTokens() - load.kvCapacityTokens());
        // What r misses in HBM there: the overflow its prefix held in HBM does not cover. The part r's prefix holds
        // on a usable slower tier there is loaded (HBM reserved for it at admission); the rest, a segment past the
        // ρ cut-off included, is recomputed chunk by chunk.
        double missing = Math.max(0.0, out.kvOverflowTokens - out.tierTokens[HBM]);
        double missingLoaded = Math.min(missing, held - out.tierTokens[HBM]);
        out.kvOverflowHarm = overflowHarm(p, missingLoaded, missing - missingLoaded, kappa, out.fleetInFlight,
                request.prefillDuty());
        out.kv = kvOverflow(p, out.kvOverflowTokens) + out.kvOverflowHarm;
        // r waits for HBM where its prefix there does not cover what it misses: the admission wait, once fitted.
        out.kvWait = kvWait(p, request.prefillDuty(),
                admissionWait(p, missing, load.kvUsedTokens(), load.decodeTokens(), load.inFlight()));
        out.kv = Math.max(out.kv, out.kvWait);

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

        out.total = out.prefill + out.harm + out.queue + out.ownDecode + out.decode + out.kv + out.tier + out.headOfLine
                - out.workflowBonus - out.toolsBonus;
    }

    /** {@code C_prefill = α_p·p_eff + α_p2·(ISL² − hit²)/2}, with {@code p_eff = ISL − hit}. */
    static double prefill(CostParameters p, long pEffTokens, double recomputeQuadratic) {
        return p.alphaP() * pEffTokens + p.alphaP2() * recomputeQuadratic;
    }

    /**
     * {@code C_harm = α_p·p_eff·(κ·Ā + κ_q·max(0, Q(w) − Q_slack))}: r's recomputed tokens delay about {@code Ā}
     * requests in flight (the fleet's mean per worker) and, under FCFS, the whole prefill of each request that
     * will queue behind r (as many as r finds waiting beyond the slack). On an idle worker the caller scales it
     * by {@link #idleHarmShare}.
     */
    static double harm(CostParameters p, long pEffTokens, double kappa, double fleetMeanInFlight, int waiting) {
        double queuedBehind = Math.max(0.0, waiting - p.qSlack());
        return p.alphaP() * pEffTokens * (kappa * fleetMeanInFlight + p.queueHarmWeight() * queuedBehind);
    }

    /**
     * {@code κ = harmWeight·(0.5 + 2·D̄)}, the weight of the requests in flight that r's recompute delays.
     * Recomputing takes GPU time from others only when there is no spare capacity to absorb it: {@code D̄} (the
     * fleet's prefill duty, the share of workers with a request waiting for its first token, EWMA over routes) is
     * how often there is none. A floor of 0.5 because even an unsaturated fleet's batches share their steps with
     * the recompute (fleet-sim/experiments/ROUNDS.md, "Starved-worker round"). Where there is no spare capacity a
     * recomputed token is not only taken from the batch it shares: it lengthens the backlog every later arrival
     * waits behind, so each unit of duty counts twice. With a slope of 1 (the starved-worker round's) tierroute
     * drifted from its holders into recomputing once the fleet saturated and lost agentic-pcie 1.25 at three of ten
     * seeds; slope 2 won there at every seed and moved no other cell beyond the seeds' spread, against slopes 1.5
     * and 3 and the convex forms 2·D̄², 4·D̄⁴, 6·D̄⁴ and D̄/(1 − D̄) (fleet-sim/experiments/ROUNDS.md, "Saturation-harm
     * round"). {@code κ_q} is not scaled (a request that will queue behind r waits for r's whole prefill whatever
     * the fleet's duty).
     */
    static double harmKappa(CostParameters p, double prefillDuty) {
        return p.harmWeight() * (0.5 + DUTY_WEIGHT * prefillDuty);
    }

    /**
     * The share of {@code Ā} that {@code C_harm} charges on a worker with nothing in flight:
     * {@code min(1, λ_w·T_pf / Ā)}, so that its {@code Ā} part becomes {@code κ·min(Ā, λ_w·T_pf)}. An idle worker
     * has no batch for r's prefill to slow, and the "the fleet spreads the lost capacity" argument for {@code Ā}
     * needs w's capacity to be in use; what r's prefill does delay there are the requests that arrive while it
     * runs, {@code λ_w·T_pf} ({@code λ_w} the fleet's arrival rate per healthy worker, {@code T_pf} = r's
     * {@code C_prefill} on w), at most {@code Ā}. Charging {@code Ā} instead kept a cold worker (one missing the
     * prefix every warm worker holds) from ever being chosen (fleet-sim/experiments/ROUNDS.md, "Starved-worker round"). Written as a
     * factor on the whole term (its {@code κ_q} part is 0 on an idle worker: nothing waits there) so the measured
     * figures reproduce to the last digit. 1 on a busy worker.
     */
    static double idleHarmShare(int inFlight, double fleetMeanInFlight, double arrivalRatePerWorker, double prefillUs) {
        if (inFlight != 0 || fleetMeanInFlight <= 0) {
            return 1.0;
        }
        double arrivalsDuringPrefill = arrivalRatePerWorker * prefillUs / 1e6;
        return Math.min(1.0, arrivalsDuringPrefill / fleetMeanInFlight);
    }

    /**
     * {@code C_step = τ_pf·n_dec(w)·(1 − D̄)}, 0 when r's prefix picks a worker (τ_pf = {@code prefillStepUs}, the
     * engine's prefill-carrying step, CostParameters): r's admission puts a prefill step into the batch of each of the {@code n_dec(w) = |A(w)| − Q(w)} requests decoding on w. {@code 1 − D̄} is the
     * share of the fleet with spare capacity, where a decoder's steps would otherwise carry no prefill chunk (where
     * prefill already waits, r's chunk rides its steps). Only when r's prefix hits differ by at most one block
     * over the candidates (the selector leaves out those that cannot take r): then spreading admissions costs r
     * nothing; where one worker holds more of r's prefix the term traded r's cache hit, and the p99 TTFT of chat and
     * Mooncake 2.5, for the decoders' step
     * (fleet-sim/experiments/ROUNDS.md, "Spare-step round").
     */
    static double admissionStep(double prefillStepUs, int decoding, double prefillDuty, boolean prefixPicksWorker) {
        if (prefixPicksWorker || decoding <= 0) {
            return 0.0;
        }
        return (1.0 - prefillDuty) * (prefillStepUs * decoding);
    }

    /** How many more blocks of r's prefix (any tier) the best-holding worker holds than the worst one. */
    static int hitSpreadBlocks(PrefixMatch match) {
        return hitSpreadBlocks(match, null);
    }

    /**
     * As {@link #hitSpreadBlocks(PrefixMatch)}, over the workers whose {@code excluded} entry is null (all when
     * {@code excluded} is null): the candidates, so that a worker that cannot take r (draining, unhealthy, too small)
     * does not decide whether r's prefix picks a worker among those that can. 0 when there are none.
     */
    static int hitSpreadBlocks(PrefixMatch match, String[] excluded) {
        int lo = Integer.MAX_VALUE;
        int hi = 0;
        for (int w = 0; w < match.workers(); w++) {
            if (excluded != null && excluded[w] != null) {
                continue;
            }
            int blocks = match.totalBlocks(w);
            lo = Math.min(lo, blocks);
            hi = Math.max(hi, blocks);
        }
        return lo == Integer.MAX_VALUE ? 0 : hi - lo;
    }

    /** {@code C_queue = α_p·Σ p_eff(r')} over requests on the worker still waiting for their first token. */
    static double queuedPrefill(CostParameters p, long queuedPrefillTokens) {
        return p.alphaP() * queuedPrefillTokens;
    }

    /**
     * {@code C_own = α_own·d̂(r)·KV_used(w)}: r's {@code d̂(r)} decode steps each read the KV resident on the
     * worker ({@code ownDecodeKvTokenSteps = d̂(r)·KV_used(w)}).
     */
    static double ownDecode(CostParameters p, double ownDecodeKvTokenSteps) {
        return p.alphaOwn() * ownDecodeKvTokenSteps;
    }

    /** {@code C_decode = α_d·Σ d̂(r') + α_d2·Σ [ctx(r')·d̂(r') + d̂(r')²/2]} over requests in flight. */
    static double decode(CostParameters p, long decodeTokens, double decodeQuadratic) {
        return p.alphaD() * decodeTokens + p.alphaD2() * decodeQuadratic;
    }

    /**
     * {@code C_kv = max(α_p·overflow + α_p·κ·Ā·(m_load·(1 − D̄)² + m_rec·(1 − D̄)³), k·(1 − D̄)²·W)},
     * {@code overflow = max(0, KV_used + ISL + d̂ − KV_cap)}: the first part prices tokens evicted now and recomputed
     * later (DESIGN.md §3) and the harm of what r misses, loaded or recomputed ({@link #overflowHarm}, 0 where nothing
     * is in flight: DESIGN.md §3's worked example); the second the wait for HBM ({@link #kvWait}), 0 until the
     * admission wait is fitted ({@code τ₀ = α = 0}).
     */
    static double kvOverflow(CostParameters p, double overflowTokens) {
        return p.alphaP() * overflowTokens;
    }

    /**
     * {@code α_p·κ·Ā·(m_load·(1 − D̄)² + m_rec·(1 − D̄)³)}, the harm of the KV r misses on w: {@code m} = the overflow
     * less r's prefix held in HBM there, {@code m_load} the part of it r's prefix holds on a usable slower tier there
     * (loaded into HBM; a tier past the ρ cut-off is a miss, recomputed), {@code m_rec = m − m_load} (recomputed).
     * Tokens that do not fit are recomputed — r's prefix reloaded after a wait, or a decoder preempted and recomputed
     * — and a recomputed token takes {@code α_p} from about {@code Ā} requests in flight, at weight κ:
     * {@link #harm}'s price. Without it an overflow cost {@code α_p} per token where recomputing r's prompt on a
     * worker with room cost {@code α_p·(1 + κ·Ā)}, so a 20–50 k-token prefix in w's CPU tier drew r to a worker whose
     * HBM was full of decoders, where it waited seconds to reserve HBM for the load (Mooncake 2.5: the 2.4 % of
     * requests that waited over 0.5 s carried the whole mean-TTFT gap to {@code oracle-ttft}). Only the missing
     * part: r's own prefix held in HBM is shared, not new demand.
     *
     * <p>The fades (D̄ the fleet's prefill duty): the harm is worth avoiding only where another worker has room, and
     * the two parts land at different times. A load reserves HBM for the whole segment at admission, so r waits at
     * the head of w's queue, holding up everything behind it, until enough decoders finish: that harm lands now, at
     * any duty short of saturation, and fades by {@code (1 − D̄)²}. A recompute is admitted chunk by chunk and
     * preempts later, when the decoders grow into the HBM: that harm fades by {@code (1 − D̄)³}; with the square it
     * fired in the lulls of a saturated fleet and lost Mooncake 3 and llmd-blog 3. One fade for both parts cost
     * either the Mooncake tail (the fourth power) or agentic-pcie 1.25 (the cube, whose sub-agents' contexts sit in
     * the CPU tier: a load); fleet-sim/experiments/ROUNDS.md, "Overflow-harm round" and "Load-harm round".
     */
    static double overflowHarm(CostParameters p, double loadedKvTokens, double recomputedKvTokens, double kappa,
                               double fleetMeanInFlight, double prefillDuty) {
        double spare = 1.0 - prefillDuty;
        double spareSquared = spare * spare;
        return p.alphaP() * kappa * fleetMeanInFlight
                * (loadedKvTokens * spareSquared + recomputedKvTokens * spareSquared * spare);
    }

    /**
     * {@code k·(1 − D̄)²·W}: how long r waits on w for the HBM it misses. An engine admits a request only when its KV
     * fits, so where w's HBM is full of decoders r waits for them to finish, often far longer than recomputing the
     * overflow takes ({@code α_p·overflow}): at cpu-overflow 2 tierroute's slowest 1 % were 30 k-token CPU-tier hits
     * that waited 2.3–2.7 s for HBM on workers holding nine 30 k-token decoders. {@code k} is the fitted calibration
     * (KvWaitFitter). {@code (1 − D̄)²} (D̄ the fleet's prefill duty): the wait is worth avoiding only where another
     * worker has room; where the whole fleet is saturated every worker makes r wait, the fitted α_p already carries
     * the waits behind full HBM (the overflow tokens are in its regressor), and pricing the wait again drove
     * agentic-pcie 1.25 from the holders of its 30–60 k-token contexts into recomputing them (the linear fade lost
     * that cell at one seed of ten, the square at none; fleet-sim/experiments/ROUNDS.md, "Admission-wait round").
     */
    static double kvWait(CostParameters p, double prefillDuty, double admissionWaitUs) {
        double spare = 1.0 - prefillDuty;
        return p.kvWaitScale() * spare * spare * admissionWaitUs;
    }

    /**
     * {@code W = min(1, m / KV_used)·(Σ d̂ / |A(w)|)·(τ₀ + α·KV_used)}: the share {@code m / KV_used} of w's in-flight
     * requests must leave before the {@code m} tokens r misses are free (each holds an equal share, on average), and
     * they leave after their mean predicted remaining output at {@code τ₀ + α·KV_used} per predicted token (the fitted
     * decode time per predicted token, so a biased {@code d̂} cancels). The same formula as the fitter's
     * {@code AdmissionWait.micros}, which fits τ₀, α and k on it.
     */
    public static double admissionWait(CostParameters p, double missingKvTokens, long kvUsedTokens, long decodeTokens,
                                       int inFlight) {
        if (!(missingKvTokens > 0) || inFlight <= 0 || kvUsedTokens <= 0) {
            return 0.0;
        }
        return (p.decodeStepUs() + p.decodeStepKvUs() * kvUsedTokens) * decodeTokens / inFlight
                * Math.min(1.0, missingKvTokens / kvUsedTokens);
    }

    /** Physical time to load {@code H_t} tokens: {@code H_t·bytes_per_token / (BW_t·max(ε, 1 − ρ_t))·10⁶} µs. */
    static double transferMicros(long tokens, double bytesPerToken, double bandwidth, double rho, double epsilon) {
        return tokens * bytesPerToken / (bandwidth * Math.max(epsilon, 1.0 - rho)) * 1e6;
    }

    /**
     * {@code C_tier = Σ_{t≠HBM} α_t·transfer_t}, where {@code transfer_t} loads {@code H_t} plus the tokens
     * {@code Q_t(w)} still queued on the same link by requests without a first token (zero in DESIGN.md §3's
     * worked example): {@code (H_t + Q_t)·bytes_per_token / (BW_t·max(ε, 1 − ρ_t))·10⁶}.
     */
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
