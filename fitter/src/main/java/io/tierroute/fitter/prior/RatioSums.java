package io.tierroute.fitter.prior;

import io.tierroute.fitter.Estimate;
import io.tierroute.fitter.EventWindow;
import io.tierroute.fitter.QualityKind;
import java.util.OptionalDouble;

/**
 * Exponentially weighted ratio estimator R = Σ w·y / Σ w·x with its linearised (sandwich) standard
 * error SE² = m/(m−1) · Σ w²(y − R x)² / (Σ w x)², m = n_eff = (Σw)²/Σw². Written with r_i = y_i/x_i,
 * the residual y − R x = x·(r_i − R): the per-sample ratios' dispersion around R, weighted by each
 * sample's size x. Σ w²(y − R x)² is expanded into Σw²y², Σw²xy, Σw²x² so the sums stay online.
 * Not thread-safe.
 */
final class RatioSums {
    private double sw;
    private double sw2;
    private double swx;
    private double swy;
    private double sw2xx;
    private double sw2xy;
    private double sw2yy;
    private long n;
    private final EventWindow window = new EventWindow();

    /** Multiplies every weight by f (and the squared-weight sums by f²). */
    void decay(double f) {
        if (f == 1.0) {
            return;
        }
        double f2 = f * f;
        sw *= f;
        swx *= f;
        swy *= f;
        sw2 *= f2;
        sw2xx *= f2;
        sw2xy *= f2;
        sw2yy *= f2;
    }

    void add(double w, double x, double y, long eventTimeMs) {
        double w2 = w * w;
        sw += w;
        sw2 += w2;
        swx += w * x;
        swy += w * y;
        sw2xx += w2 * x * x;
        sw2xy += w2 * x * y;
        sw2yy += w2 * y * y;
        n++;
        window.observe(eventTimeMs);
    }

    boolean hasValue() {
        return n > 0 && swx > 0;
    }

    double ratio() {
        return swy / swx;
    }

    /** Σw x. */
    double weightedSumX() {
        return swx;
    }

    double effectiveSamples() {
        return sw2 > 0 ? sw * sw / sw2 : 0;
    }

    double stdError() {
        double r = ratio();
        double m = effectiveSamples();
        if (n < 2 || m <= 1.0 + 1e-9) {
            return Double.POSITIVE_INFINITY;
        }
        double ss = sw2yy - 2 * r * sw2xy + r * r * sw2xx;
        // cancellation can leave a tiny negative number when every ratio is equal
        ss = Math.max(ss, 0.0);
        double se = Math.sqrt(ss * m / (m - 1)) / swx;
        // Sums of extreme (but finite) counters can overflow: no error figure then, never NaN.
        return Double.isFinite(se) ? se : Double.POSITIVE_INFINITY;
    }

    /** The ratio as an Estimate (quality = SE, in the same unit). */
    Estimate estimate() {
        double se = stdError();
        return new Estimate(ratio(), OptionalDouble.of(se), n, Double.isFinite(se) ? se : Double.MAX_VALUE,
            QualityKind.STD_ERROR, window.startMs(), window.endExclusiveMs());
    }
}
