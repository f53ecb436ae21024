package io.tierroute.fitter.prior;

/** Result of offering one telemetry sample; REJECTED_* left the state unchanged. */
public enum PriorOutcome {
    /** Accepted (it may carry no prefill or decode work: an idle interval only advances the clock). */
    ACCEPTED,
    /** Worker, engine type or hardware pool missing or empty. */
    REJECTED_MISSING_KEY,
    /** A counter or gauge is NaN or infinite. */
    REJECTED_NON_FINITE,
    /** A negative counter, busy time, running count or interval. */
    REJECTED_NEGATIVE,
    /** Interval of 0 ms: the counters cover no time. */
    REJECTED_ZERO_INTERVAL,
    /**
     * Impossible counters: work without busy time or busy time without work (prefill tokens vs
     * prefill busy, decode steps vs decode busy), or a busy time longer than the interval (beyond
     * the configured slack).
     */
    REJECTED_INCONSISTENT,
    /** Same timestamp as this worker's previous accepted sample (a duplicate delivery). */
    REJECTED_DUPLICATE,
    /** Timestamp before this worker's previous accepted sample. */
    REJECTED_OUT_OF_ORDER;

    public boolean accepted() {
        return this == ACCEPTED;
    }
}
