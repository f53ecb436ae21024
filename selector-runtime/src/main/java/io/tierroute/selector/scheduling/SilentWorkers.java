package io.tierroute.selector.scheduling;

import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.sequences.InFlightTracker;
import io.tierroute.selector.sequences.Telemetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Which workers are silent under {@link SelectorSettings#holdAtCheapestSilentAfter}: some of this selector's requests
 * wait there for their first token, and the worker has shown no work for that long: none of this selector's requests
 * there has given output, and no telemetry sample has reported a prefill or a decode step (counters read as running
 * totals: no change of them)
 * ({@link InFlightTracker#silentNanos}). {@link #silent} logs a WARN when a worker falls silent and an INFO when it
 * works again, once each, so an operator sees a hung engine its health checks miss. Thread-safe: routes ask
 * concurrently, each at its own instant.
 */
final class SilentWorkers {

    private static final Logger log = LoggerFactory.getLogger(Selector.class); // the selector's messages, its logger
    private static final long NOT_REPORTED = Long.MIN_VALUE;

    private final InFlightTracker inflight;
    private final WorkerRegistry registry;
    private final long afterNanos;
    /** Per worker: its last sign of work when its silence was logged, or NOT_REPORTED. */
    private final AtomicLongArray reportedAtWork;

    SilentWorkers(InFlightTracker inflight, WorkerRegistry registry, SelectorSettings settings) {
        this.inflight = inflight;
        this.registry = registry;
        this.afterNanos = settings.holdAtCheapestSilentAfter().toNanos();
        this.reportedAtWork = new AtomicLongArray(registry.size());
        for (int w = 0; w < registry.size(); w++) {
            reportedAtWork.set(w, NOT_REPORTED);
        }
    }

    /** Whether {@code worker} is silent at {@code nowNanos} (never when the setting is 0); logs a change. */
    boolean silent(int worker, long nowNanos) {
        boolean silent = isSilent(worker, nowNanos);
        long reported = reportedAtWork.get(worker);
        if (silent == (reported != NOT_REPORTED)) {
            return silent; // no change to log: every route asks of every candidate, so this is the common case
        }
        long work = inflight.lastWorkNanos(worker);
        if (silent && reported == NOT_REPORTED && reportedAtWork.compareAndSet(worker, NOT_REPORTED, work)) {
            log.warn("worker {} has shown no work in {} ms (no output for this selector's requests, no telemetry "
                    + "reporting a prefill or decode step), with {} of this selector's requests waiting for their first "
                    + "token: no request is held for it or sent to it until it works again "
                    + "(routing.holdAtCheapestSilentAfter); a hung engine? check it, or mark it unhealthy",
                    registry.name(worker), inflight.silentNanos(worker, nowNanos) / 1_000_000,
                    inflight.ownWaiting(worker));
        } else if (!silent && reported != NOT_REPORTED && work > reported
                && reportedAtWork.compareAndSet(worker, reported, NOT_REPORTED)) {
            // Only work ends a logged silence: a route that read an earlier instant, requests that expired or failed
            // there, or a new one waiting there since, do not (it may fall silent again; that is not logged twice).
            log.info("worker {} works again: requests are held for it and sent to it as before",
                    registry.name(worker));
        }
        return silent;
    }

    /**
     * {@code sample}'s work counters gave themselves away as an engine's running totals, not counts since its previous
     * sample ({@link InFlightTracker#onTelemetry}): one WARN where the rule is on, so the operator fixes the gateway;
     * the rule reads a change of the totals as work meanwhile.
     */
    void warnRunningTotals(Telemetry sample) {
        if (afterNanos > 0) {
            log.warn("worker {}: telemetry work counters (decode_steps {}, prefill_tokens {}) are more than an engine "
                    + "does between two samples: running totals? They should be counts since the previous sample; "
                    + "until this selector restarts, a change of them is taken as the worker's work "
                    + "(routing.holdAtCheapestSilentAfter)", registry.name(sample.worker()), sample.decodeSteps(),
                    sample.prefillTokens());
        }
    }

    /** As {@link #silent}, without logging: for the drain's quick checks. */
    boolean isSilent(int worker, long nowNanos) {
        return afterNanos > 0 && inflight.silentNanos(worker, nowNanos) > afterNanos;
    }
}
