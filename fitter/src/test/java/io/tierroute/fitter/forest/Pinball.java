package io.tierroute.fitter.forest;

import java.util.Arrays;

/** Pinball (quantile) loss and the unconditional empirical quantile. */
final class Pinball {

    private Pinball() {}

    static double loss(double y, double pred, double q) {
        return y >= pred ? q * (y - pred) : (1 - q) * (pred - y);
    }

    /** Smallest training target with empirical CDF ≥ q. */
    static double quantile(double[] values, double q) {
        double[] s = values.clone();
        Arrays.sort(s);
        int i = (int) Math.ceil(q * s.length) - 1;
        return s[Math.max(0, Math.min(s.length - 1, i))];
    }
}
