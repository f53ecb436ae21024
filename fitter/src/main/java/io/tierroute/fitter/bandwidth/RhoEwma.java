package io.tierroute.fitter.bandwidth;

import io.tierroute.fitter.Estimate;
import io.tierroute.fitter.EventWindow;
import io.tierroute.fitter.QualityKind;
import java.util.OptionalDouble;

/**
 * ρ_t of one link (one worker, one tier): a continuous-time EWMA of the utilisation
 * u = bytes / (BW_t · Δt), clamped to [0, 1]. With β = exp(−Δt/τ),
 * <pre>  ρ ← β·ρ + (1 − β)·u  </pre>
 * which is exact for a piecewise-constant rate: two samples of Δt/2 at the same rate give the same ρ as
 * one sample of Δt. Δt is the time since the previous accepted sample's end (so an interval that
 * overlaps the previous one only counts its new part, and a short uncovered gap is attributed to the
 * new sample's rate); an uncovered gap longer than maxGap restarts the EWMA at u. Alongside, the
 * second moment m2 and Σw² of the sample weights give the EWMA's standard error
 * sqrt((m2 − ρ²)·Σw²). Not thread-safe.
 */
public final class RhoEwma {
    private final RhoConfig config;
    private final EventWindow window = new EventWindow();
    private boolean started;
    private double rho;
    private double m2;
    private double sumW2;
    private long lastEndMs;
    private long samples;
    private long saturated;
    private long resets;

    public RhoEwma(RhoConfig config) {
        this.config = config;
    }

    /** Validates a sample without applying it. */
    static RhoOutcome check(long intervalMs, long bytes, double bandwidthBytesPerSecond) {
        if (Double.isNaN(bandwidthBytesPerSecond) || Double.isInfinite(bandwidthBytesPerSecond)) {
            return RhoOutcome.REJECTED_NON_FINITE;
        }
        if (bytes < 0 || intervalMs < 0) {
            return RhoOutcome.REJECTED_NEGATIVE;
        }
        if (!(bandwidthBytesPerSecond > 0)) {
            return RhoOutcome.REJECTED_NON_POSITIVE_BANDWIDTH;
        }
        if (intervalMs == 0) {
            return RhoOutcome.REJECTED_ZERO_INTERVAL;
        }
        return RhoOutcome.ACCEPTED;
    }

    /**
     * Offers the traffic of one interval.
     *
     * @param endTimeMs event time at which the interval ended, ms
     * @param intervalMs length of the interval, ms (> 0)
     * @param bytes bytes moved over the link in the interval (>= 0)
     * @param bandwidthBytesPerSecond BW_t, bytes/s (> 0, finite)
     */
    public RhoOutcome update(long endTimeMs, long intervalMs, long bytes, double bandwidthBytesPerSecond) {
        RhoOutcome check = check(intervalMs, bytes, bandwidthBytesPerSecond);
        if (check != RhoOutcome.ACCEPTED) {
            return check;
        }
        if (started && endTimeMs == lastEndMs) {
            return RhoOutcome.REJECTED_DUPLICATE;
        }
        if (started && endTimeMs < lastEndMs) {
            return RhoOutcome.REJECTED_OUT_OF_ORDER;
        }
        double raw = bytes / (bandwidthBytesPerSecond * (intervalMs / 1000.0));
        if (raw > 1) {
            saturated++;
        }
        double u = Math.min(1.0, raw);
        RhoOutcome outcome = RhoOutcome.ACCEPTED;
        long gapMs = started ? (endTimeMs - intervalMs) - lastEndMs : 0;
        if (started && gapMs > config.maxGapMs()) {
            resets++;
            started = false;
            window.clear();
            samples = 0;
            outcome = RhoOutcome.ACCEPTED_AFTER_RESET;
        }
        if (!started) {
            rho = u;
            m2 = u * u;
            sumW2 = 1;
            started = true;
        } else {
            double span = endTimeMs - lastEndMs;
            double beta = Math.exp(-span / config.tauMs());
            double alpha = -Math.expm1(-span / config.tauMs()); // 1 − β, accurate for small spans
            rho = beta * rho + alpha * u;
            m2 = beta * m2 + alpha * u * u;
            sumW2 = beta * beta * sumW2 + alpha * alpha;
            rho = Math.max(0, Math.min(1, rho));
        }
        lastEndMs = endTimeMs;
        samples++;
        window.observe(endTimeMs);
        return outcome;
    }

    /**
     * Puts ρ on another link speed: ρ and its second moment times {@code factor} (BW_old / BW_new), ρ clamped to
     * [0, 1] as every update clamps it. What the EWMA averaged were bytes / (BW_old · Δt); the same bytes against
     * BW_new are that times the factor (exact but for samples the old speed clamped at 1). Nothing before a sample.
     */
    public void rescale(double factor) {
        if (!(factor > 0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("factor must be finite and > 0, got " + factor);
        }
        if (!started) {
            return;
        }
        rho = Math.min(1, rho * factor);
        m2 = Math.min(1, m2 * factor * factor);
    }

    /** Whether a sample ending at {@code endTimeMs} comes after every accepted one (else it is refused as a duplicate or out of order). */
    public boolean inOrder(long endTimeMs) {
        return !started || endTimeMs > lastEndMs;
    }

    /** End time of the newest accepted sample (0 before the first): every later one is rejected as a duplicate or out of order. */
    public long lastEndMs() {
        return lastEndMs;
    }

    public boolean hasValue() {
        return started;
    }

    /** ρ, 0..1 (0 before any sample). */
    public double rho() {
        return started ? rho : 0;
    }

    /** Standard error of ρ as an average of the (assumed independent) utilisation samples it weights. */
    public double stdError() {
        return started ? Math.sqrt(Math.max(0, m2 - rho * rho) * sumW2) : 0;
    }

    /** Samples whose raw utilisation exceeded 1 (clamped), since construction. */
    public long saturatedSamples() {
        return saturated;
    }

    /** Restarts after a gap longer than maxGap, since construction. */
    public long resets() {
        return resets;
    }

    /** Samples since the last restart. */
    public long samples() {
        return samples;
    }

    /** ρ as an estimate (quality = standard error); the unfitted default 0 before any sample. */
    public Estimate estimate() {
        if (!started) {
            return Estimate.unfitted(0);
        }
        double se = stdError();
        return new Estimate(rho, OptionalDouble.of(se), samples, se, QualityKind.STD_ERROR, window.startMs(),
            window.endExclusiveMs());
    }
}
