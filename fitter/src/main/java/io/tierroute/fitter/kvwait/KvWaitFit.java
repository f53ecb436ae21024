package io.tierroute.fitter.kvwait;

import io.tierroute.fitter.Estimate;
import io.tierroute.fitter.QualityKind;
import java.util.OptionalDouble;

/**
 * The fitted admission-wait parameters and their evidence. Each value's quality is its standard error
 * ({@link QualityKind#STD_ERROR}): the decode step's R² is low by nature (requests arrive and leave during a decode, so
 * the KV at decision explains little of one request's pace) while its mean pace, which is what {@code W} needs, is
 * well determined.
 *
 * @param tau0Us             {@code τ₀}: decode time per predicted output token with no KV resident, µs
 * @param tau0StdError       its standard error, µs (with τ₀ = 0 from a negative intercept, the intercept's)
 * @param perKvTokenUs       {@code α}: its growth per resident KV token, µs (≥ 0)
 * @param perKvTokenStdError its standard error
 * @param scale              {@code k}: the factor on {@code W}, in [0, 1]
 * @param scaleStdError      the standard error of the least-squares {@code k} (NaN with too few rows)
 * @param decodeRows         rows of the decode-step regression
 * @param decodeR2           its R²
 * @param waitRows           rows with {@code W > 0} behind {@code k}
 * @param unclampedScale     {@code k} before the clamp (NaN without rows)
 * @param windowStartMs      event time of the first row used, ms (inclusive)
 * @param windowEndMs        event time of the last row used + 1, ms (exclusive)
 * @param skippedRows        rows left out as unusable (a figure not finite, negative or beyond its cap)
 */
public record KvWaitFit(double tau0Us, double tau0StdError, double perKvTokenUs, double perKvTokenStdError,
                        double scale, double scaleStdError, int decodeRows, double decodeR2, int waitRows,
                        double unclampedScale, long windowStartMs, long windowEndMs, int skippedRows) {

    /** The fit of no evidence: no wait term ({@code τ₀ = α = 0}, so {@code W = 0}). */
    public static final KvWaitFit NONE = none(0);

    /** No wait term, with the rows left out as unusable. */
    static KvWaitFit none(int skippedRows) {
        return new KvWaitFit(0.0, Double.NaN, 0.0, Double.NaN, 1.0, Double.NaN, 0, 0.0, 0, Double.NaN, 0, 0, skippedRows);
    }

    /** Whether the decode step was fitted (else {@code W} is 0 and {@code k} says nothing). */
    public boolean fitted() {
        return decodeRows > 0;
    }

    /** Whether {@code k} was fitted ({@link KvWaitFitter#MIN_WAIT_ROWS} rows with {@code W > 0}); else it is 1. */
    public boolean scaleFitted() {
        return fitted() && waitRows >= KvWaitFitter.MIN_WAIT_ROWS && Double.isFinite(unclampedScale);
    }

    /** {@code τ₀} as a snapshot value, or null when not fitted. */
    public Estimate tau0() {
        return fitted() ? estimate(tau0Us, tau0StdError, decodeRows) : null;
    }

    /** {@code α} as a snapshot value, or null when not fitted. */
    public Estimate perKvToken() {
        return fitted() ? estimate(perKvTokenUs, perKvTokenStdError, decodeRows) : null;
    }

    /** {@code k} as a snapshot value, or null when not fitted (the value in force is carried). */
    public Estimate scaleEstimate() {
        return scaleFitted() ? estimate(scale, scaleStdError, waitRows) : null;
    }

    private Estimate estimate(double value, double stdError, long samples) {
        OptionalDouble se = Double.isNaN(stdError) ? OptionalDouble.empty() : OptionalDouble.of(stdError);
        return new Estimate(value, se, samples, Double.isFinite(stdError) ? stdError : 0.0,
                Double.isFinite(stdError) ? QualityKind.STD_ERROR : QualityKind.NONE, windowStartMs, windowEndMs);
    }
}
