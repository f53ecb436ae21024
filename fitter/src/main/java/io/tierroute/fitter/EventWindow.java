package io.tierroute.fitter;

/**
 * Mutable tracker of the event-time window [first, last] of the samples an estimator accepted.
 * Not thread-safe (estimators are used from one thread, e.g. one keyed Flink operator instance).
 */
public final class EventWindow {
    private long firstMs = Long.MAX_VALUE;
    private long lastMs = Long.MIN_VALUE;

    /** Records one sample's event time. */
    public void observe(long eventTimeMs) {
        if (eventTimeMs < firstMs) {
            firstMs = eventTimeMs;
        }
        if (eventTimeMs > lastMs) {
            lastMs = eventTimeMs;
        }
    }

    public boolean isEmpty() {
        return firstMs > lastMs;
    }

    /** Forgets every sample (after a reset of the estimator). */
    public void clear() {
        firstMs = Long.MAX_VALUE;
        lastMs = Long.MIN_VALUE;
    }

    /** Merges another window into this one. */
    public void merge(EventWindow other) {
        if (!other.isEmpty()) {
            observe(other.firstMs);
            observe(other.lastMs);
        }
    }

    /** First sample's event time (inclusive), 0 when empty. */
    public long startMs() {
        return isEmpty() ? 0 : firstMs;
    }

    /** Last sample's event time + 1 ms (exclusive, as FittedValue.windowEndMs), 0 when empty. */
    public long endExclusiveMs() {
        return isEmpty() ? 0 : (lastMs == Long.MAX_VALUE ? lastMs : lastMs + 1);
    }

    /** Last sample's event time (inclusive), 0 when empty. */
    public long lastMs() {
        return isEmpty() ? 0 : lastMs;
    }
}
