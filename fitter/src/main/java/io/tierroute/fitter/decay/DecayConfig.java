package io.tierroute.fitter.decay;

import io.tierroute.fitter.regression.RegressionConfig;
import io.tierroute.schemas.snapshot.SnapshotParameter;

/**
 * Configuration of the λ fit.
 *
 * @param lambdaMin lower bound of λ, 1/s (> 0)
 * @param lambdaMax upper bound of λ, 1/s
 * @param binRatio ratio between consecutive bin edges of the miss-time histogram (e.g. 1.01)
 * @param tMinSeconds first bin edge; misses below it share bin 0
 * @param tMaxSeconds last bin edge; misses above it share the last bin
 * @param forgetting  λ_f in (0, 1]: every accepted observation multiplies the weight of those before it by λ_f (1 = no
 *                    forgetting), so λ tracks a fleet whose cache pressure changes (see {@link #withTrackingHorizon})
 */
public record DecayConfig(double lambdaMin, double lambdaMax, double binRatio, double tMinSeconds, double tMaxSeconds,
                          double forgetting) {

    /** Without forgetting. */
    public DecayConfig(double lambdaMin, double lambdaMax, double binRatio, double tMinSeconds, double tMaxSeconds) {
        this(lambdaMin, lambdaMax, binRatio, tMinSeconds, tMaxSeconds, 1.0);
    }

    public DecayConfig {
        if (!(forgetting > 0 && forgetting <= 1)) {
            throw new IllegalArgumentException("forgetting must be in (0, 1]: " + forgetting);
        }
        if (!(lambdaMin > 0) || !(lambdaMax > lambdaMin) || !Double.isFinite(lambdaMax)) {
            throw new IllegalArgumentException("need 0 < lambdaMin < lambdaMax < inf");
        }
        if (!(binRatio > 1) || !(tMinSeconds > 0) || !(tMaxSeconds > tMinSeconds) || !Double.isFinite(tMaxSeconds)) {
            throw new IllegalArgumentException("need binRatio > 1 and 0 < tMin < tMax < inf");
        }
        if (Math.log(tMaxSeconds / tMinSeconds) / Math.log(binRatio) > 100_000) {
            throw new IllegalArgumentException("too many histogram bins");
        }
    }

    /**
     * λ in [1e-6, 1] 1/s, the validation gate's bounds ({@link SnapshotParameter#LAMBDA}): a fit above them would reject
     * the whole snapshot (every α, BW_t, ρ and the forest with it) for as long as the misses come that fast, where a fit
     * at the bound is a λ the gate takes (a prefix that lives under a second is no cache either way). Bins 1 % wide from
     * 1 ms to 10⁷ s (2 316 bins); no forgetting.
     */
    public static DecayConfig defaults() {
        return new DecayConfig(1e-6, SnapshotParameter.LAMBDA.upper(), 1.01, 1e-3, 1e7);
    }

    /**
     * Sets λ_f so that observations older than {@code observations} accepted ones keep at most
     * {@link RegressionConfig#HORIZON_RESIDUAL_WEIGHT} (1 %) of their weight, as the latency regression's horizon
     * ({@link RegressionConfig#withTrackingHorizon}).
     */
    public DecayConfig withTrackingHorizon(int observations) {
        if (observations < 1) {
            throw new IllegalArgumentException("observations must be >= 1");
        }
        return new DecayConfig(lambdaMin, lambdaMax, binRatio, tMinSeconds, tMaxSeconds,
            Math.pow(RegressionConfig.HORIZON_RESIDUAL_WEIGHT, 1.0 / observations));
    }
}
