package io.tierroute.fitter.bandwidth;

/**
 * Configuration of the link estimators.
 *
 * @param tauMs EWMA time constant τ, ms: a sample spanning Δt gets weight 1 − exp(−Δt/τ)
 * @param maxGapMs an uncovered gap (time between the previous sample's end and this sample's start)
 *     longer than this restarts the EWMA from the new sample
 * @param peakWindowMs how far back the peak-bandwidth estimate looks, ms
 * @param peakBucketMs time bucket of the peak estimate (one maximum kept per bucket), ms
 * @param minPeakIntervalMs samples shorter than this are ignored by the peak estimate (counter
 *     granularity makes very short intervals' rates unreliable)
 */
public record RhoConfig(long tauMs, long maxGapMs, long peakWindowMs, long peakBucketMs, long minPeakIntervalMs) {

    public RhoConfig {
        if (tauMs <= 0 || maxGapMs <= 0 || peakWindowMs <= 0 || peakBucketMs <= 0 || minPeakIntervalMs < 0) {
            throw new IllegalArgumentException("tau, maxGap, peak window and bucket must be > 0");
        }
        if (peakBucketMs > peakWindowMs) {
            throw new IllegalArgumentException("peak bucket longer than the window");
        }
    }

    /** τ = 10 s, max gap 60 s, peak over 10 min in 10 s buckets, peak ignores intervals under 100 ms. */
    public static RhoConfig defaults() {
        return new RhoConfig(10_000, 60_000, 600_000, 10_000, 100);
    }
}
