package io.tierroute.selector.scheduling;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Whether each worker takes requests: the gateway's health checks ({@link Selector#setHealthy}) and an operator's drain
 * ({@link Selector#setDraining}) each set a flag; a worker takes requests while neither is set. Lock-free: routes read
 * it on every candidate.
 */
final class WorkerStatus {

    private static final int UNHEALTHY = 1;
    private static final int DRAINING = 2;

    private final AtomicIntegerArray flags;

    WorkerStatus(int workers) {
        this.flags = new AtomicIntegerArray(workers);
    }

    int size() { return flags.length(); }

    /** Neither unhealthy nor draining: a candidate, and one Ā, D̄ and λ_w average over. */
    boolean takesRequests(int w) {
        return (flags.get(w) & (UNHEALTHY | DRAINING)) == 0;
    }

    /** Both flags of {@code w} as one read saw them. */
    record State(boolean healthy, boolean draining) {}

    State state(int w) {
        int f = flags.get(w);
        return new State((f & UNHEALTHY) == 0, (f & DRAINING) != 0);
    }

    /** Why {@code w} is no candidate ("unhealthy", "draining"), or null when it takes requests. */
    String exclusion(int w) {
        int f = flags.get(w);
        return (f & UNHEALTHY) != 0 ? "unhealthy" : (f & DRAINING) != 0 ? "draining" : null;
    }

    /** How many workers take requests. */
    int takingRequests() {
        int n = 0;
        for (int w = 0; w < flags.length(); w++) {
            if (takesRequests(w)) {
                n++;
            }
        }
        return n;
    }

    void setHealthy(int w, boolean healthy) { set(w, UNHEALTHY, !healthy); }

    void setDraining(int w, boolean draining) { set(w, DRAINING, draining); }

    private void set(int w, int flag, boolean on) {
        flags.getAndUpdate(w, v -> on ? v | flag : v & ~flag);
    }
}
