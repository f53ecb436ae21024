package io.tierroute.fitter;

import java.util.EnumMap;

/**
 * How many inputs an estimator accepted or rejected, per outcome: every estimator counts what it
 * refuses instead of dropping it silently. Single-threaded, like the estimators that own it.
 */
public final class OutcomeCounts<E extends Enum<E>> {

    private final EnumMap<E, Long> counts;

    public OutcomeCounts(Class<E> outcomes) {
        this.counts = new EnumMap<>(outcomes);
    }

    /** Counts {@code outcome} once and returns it, so an update can end with {@code return counts.tally(o)}. */
    public E tally(E outcome) {
        counts.merge(outcome, 1L, Long::sum);
        return outcome;
    }

    public long count(E outcome) {
        return counts.getOrDefault(outcome, 0L);
    }
}
