package io.tierroute.fitter.regression;

import java.util.Arrays;

/**
 * Running robust scale of standardised residuals: 1.4826 × the median of |e| over the last {@code window}
 * residuals (a ring buffer). 1.4826 makes it consistent for the standard deviation of Gaussian noise;
 * the median ignores up to half the window being outliers. The residuals are prediction errors against
 * the current fit, which has (near) zero median, so the median of |e| is the MAD about zero.
 */
final class RobustScale {
    private final double[] ring;
    private int size;
    private int next;

    RobustScale(int window) {
        ring = new double[window];
    }

    void add(double absResidual) {
        ring[next] = absResidual;
        next = (next + 1) % ring.length;
        if (size < ring.length) {
            size++;
        }
    }

    int size() {
        return size;
    }

    /** The scale estimate, or +Infinity while fewer than 8 residuals were seen. */
    double scale() {
        if (size < 8) {
            return Double.POSITIVE_INFINITY;
        }
        double[] copy = Arrays.copyOf(ring, size);
        Arrays.sort(copy);
        double median = size % 2 == 1 ? copy[size / 2] : 0.5 * (copy[size / 2 - 1] + copy[size / 2]);
        return 1.4826 * median;
    }
}
