package io.tierroute.fitter.regression;

/** Result of offering one row to the latency regression; anything but ACCEPTED left the fit unchanged. */
public enum UpdateOutcome {
    ACCEPTED,
    /** A feature or the target is NaN or infinite. */
    REJECTED_NON_FINITE,
    /** A feature, the queue length or the target is negative. */
    REJECTED_NEGATIVE,
    /** affinityDecay or expectedToolHitFraction above 1, a magnitude past its sanity cap, or a realised TTFT of 0. */
    REJECTED_OUT_OF_RANGE
}
