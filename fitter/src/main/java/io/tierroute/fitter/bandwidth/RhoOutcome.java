package io.tierroute.fitter.bandwidth;

/** Result of offering one link sample; REJECTED_* left the state unchanged. */
public enum RhoOutcome {
    ACCEPTED,
    /** Accepted, but the uncovered gap before it exceeded maxGap: the EWMA restarted from this sample. */
    ACCEPTED_AFTER_RESET,
    /** The bandwidth is NaN or infinite. */
    REJECTED_NON_FINITE,
    /** Negative bytes or a negative interval. */
    REJECTED_NEGATIVE,
    /** Bandwidth <= 0. */
    REJECTED_NON_POSITIVE_BANDWIDTH,
    /** Interval of 0 ms: no rate can be formed. */
    REJECTED_ZERO_INTERVAL,
    /** Same end time as the previous accepted sample (a duplicate delivery). */
    REJECTED_DUPLICATE,
    /** End time before the previous accepted sample's (out of order). */
    REJECTED_OUT_OF_ORDER;

    public boolean accepted() {
        return this == ACCEPTED || this == ACCEPTED_AFTER_RESET;
    }
}
