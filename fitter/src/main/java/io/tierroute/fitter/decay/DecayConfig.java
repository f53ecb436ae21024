package io.tierroute.fitter.decay;

/**
 * Configuration of the λ fit.
 *
 * @param lambdaMin lower bound of λ, 1/s (> 0)
 * @param lambdaMax upper bound of λ, 1/s
 * @param binRatio ratio between consecutive bin edges of the miss-time histogram (e.g. 1.01)
 * @param tMinSeconds first bin edge; misses below it share bin 0
 * @param tMaxSeconds last bin edge; misses above it share the last bin
 */
public record DecayConfig(double lambdaMin, double lambdaMax, double binRatio, double tMinSeconds, double tMaxSeconds) {

    public DecayConfig {
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

    /** λ in [1e-6, 100] 1/s; bins 1 % wide from 1 ms to 10⁷ s (2 316 bins). */
    public static DecayConfig defaults() {
        return new DecayConfig(1e-6, 100, 1.01, 1e-3, 1e7);
    }
}
