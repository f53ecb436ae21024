package io.tierroute.sim.live;

import io.tierroute.selector.metrics.SelectorMetrics;
import io.tierroute.selector.scheduling.NoCapacityException;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * How the live fleet gets its requests into the selector while an operator may have drained (or marked unhealthy)
 * every worker: an arrival no worker can take waits, and the fleet's clock with it, until one can again (the
 * simulator cannot turn a request away), and with nothing left to run but held requests the fleet waits the same way
 * for a worker to place them. After either wait the pacing origin moves by the pause. Runs on the simulation thread;
 * {@link #waitingForAWorker} is read from others.
 */
final class FleetAdmission {

    private final Selector selector;
    private final SelectorMetrics metrics;
    private final FleetCounters counters;
    private final FleetPacer pacer;
    private final HeldRoutes holds;
    /** When the last routing attempt of {@link #admit} began: a route's latency counts from it, not from a pause. */
    private long lastAttemptNanos;
    private volatile boolean waitingForAWorker;

    FleetAdmission(Selector selector, SelectorMetrics metrics, FleetCounters counters, FleetPacer pacer, HeldRoutes holds) {
        this.selector = selector;
        this.metrics = metrics;
        this.counters = counters;
        this.pacer = pacer;
        this.holds = holds;
    }

    /** When the last routing attempt of {@link #admit} began. */
    long lastAttemptNanos() { return lastAttemptNanos; }

    /** The fleet waits in {@link #idleWhileHolding} for a worker to take requests (for tests and status). */
    boolean waitingForAWorker() { return waitingForAWorker; }

    /**
     * Routes {@code req}: its future, done when a worker took it at once, pending while late binding holds it
     * ({@link #lastAttemptNanos}: when its last attempt began). While no worker can take requests (an operator drained
     * them all), waits and retries, then moves the pacing origin by the wait so that the fleet resumes where it
     * stopped instead of replaying the missed wall time at once. The wait is measured from {@code dueNanos}, when the
     * arrival was due, not from when this thread got to it: under CPU contention pacing runs late, and a wait
     * measured from the late start would date the dispatch that much too early.
     */
    CompletableFuture<RouteDecision> admit(RouteRequest req, long dueNanos) {
        boolean waited = false;
        while (true) {
            long t0 = System.nanoTime();
            lastAttemptNanos = t0;
            CompletableFuture<RouteDecision> f = selector.route(req);
            if (!refusedForCapacity(f)) {
                if (waited) {
                    long pause = System.nanoTime() - dueNanos; // pace returned no earlier than dueNanos
                    pacer.shift(pause);
                }
                return f; // placed, held, or failed otherwise (the caller's join throws it)
            }
            if (!waited) { // counted once per request, as one refused HTTP route would be
                metrics.route(SelectorMetrics.RouteOutcome.NO_CAPACITY, System.nanoTime() - t0);
                counters.held.increment();
                waited = true;
            }
            sleepUntilAWorkerTakesRequests();
        }
    }

    private static boolean refusedForCapacity(CompletableFuture<RouteDecision> f) {
        if (!f.isCompletedExceptionally()) {
            return false;
        }
        try {
            f.join();
            return false;
        } catch (CompletionException e) {
            return e.getCause() instanceof NoCapacityException;
        } catch (java.util.concurrent.CancellationException e) {
            return false;
        }
    }

    /**
     * The simulator has nothing left to run but the requests the selector holds, and would end with them never
     * released: while no worker takes requests (an operator drained them all), the fleet waits, its clock with it, as
     * an arrival does in {@link #admit}. Then the selector drains here, what an undrain placed on another thread is
     * delivered, and the pacing origin moves by the pause.
     */
    void idleWhileHolding(long nowMicros) {
        long dueNanos = pacer.wallNanos(nowMicros);
        long before = counters.releasesDispatched();
        waitingForAWorker = true;
        try {
            // Until a release reaches the simulator: an undrain's drain on another thread claims the queue, then
            // completes the futures after its lock, so one look at the queue can fall between the two.
            while (true) {
                while (!aWorkerTakesRequests()) {
                    pacer.sleepBriefly();
                }
                selector.tick(); // places what is still queued, on this thread
                holds.settle(); // delivers what the undrain placed
                if (counters.releasesDispatched() != before || holds.pending() == 0) {
                    break;
                }
                pacer.sleepBriefly();
            }
        } finally {
            waitingForAWorker = false;
        }
        long pause = System.nanoTime() - dueNanos;
        if (pause > 0) {
            pacer.shift(pause);
        }
    }

    private boolean aWorkerTakesRequests() {
        return selector.workers().stream().anyMatch(w -> w.healthy() && !w.draining());
    }

    /** Polls the flags rather than routing again, so the selector's rejected counter is not inflated. */
    private void sleepUntilAWorkerTakesRequests() {
        do {
            pacer.sleepBriefly();
        } while (!aWorkerTakesRequests());
    }
}
