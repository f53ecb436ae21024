package io.tierroute.fitter.prior;

/**
 * Configuration of {@link TelemetryPriors}.
 *
 * @param tauMs     time constant of the exponential forgetting in event time, ms (a sample τ older
 *                  than the newest one of its pool weighs e^(−1)); {@code Long.MAX_VALUE} = no forgetting
 * @param busySlack a busy time may exceed the interval by this fraction (timer jitter) before the
 *                  sample is rejected as inconsistent
 */
public record PriorConfig(long tauMs, double busySlack) {
    public PriorConfig {
        if (tauMs <= 0) {
            throw new IllegalArgumentException("tauMs must be > 0: " + tauMs);
        }
        if (!(busySlack >= 0) || !Double.isFinite(busySlack)) {
            throw new IllegalArgumentException("busySlack must be finite and >= 0: " + busySlack);
        }
    }

    /** τ = 1 h (hardware speed does not drift; an engine upgrade is forgotten within a few hours), slack 10 %. */
    public static PriorConfig defaults() {
        return new PriorConfig(3_600_000L, 0.10);
    }

    public PriorConfig withTauMs(long v) {
        return new PriorConfig(v, busySlack);
    }
}
