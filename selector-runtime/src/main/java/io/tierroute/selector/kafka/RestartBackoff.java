package io.tierroute.selector.kafka;

import java.util.concurrent.TimeUnit;

/**
 * How long a Kafka client thread waits before it opens a new session after one failed: 1 s,
 * doubling to 30 s, and back to 1 s after a session that had run for a minute (it was working, so
 * the failure is news). One per thread; not thread-safe.
 */
final class RestartBackoff {
    static final long MIN_MS = 1_000;
    static final long MAX_MS = 30_000;

    private long nextMs = MIN_MS;
    private long sessionStartNanos = System.nanoTime();

    /** Call as a session starts. */
    void sessionStarts() {
        sessionStartNanos = System.nanoTime();
    }

    /** After the current session failed: the wait before the next one. */
    long afterFailure() {
        if (System.nanoTime() - sessionStartNanos > TimeUnit.MINUTES.toNanos(1)) {
            nextMs = MIN_MS;
        }
        long wait = nextMs;
        nextMs = Math.min(nextMs * 2, MAX_MS);
        return wait;
    }
}
