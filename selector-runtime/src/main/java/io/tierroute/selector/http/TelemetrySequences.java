package io.tierroute.selector.http;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The last telemetry {@code sequence} applied per worker ({@code POST /v1/telemetry}), so that a sender's retry of a
 * sample already applied, or a sample overtaken by a later one, is not applied again: re-sent as is, its
 * {@code sample_age_ms} would date it at the retry, and the requests routed in between would count as already in it.
 * A series starts at 0 (a restarted sender); a sample without a sequence is not tracked. Thread-safe: concurrent posts
 * of one worker claim their sequence atomically, so of two copies of one sample exactly one is applied.
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
     * is now the last applied), else the last applied sequence, which it is not above.
     */
    long claim(int worker, long sequence) {
        while (true) {
            long applied = last.get(worker);
            if (applied != NONE && sequence != 0 && sequence <= applied) {
                return applied;
            }
            if (last.compareAndSet(worker, applied, sequence)) {
                return NONE;
            }
        }
    }
}
