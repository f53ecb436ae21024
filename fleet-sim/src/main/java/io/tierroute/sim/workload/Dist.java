package io.tierroute.sim.workload;

import java.util.random.RandomGenerator;

/** The few distributions the generators draw from, each over a caller-seeded generator. */
final class Dist {

    private Dist() {}

    /** Log-normal with the given median and log-space σ, clamped to [min, max]. */
    static int logNormal(RandomGenerator r, double median, double sigma, int min, int max) {
        double v = median * Math.exp(sigma * r.nextGaussian());
        return (int) Math.max(min, Math.min(max, Math.round(v)));
    }

    /** Exponential with the given mean, in µs. */
    static long exponentialMicros(RandomGenerator r, double meanSeconds) {
        return Math.round(-Math.log(1.0 - r.nextDouble()) * meanSeconds * 1e6);
    }

    /** Uniform integer in [lo, hi]. */
    static int uniform(RandomGenerator r, int lo, int hi) {
        return lo + r.nextInt(hi - lo + 1);
    }

    /** Geometric number of trials ≥ 1 with the given mean. */
    static int geometric(RandomGenerator r, double mean, int max) {
        double p = 1.0 / mean;
        int n = 1 + (int) Math.floor(Math.log(1.0 - r.nextDouble()) / Math.log(1.0 - p));
        return Math.min(n, max);
    }
}
