package io.tierroute.fitter.regression;

import io.tierroute.fitter.Estimate;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Immutable result of {@link LatencyRegression#fit()}.
 *
 * @param coefficients every alpha (value, standard error, sample count, R², event-time window); a
 *     coefficient whose regressor was never non-zero has value 0 and standard error +Infinity
 * @param qSlack the selected Q_slack (requests), quality R² of the selected regression, no standard error
 * @param intercept fitted intercept, µs (0 when the intercept is off)
 * @param interceptStdError its standard error (0 when off)
 * @param r2 weighted R² of the selected regression (on the exponentially weighted sums, Huber- and
 *     variance-weighted), clamped to [0, 1]
 * @param samples accepted rows
 * @param effectiveSamples (Σ λ^k)² / Σ λ^(2k): the number of equally weighted rows the forgetting
 *     leaves, = samples when λ_f = 1
 * @param residualScale robust scale s of the standardised residuals (relative error under the
 *     proportional noise model, µs under the constant one)
 * @param downweightedFraction share of rows Huber downweighted (|u| > c; burn-in rows as weighed when it ended),
 *     exponentially weighted
 * @param profileSsr weighted residual sum of squares per candidate Q_slack 0..maxQSlack (the profile)
 */
public record LatencyFit(
        Map<Coefficient, Estimate> coefficients,
        Estimate qSlack,
        double intercept,
        double interceptStdError,
        double r2,
        long samples,
        double effectiveSamples,
        double residualScale,
        double downweightedFraction,
        double[] profileSsr) {

    public LatencyFit {
        coefficients = Collections.unmodifiableMap(new EnumMap<>(coefficients));
        profileSsr = profileSsr.clone();
    }

    @Override
    public double[] profileSsr() {
        return profileSsr.clone();
    }

    public Estimate get(Coefficient c) {
        return coefficients.get(c);
    }

    public double value(Coefficient c) {
        return coefficients.get(c).value();
    }

    /** Selected Q_slack as an int. */
    public int qSlackValue() {
        return (int) Math.round(qSlack.value());
    }

    /** Predicted realised time, µs, for a row (with the selected Q_slack). */
    public double predict(LatencyObservation row) {
        double[] x = new double[Coefficient.COUNT + 1];
        row.features(qSlackValue(), true, x);
        double s = intercept;
        for (Coefficient c : Coefficient.values()) {
            s += value(c) * x[c.ordinal()];
        }
        return s;
    }
}
