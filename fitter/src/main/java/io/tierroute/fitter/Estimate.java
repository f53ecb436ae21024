package io.tierroute.fitter;

import java.util.OptionalDouble;

/**
 * One fitted value with the evidence behind it. Field for field the Avro record {@code FittedValue}
 * (schemas/src/main/avro/FittedValue.avsc): {@code stdError} empty maps to Avro null, the window is
 * event time in ms since epoch, start inclusive and end exclusive.
 *
 * <p>Invariants (checked): {@code value} and {@code quality} finite, {@code samples >= 0},
 * {@code stdError} if present is {@code >= 0} and either finite or {@code +Infinity} (meaning "the data
 * carry no information about this value"), {@code windowStartMs <= windowEndMs}.
 */
public record Estimate(
        double value,
        OptionalDouble stdError,
        long samples,
        double quality,
        QualityKind qualityKind,
        long windowStartMs,
        long windowEndMs) {

    public Estimate {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("value must be finite: " + value);
        }
        if (!Double.isFinite(quality)) {
            throw new IllegalArgumentException("quality must be finite: " + quality);
        }
        if (samples < 0) {
            throw new IllegalArgumentException("samples must be >= 0: " + samples);
        }
        if (qualityKind == null || stdError == null) {
            throw new IllegalArgumentException("qualityKind and stdError must not be null");
        }
        if (stdError.isPresent() && (Double.isNaN(stdError.getAsDouble()) || stdError.getAsDouble() < 0)) {
            throw new IllegalArgumentException("stdError must be >= 0 and not NaN: " + stdError);
        }
        if (windowStartMs > windowEndMs) {
            throw new IllegalArgumentException("window start " + windowStartMs + " after end " + windowEndMs);
        }
    }

    /** A value that was not fitted (a default): no samples, no quality, empty window. */
    public static Estimate unfitted(double value) {
        return new Estimate(value, OptionalDouble.empty(), 0, 0.0, QualityKind.NONE, 0, 0);
    }

    /**
     * Whether the fit priced this value's term without it: fitted on rows ({@code samples > 0}) at exactly 0 with an
     * infinite standard error. The regression reports a quadratic so when it leaves it out because the other
     * regressors reproduce its column, or when the column never varied (fitter README §1); its linear partner's price
     * holds its share.
     */
    public boolean leftOutOfTheFit() {
        return leftOutOfTheFit(samples, value, stdError.orElse(Double.NaN));
    }

    /** {@link #leftOutOfTheFit()} on a value's parts as the Avro {@code FittedValue} carries them (NaN: no error). */
    public static boolean leftOutOfTheFit(long samples, double value, double stdError) {
        return samples > 0 && value == 0 && stdError == Double.POSITIVE_INFINITY;
    }

    /** True if a standard error is present and finite. */
    public boolean hasFiniteStdError() {
        return stdError.isPresent() && Double.isFinite(stdError.getAsDouble());
    }
}
