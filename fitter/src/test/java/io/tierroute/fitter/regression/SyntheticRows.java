package io.tierroute.fitter.regression;

import java.util.SplittableRandom;

/**
 * Generates rows from a known truth: every regressor varies independently enough to be identified,
 * y = Σ α_j x_j (bonuses subtracted) times (1 + noise·N(0,1)), and a share of gross outliers (y × 10).
 */
final class SyntheticRows {
    static final double[] TRUTH = {1.0, 1e-4, 50, 0.001, 1.0, 100, 5000, 4000};
    static final int TRUE_SLACK = 4;

    final double[] truth;
    final int slack;
    private final SplittableRandom rnd;
    private final double noise;
    private final double outlierShare;
    private long t;

    SyntheticRows(long seed, double[] truth, int slack, double noise, double outlierShare) {
        this.rnd = new SplittableRandom(seed);
        this.truth = truth.clone();
        this.slack = slack;
        this.noise = noise;
        this.outlierShare = outlierShare;
        this.t = 1_700_000_000_000L;
    }

    SyntheticRows(long seed) {
        this(seed, TRUTH, TRUE_SLACK, 0.10, 0.01);
    }

    double trueMean(LatencyObservation r) {
        double[] x = new double[Coefficient.COUNT];
        r.features(slack, false, x);
        double s = 0;
        for (int j = 0; j < x.length; j++) {
            s += truth[j] * x[j];
        }
        return s;
    }

    void setTruth(int j, double value) {
        truth[j] = value;
    }

    private double sparse(double p, double hi) {
        return rnd.nextDouble() < p ? rnd.nextDouble() * hi : 0;
    }

    LatencyObservation next() {
        while (true) {
            double isl = 500 + rnd.nextDouble() * 15500;
            double hitShare = rnd.nextDouble() < 0.3 ? 0 : rnd.nextDouble();
            double hit = Math.floor(isl * hitShare);
            double pEff = isl - hit;
            double kv = rnd.nextDouble() < 0.1 ? rnd.nextDouble() * 2000 : 0;
            double quad = (isl * isl - hit * hit) / 2;
            double sumD = sparse(0.7, 400);
            double ctxMean = rnd.nextDouble() * 40000;
            double quadD = sumD * ctxMean + sumD * sumD / 4;
            double tier = sparse(0.5, 20000);
            int q = rnd.nextInt(21);
            double aff = rnd.nextDouble() < 0.5 ? Math.exp(-rnd.nextDouble() * 300 / 120.0) : 0;
            double tools = sparse(0.5, 1);
            LatencyObservation probe = new LatencyObservation(t, 0, pEff, kv, quad, sumD, quadD, tier, q, aff, tools);
            double mean = trueMean(probe);
            if (mean < 3000) {
                continue;
            }
            double y = mean * (1 + noise * rnd.nextGaussian());
            if (rnd.nextDouble() < outlierShare) {
                y *= 10;
            }
            y = Math.max(0, y);
            t += 100;
            return new LatencyObservation(t, y, pEff, kv, quad, sumD, quadD, tier, q, aff, tools);
        }
    }
}
