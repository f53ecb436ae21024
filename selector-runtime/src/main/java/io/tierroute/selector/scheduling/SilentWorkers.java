package io.tierroute.selector.scheduling;

import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.sequences.InFlightTracker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Which workers are silent under {@link SelectorSettings#holdAtCheapestSilentAfter}: some of this selector's requests
 * wait there for their first token, and none of its requests has had an event for that long
 * ({@link InFlightTracker#silentNanos}). Logs a WARN when a worker falls silent and an INFO when it posts again, once
 * each, so an operator sees a hung engine that its health checks miss. Thread-safe: routes ask concurrently.
 */
final class SilentWorkers {

    private static final Logger log = LoggerFactory.getLogger(Selector.class); // the selector's messages, its logger

    private final InFlightTracker inflight;
    private final WorkerRegistry registry;
    private final long afterNanos;
    private final AtomicIntegerArray reported; // 1 while a worker's silence has been logged

    SilentWorkers(InFlightTracker inflight, WorkerRegistry registry, SelectorSettings settings) {
        this.inflight = inflight;
        this.registry = registry;
        this.afterNanos = settings.holdAtCheapestSilentAfter().toNanos();
        this.reported = new AtomicIntegerArray(registry.size());
    }

    /** Whether {@code worker} is silent at {@code nowNanos}; never when the setting is 0. */
    boolean silent(int worker, long nowNanos) {
        if (afterNanos <= 0) {
            return false;
        }
        long silentNanos = inflight.silentNanos(worker, nowNanos);
        boolean silent = silentNanos > afterNanos;
        if (silent && reported.compareAndSet(worker, 0, 1)) {
            log.warn("worker {} has had no event for this selector's requests in {} ms, with {} of them waiting for "
                    + "their first token: no request is held for it or sent to it until it posts again "
                    + "(routing.holdAtCheapestSilentAfter); a hung engine? check it, or mark it unhealthy",
                    registry.name(worker), silentNanos / 1_000_000, inflight.ownWaiting(worker));
        } else if (!silent && reported.compareAndSet(worker, 1, 0)) {
            log.info("worker {} posts again: requests are held for it and sent to it as before", registry.name(worker));
        }
        return silent;
    }
}
