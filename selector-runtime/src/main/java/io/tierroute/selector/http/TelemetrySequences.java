package io.tierroute.selector.http;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The last telemetry {@code sequence} claimed per worker ({@code POST /v1/telemetry}), so that a sender's retry of a
 * sample already taken, or a sample that arrives after a later one, is not applied: re-sent as is, its
 * {@code sample_age_ms} would date it at the retry, and the requests routed in between would count as already in it.
 * A 0 starts a new series (a restarted sender) unless the last one taken is 0 (its retry); a 0 that arrives late, after
 * 1, 2, …, is taken as such a restart. A sample without a sequence is not tracked. Thread-safe: concurrent posts of one
 * worker claim their sequence atomically, so of two copies of one sample exactly one is applied; the claim and the
 * application are two steps, so two samples posted at the same instant may still apply in either order (the selector
 * keeps the one taken later by its sample time).
 */
final class TelemetrySequences {
    private static final long NONE = -1;
    private final AtomicLongArray last;

    TelemetrySequences(int workers) {
        last = new AtomicLongArray(workers);
        for (int w = 0; w < workers; w++) {
            last.set(w, NONE);
        }
    }

    /**
     * Claims {@code sequence} (≥ 0) for {@code worker}'s next sample: {@link #NONE} (-1) when it is to be applied (and
     * is now the last claimed), else the last claimed sequence, which it is not above.
     */
    long claim(int worker, long sequence) {
        while (true) {
            long applied = last.get(worker);
            if (applied != NONE && sequence <= applied && (sequence != 0 || applied == 0)) {
                return applied;
            }
            if (last.compareAndSet(worker, applied, sequence)) {
                return NONE;
            }
        }
    }
}
