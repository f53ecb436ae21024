package io.tierroute.sim.live;

import io.tierroute.selector.metrics.SelectorMetrics;
import io.tierroute.selector.scheduling.NoCapacityException;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.RoutingPolicy.Dispatcher;
import io.tierroute.sim.policy.SimRequest;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The live fleet's late binding: requests the selector holds in its admission queue until a first token or a finish
 * places them, and their hand-over to the simulator's {@link Dispatcher}. A route that completes on the simulation
 * thread is delivered at once; one completed elsewhere (an operator's undrain on an HTTP thread) is queued and
 * delivered at the simulation thread's next callback ({@link #settle}), as the simulator is one thread. A failure
 * inside a release is kept and thrown at the next callback, since the route's future would swallow it.
 */
final class HeldRoutes {

    private final Thread simulationThread;
    private final SelectorMetrics metrics;
    private final FleetCounters counters;
    private final InFlightRequests inFlight;
    /** Held requests whose route has not completed yet (any thread completes them). */
    private final AtomicInteger pendingHolds = new AtomicInteger();
    /** Set on the simulation thread while {@link #hold} registers a hold's callback. */
    private boolean registeringHold;
    /** How the simulator takes a request this fleet held ({@link RoutingPolicy#HOLD}); set before the first event. */
    private Dispatcher dispatcher;
    /**
     * Held requests whose route completed off the simulation thread (an operator's undrain drains the selector's
     * queue on an HTTP thread): delivered at the simulation thread's next callback, as the simulator is one thread.
     */
    private final ConcurrentLinkedQueue<Runnable> releasedElsewhere = new ConcurrentLinkedQueue<>();
    /** A failure inside a release, which the route's future would swallow: the next callback throws it. */
    private RuntimeException heldFailure;

    HeldRoutes(Thread simulationThread, SelectorMetrics metrics, FleetCounters counters, InFlightRequests inFlight) {
        this.simulationThread = simulationThread;
        this.metrics = metrics;
        this.counters = counters;
        this.inFlight = inFlight;
    }

    void attach(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    /** Held requests whose route has not completed yet. */
    int pending() {
        return pendingHolds.get();
    }

    /**
     * Registers {@code r}, whose route {@code f} is pending, for delivery when the selector places it; its route's
     * latency counts from {@code t0}, when its last routing attempt began. The caller returns {@link RoutingPolicy#HOLD}.
     */
    void hold(SimRequest r, CompletableFuture<RouteDecision> f, long t0) {
        counters.lateBound.increment();
        pendingHolds.incrementAndGet();
        registeringHold = true;
        f.whenComplete((d, err) -> {
            // Inline here only on this thread and not during the registration itself: the simulator takes a
            // release only for a request it already holds, i.e. once this route has returned HOLD.
            if (Thread.currentThread() == simulationThread && !registeringHold) {
                release(r, d, err, t0);
            } else {
                if (Thread.currentThread() != simulationThread) {
                    counters.releasedOffThread.increment();
                }
                releasedElsewhere.add(() -> release(r, d, err, t0));
            }
            pendingHolds.decrementAndGet(); // after the hand-off: see FleetAdmission.idleWhileHolding
        });
        registeringHold = false;
    }

    /** A held request's route completed: it goes to its worker, or is refused as a client would be answered. */
    private void release(SimRequest r, RouteDecision d, Throwable err, long t0) {
        try {
            if (err == null) {
                metrics.route(SelectorMetrics.RouteOutcome.ROUTED, System.nanoTime() - t0);
                counters.routed.increment();
                counters.lateBoundPlaced.increment();
                dispatcher.dispatch(r, d.workerIndex());
            } else if (err instanceof NoCapacityException) { // the selector stopped, or every worker left meanwhile
                metrics.route(SelectorMetrics.RouteOutcome.NO_CAPACITY, System.nanoTime() - t0);
                inFlight.dropArrivalStamp(r);
                // Refused before it was routed: counted apart from the routed requests that failed, so that routed =
                // finished + failed + in flight.
                counters.lateBoundRefused.increment();
                dispatcher.dispatch(r, RoutingPolicy.REFUSED);
            } else {
                heldFailure = new IllegalStateException("the held route of " + r.id() + " failed", err);
            }
        } catch (RuntimeException e) {
            heldFailure = e;
        }
    }

    /** Delivers what was released off this thread, then throws a release's failure; at every callback's start. */
    void settle() {
        for (Runnable release; (release = releasedElsewhere.poll()) != null; ) {
            release.run();
        }
        rethrowFailure();
    }

    /** Throws the failure of a release, if one failed. */
    void rethrowFailure() {
        if (heldFailure != null) {
            throw heldFailure;
        }
    }
}
