package io.tierroute.selector.params;

/**
 * The scalar parameters of the cost model (DESIGN.md §3), with their units. Immutable; the
 * compact constructor rejects values that no fitted or hand-set snapshot may carry, so a bad
 * parameter cannot reach a route.
 *
 * @param alphaP       µs per prefill token (also the price of a token that must be evicted)
 * @param alphaP2      µs per token² of attention work of uncached tokens
 * @param alphaD       µs per in-flight decode token
 * @param alphaD2      µs per token² of in-flight KV token-time
 * @param alphaT       multiplier on physical tier transfer time (dimensionless)
 * @param alphaHo      µs per (waiting request beyond the slack)²
 * @param qSlack       waiting requests tolerated before head-of-line blocking is charged
 * @param alphaWf      µs of workflow affinity bonus at zero idle time
 * @param lambda       1/s decay rate of the probability that a workflow's prefix is still cached
 * @param alphaWf2     µs of bonus when every expected next tool is warm on the worker
 * @param rhoThreshold link utilisation above which a tier counts as a miss (AIMD cut-off)
 * @param rhoEpsilon   floor on the free share {@code 1 − ρ} so a saturated link costs a lot, not ∞
 * @param harmWeight   weight of the harm {@code C_harm} (the delay r's recomputed prompt tokens add to the
 *                     {@code Ā} requests in flight per worker) against r's own time to first token (dimensionless;
 *                     an objective weight, not fitted); C_harm's κ is {@code harmWeight·(0.5 + 2·D̄)}, D̄ the fleet's
 *                     prefill duty (see CostModel)
 * @param alphaOwn     µs per decode step per KV token resident on the worker: prices {@code C_own}, the part of
 *                     the newcomer's own decode time that depends on the worker (each decode step reads the KV
 *                     of the whole batch). 0 (no such term) until fitted from completions' decode times
 * @param queueHarmWeight κ_q, weight in {@code C_harm} of each request waiting beyond {@code Q_slack} on the worker
 *                     (each will wait behind r for its whole prefill; dimensionless, an objective weight, not fitted)
 * @param prefillStepUs τ_pf, µs: the fixed time of an engine step that carries a prefill chunk, which every request
 *                     decoding in that step waits for; prices {@code C_step} (see CostModel.admissionStep). An engine
 *                     property, not fitted yet: the default is DESIGN.md §6's profile (16.50 ms plus 15.2 µs per chunk
 *                     token); a deployment on another engine sets its own
 * @param decodeStepUs τ₀ of the admission wait {@code W} in {@code C_kv} (CostModel.admissionWait): decode time per
 *                     predicted output token with no KV resident, µs. Fitted from completions' decode times; 0 with
 *                     {@code decodeStepKvUs} 0 (the default) means no wait term, DESIGN.md §3's {@code C_kv} as is
 * @param decodeStepKvUs α of {@code W}: the growth of that time per resident KV token, µs
 * @param kvWaitScale  k on {@code W}, in [0, 1]: {@code W} calibrated against the waits requests realised beyond
 *                     {@code C_prefill + C_queue} (fitted; 1 until then)
 */
