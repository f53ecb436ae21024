package io.tierroute.jobs.fit;

import java.util.HashMap;
import java.util.Map;

/**
 * At most one log line a period for each scope: one scope's repeated line must not silence another's. Remembers only
 * the scopes logged within the last period, so it stays as small as the scopes that are logging. Single-threaded (a
 * subtask's operator).
 */
final class PerScopeLogLimit {
    private final long periodNanos;
    private final Map<String, Long> loggedAtNanos = new HashMap<>();

    PerScopeLogLimit(long periodNanos) {
        this.periodNanos = periodNanos;
    }

    /** Whether {@code scope} may log now ({@code System.nanoTime()}); if so, its next line waits a period. */
    boolean allow(String scope, long nowNanos) {
        loggedAtNanos.values().removeIf(at -> nowNanos - at >= periodNanos);
        return loggedAtNanos.putIfAbsent(scope, nowNanos) == null;
    }
}