public record CostParameters(
        double alphaP,
        double alphaP2,
        double alphaD,
        double alphaD2,
        double alphaT,
        double alphaHo,
        double qSlack,
        double alphaWf,
        double lambda,
        double alphaWf2,
        double rhoThreshold,
        double rhoEpsilon,
        double harmWeight,
        double alphaOwn,
        double queueHarmWeight,
        double prefillStepUs,
        double decodeStepUs,
        double decodeStepKvUs,
        double kvWaitScale) {

    /**
     * κ's default: a second of delay to a request in flight counts as much as a second of the newcomer's own
     * (the mission is the mean completion time over all requests). Measured on the simulator (fleet-sim/experiments/ROUNDS.md):
     * 0.5 and 1 give the same Mooncake figures, 3 is worse there and on agentic-pcie.
     */
    public static final double DEFAULT_HARM_WEIGHT = 1.0;

    /** κ_q's default: each request that will wait behind r for r's whole prefill counts fully. */
    public static final double DEFAULT_QUEUE_HARM_WEIGHT = 1.0;

    /** τ_pf's default: DESIGN.md §6's step-time profile, 16.50142 ms per prefill-carrying step (rounded). */
    public static final double DEFAULT_PREFILL_STEP_US = 16_500.0;

    /** DESIGN.md §3's defaults, in force until the first fitted snapshot arrives. */
    public static final CostParameters DEFAULTS =
            new CostParameters(1.0, 0.0, 50.0, 0.001, 1.0, 100.0, 4.0, 5000.0, 1.0 / 120.0, 0.0, 0.85, 0.05,
                    DEFAULT_HARM_WEIGHT, 0.0, DEFAULT_QUEUE_HARM_WEIGHT, DEFAULT_PREFILL_STEP_US, 0.0, 0.0, 1.0);

    public CostParameters {
        requireNonNegative("alphaP", alphaP);
        requireNonNegative("alphaP2", alphaP2);
        requireNonNegative("alphaD", alphaD);
        requireNonNegative("alphaD2", alphaD2);
        requireNonNegative("alphaT", alphaT);
        requireNonNegative("alphaHo", alphaHo);
        requireNonNegative("qSlack", qSlack);
        requireNonNegative("alphaWf", alphaWf);
        requireNonNegative("lambda", lambda);
        requireNonNegative("alphaWf2", alphaWf2);
        requireNonNegative("harmWeight", harmWeight);
        requireNonNegative("alphaOwn", alphaOwn);
        requireNonNegative("queueHarmWeight", queueHarmWeight);
        requireNonNegative("prefillStepUs", prefillStepUs);
        requireNonNegative("decodeStepUs", decodeStepUs);
        requireNonNegative("decodeStepKvUs", decodeStepKvUs);
        if (!(kvWaitScale >= 0 && kvWaitScale <= 1)) {
            throw new IllegalArgumentException("kvWaitScale must be in [0, 1], got " + kvWaitScale);
        }
        if (!(rhoThreshold > 0 && rhoThreshold <= 1)) {
            throw new IllegalArgumentException("rhoThreshold must be in (0, 1], got " + rhoThreshold);
        }
        if (!(rhoEpsilon > 0 && rhoEpsilon <= 1)) {
            throw new IllegalArgumentException("rhoEpsilon must be in (0, 1], got " + rhoEpsilon);
        }
    }

    private static void requireNonNegative(String name, double value) {
        if (!Double.isFinite(value) || value < 0) {
            throw new IllegalArgumentException(name + " must be a finite number ≥ 0, got " + value);
        }
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    public static Builder builder() {
        return new Builder(DEFAULTS);
    }

    /** Starts from a set of parameters and overrides some of them. */
    public static final class Builder {
        private double alphaP, alphaP2, alphaD, alphaD2, alphaT, alphaHo, qSlack;
        private double alphaWf, lambda, alphaWf2, rhoThreshold, rhoEpsilon, harmWeight, alphaOwn, queueHarmWeight;
        private double prefillStepUs, decodeStepUs, decodeStepKvUs, kvWaitScale;

        private Builder(CostParameters p) {
            alphaP = p.alphaP; alphaP2 = p.alphaP2; alphaD = p.alphaD; alphaD2 = p.alphaD2;
            alphaT = p.alphaT; alphaHo = p.alphaHo; qSlack = p.qSlack; alphaWf = p.alphaWf;
            lambda = p.lambda; alphaWf2 = p.alphaWf2; rhoThreshold = p.rhoThreshold; rhoEpsilon = p.rhoEpsilon;
            harmWeight = p.harmWeight; alphaOwn = p.alphaOwn; queueHarmWeight = p.queueHarmWeight;
            prefillStepUs = p.prefillStepUs;
            decodeStepUs = p.decodeStepUs; decodeStepKvUs = p.decodeStepKvUs; kvWaitScale = p.kvWaitScale;
        }

        public Builder alphaP(double v) { alphaP = v; return this; }
        public Builder alphaP2(double v) { alphaP2 = v; return this; }
        public Builder alphaD(double v) { alphaD = v; return this; }
        public Builder alphaD2(double v) { alphaD2 = v; return this; }
        public Builder alphaT(double v) { alphaT = v; return this; }
        public Builder alphaHo(double v) { alphaHo = v; return this; }
        public Builder qSlack(double v) { qSlack = v; return this; }
        public Builder alphaWf(double v) { alphaWf = v; return this; }
        public Builder lambda(double v) { lambda = v; return this; }
        public Builder alphaWf2(double v) { alphaWf2 = v; return this; }
        public Builder rhoThreshold(double v) { rhoThreshold = v; return this; }
        public Builder rhoEpsilon(double v) { rhoEpsilon = v; return this; }
        public Builder harmWeight(double v) { harmWeight = v; return this; }
        public Builder alphaOwn(double v) { alphaOwn = v; return this; }
        public Builder queueHarmWeight(double v) { queueHarmWeight = v; return this; }
        public Builder prefillStepUs(double v) { prefillStepUs = v; return this; }
        public Builder decodeStepUs(double v) { decodeStepUs = v; return this; }
        public Builder decodeStepKvUs(double v) { decodeStepKvUs = v; return this; }
        public Builder kvWaitScale(double v) { kvWaitScale = v; return this; }

        public CostParameters build() {
            return new CostParameters(alphaP, alphaP2, alphaD, alphaD2, alphaT, alphaHo, qSlack,
                    alphaWf, lambda, alphaWf2, rhoThreshold, rhoEpsilon, harmWeight, alphaOwn, queueHarmWeight,
                    prefillStepUs, decodeStepUs, decodeStepKvUs, kvWaitScale);
        }
    }
}
