package io.tierroute.selector.sequences;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One worker's load: the requests this selector sent it, combined with the engine's own telemetry
 * when there is a fresh sample (DESIGN.md §1: telemetry as the base, this selector's decisions
 * since the sample's timestamp on top, so replicas don't herd onto the same idle worker).
 *
 * <p>Mutators are synchronized on this object and publish a new {@link LoadView}; readers take the
 * view with one volatile read and never block.
 */
final class WorkerLoad {

    private final long kvCapacityTokens;
    private final Map<String, InFlightRequest> requests = new LinkedHashMap<>();

    // Sums over `requests`, maintained incrementally.
    private int waiting;
    private long queuedPrefillTokens; // Σ p_eff over requests without a first token
    private final long[] queuedTierTokens = new long[io.tierroute.selector.protocol.Tier.COUNT]; // Σ H_t, same requests
    private long decodeTokens;
    private long decodeQuadraticTwice;
    private long kvTokens; // Σ ownKvTokens: the KV each request holds by itself
    private final SharedPrefixKv sharedPrefix = new SharedPrefixKv(); // the running requests' prompt prefixes, each once

    private Telemetry telemetry; // the newest sample still considered fresh, or null
    // Sums over the requests admitted after `telemetry` was taken (the part the sample cannot know).
    private int waitingSinceTelemetry;
    private int inFlightSinceTelemetry;
    private int leftSinceTelemetry; // our requests the sample counted that have finished since
    private long kvTokensSinceTelemetry;
    private long queuedPrefillSinceTelemetry;
    // Our requests the sample counted keep their share of its waiting count, pending prefill and KV until the next one:
    // the selector cannot tell which of them the engine still queues (one that prefills counts as running there, with
    // its KV held), so a first token changes nothing here; it would undercount a queue that other replicas fill. Bounded
    // by the telemetry interval. (Subtracting them was measured: the simulator's tierroute collapsed at cpu-overflow
    // 2.5 at 6 of 10 seeds; fleet-sim/experiments/ROUNDS.md, "Waiting-count round".)

    private volatile LoadView view;
    private volatile int ownWaiting; // `waiting` as last published, for a reader without the lock
    // What InFlightTracker#silentNanos counts from: the last sign of work here, the output of any of our requests (a
    // first token, tokens, a finish after output; not a failure or a finish without output, since a gateway's timeout
    // or a client's cancel says nothing of the engine) or a telemetry sample whose interval saw a prefill or a decode
    // step (the engine serving other replicas' requests; for counters read as running totals, a change of them:
    // WorkCounters); and the admission that ended a stretch with none of ours
    // waiting. A hung engine does no work, however long its queue. Both are written before publish() writes
    // ownWaiting, so a reader that sees a new count sees them at least as new.
    private volatile long lastWorkNanos;
    private final WorkCounters workCounters = new WorkCounters(); // under this object's lock
    private volatile long waitStartNanos;
    private boolean ownKvAccounting;

    WorkerLoad(long kvCapacityTokens) {
        this.kvCapacityTokens = kvCapacityTokens;
        this.view = new LoadView(0, 0, 0, 0, 0, kvCapacityTokens);
    }

    LoadView view() {
        return view;
    }

    /** This selector's requests here without a first token: exact at once, unlike the engine-based {@code Q(w)}. */
    int ownWaiting() {
        return ownWaiting;
    }

    /** See {@link InFlightTracker#lastWorkNanos}. */
    long lastWorkNanos() {
        return lastWorkNanos;
    }

    /** See {@link InFlightTracker#silentNanos}. */
    long silentNanos(long nowNanos) {
        return ownWaiting == 0 ? 0 : Math.max(0, nowNanos - Math.max(lastWorkNanos, waitStartNanos));
    }

    /** See {@link InFlightTracker#ownKvAccounting(boolean)}. */
    synchronized void ownKvAccounting(boolean on) {
        ownKvAccounting = on;
        publish();
    }

    synchronized void admit(InFlightRequest r) {
        if (waiting == 0) {
            waitStartNanos = r.admittedNanos; // a silence counts from when one of ours first waits here
        }
        InFlightRequest previous = requests.put(r.id, r);
        if (previous != null && previous != r) {
            // Its id was reused while the tracker was expiring it: it leaves here, and that expiry finds it gone.
            add(previous, -1);
            runs(previous, !previous.waiting, false);
            left(previous);
        }
        add(r, +1);
        publish();
    }

    /** Applies an event to a request of this worker; {@link EventEffect#UNKNOWN} when the request already left it. */
    synchronized EventEffect apply(InFlightRequest r, RequestEvent event, long nowNanos) {
        if (requests.get(r.id) != r) { // gone, or its id reused by a newer request
            return EventEffect.UNKNOWN;
        }
        boolean wasWaiting = r.waiting;
        add(r, -1);
        r.reportedOutputTokens = Math.max(r.reportedOutputTokens, event.tokens());
        boolean done = false;
        switch (event.type()) {
            case FIRST_TOKEN:
                r.waiting = false;
                r.generatedTokens = Math.max(r.generatedTokens, Math.max(1, event.tokens()));
                break;
            case TOKENS:
                r.waiting = false;
                r.generatedTokens = Math.max(r.generatedTokens, event.tokens());
                break;
            case FINISHED:
            case FAILED:
                requests.remove(r.id);
                left(r);
                done = true;
                break;
            default:
                throw new IllegalStateException("unhandled " + event.type());
        }
        r.lastUpdateNanos = nowNanos;
        if (event.type() != RequestEvent.Type.FAILED && !(done && wasWaiting)) {
            lastWorkNanos = Math.max(lastWorkNanos, nowNanos);
        }
        if (!done) {
            add(r, +1);
        }
        runs(r, !wasWaiting, !done && !r.waiting);
        publish();
        if (done) {
            return wasWaiting ? EventEffect.LEFT_WITHOUT_OUTPUT : EventEffect.LEFT;
        }
        return wasWaiting && !r.waiting ? EventEffect.ENDED_WAIT : EventEffect.PROGRESS;
    }

    /** Removes {@code r}; false when it had already left (a finish raced the caller). */
    synchronized boolean remove(InFlightRequest r) {
        if (requests.remove(r.id, r)) {
            add(r, -1);
            runs(r, !r.waiting, false);
            left(r);
            publish();
            return true;
        }
        return false;
    }

    /** {@code r} has left: if the telemetry base counted it, the engine's count in force is one too high now. */
    private void left(InFlightRequest r) {
        if (telemetry != null && r.admittedNanos <= telemetry.atNanos()) {
            leftSinceTelemetry++;
        }
    }

    /**
     * Takes a telemetry sample as the new base, unless an equally new one is already in force. True once: when this
     * sample gave its work counters away as running totals ({@link WorkCounters}).
     */
    synchronized boolean telemetry(Telemetry sample) {
        boolean totalsBefore = workCounters.runningTotals();
        if (workCounters.read(sample)) {
            lastWorkNanos = Math.max(lastWorkNanos, sample.atNanos());
        }
        if (telemetry == null || sample.atNanos() > telemetry.atNanos()) {
            telemetry = sample;
            recountSinceTelemetry();
            publish();
        }
        return !totalsBefore && workCounters.runningTotals();
    }

    /** Whether this worker's telemetry work counters are read as running totals ({@link WorkCounters}). */
    synchronized boolean readsRunningTotals() {
        return workCounters.runningTotals();
    }

    /** Forgets a telemetry base older than {@code maxAgeNanos}; the selector's own counts take over. */
    synchronized void expireTelemetry(long nowNanos, long maxAgeNanos) {
        if (telemetry != null && nowNanos - telemetry.atNanos() > maxAgeNanos) {
            telemetry = null;
            recountSinceTelemetry();
            publish();
        }
    }

    /** Requests not updated for {@code maxAgeNanos}, oldest first (callers remove them). */
    synchronized java.util.List<InFlightRequest> stale(long nowNanos, long maxAgeNanos) {
        java.util.List<InFlightRequest> out = new java.util.ArrayList<>();
        for (InFlightRequest r : requests.values()) {
            if (nowNanos - r.lastUpdateNanos > maxAgeNanos) {
                out.add(r);
            }
        }
        return out;
    }

    /**
     * r's prompt-prefix granules join the shared count when it starts running here and leave it when it stops: once
     * each, not at the remove-and-add of every event ({@link #add}).
     */
    private void runs(InFlightRequest r, boolean wasRunning, boolean isRunning) {
        if (isRunning && !wasRunning) {
            sharedPrefix.enter(r);
        } else if (wasRunning && !isRunning) {
            sharedPrefix.leave(r);
        }
    }

    private void add(InFlightRequest r, int sign) {
        if (r.waiting) {
            waiting += sign;
            queuedPrefillTokens += sign * r.prefillTokens;
            if (r.tierTokens != null) {
                for (int t = 0; t < queuedTierTokens.length; t++) {
                    queuedTierTokens[t] += sign * r.tierTokens[t];
                }
            }
        }
        decodeTokens += sign * r.remainingTokens();
        decodeQuadraticTwice += sign * r.decodeQuadraticTwice();
        kvTokens += sign * r.ownKvTokens();
        if (telemetry != null && r.admittedNanos > telemetry.atNanos()) {
            inFlightSinceTelemetry += sign;
            if (r.waiting) {
                waitingSinceTelemetry += sign;
            }
            kvTokensSinceTelemetry += sign * r.contextTokens(); // beside the engine's sample: it shares what it holds
            if (r.waiting) {
                queuedPrefillSinceTelemetry += sign * r.prefillTokens;
            }
        }
    }

    /** Once per new telemetry base: which of our requests did the sample not see yet? */
    private void recountSinceTelemetry() {
        waitingSinceTelemetry = 0;
        inFlightSinceTelemetry = 0;
        leftSinceTelemetry = 0;
        kvTokensSinceTelemetry = 0;
        queuedPrefillSinceTelemetry = 0;
        if (telemetry == null) {
            return;
        }
        for (InFlightRequest r : requests.values()) {
            if (r.admittedNanos > telemetry.atNanos()) {
                inFlightSinceTelemetry++;
                if (r.waiting) {
                    waitingSinceTelemetry++;
                }
                kvTokensSinceTelemetry += r.contextTokens();
                if (r.waiting) {
                    queuedPrefillSinceTelemetry += r.prefillTokens;
                }
            }
        }
    }

    private void publish() {
        Telemetry base = telemetry;
        // The engine's sample already counts what we sent before it was taken.
        int q = base == null ? waiting : base.waiting() + waitingSinceTelemetry;
        // KV_used: with own accounting (this selector routes everything the worker serves), the requests
        // it sent, queued ones included (an engine's KV usage counts only blocks held, not its queue's
        // demand, and is a sample old), a prompt prefix running requests share counted once; otherwise the
        // engine's sample plus what we sent since.
        long kv = base == null || ownKvAccounting ? kvTokens + sharedPrefix.tokens()
                : base.kvUsedTokens() + kvTokensSinceTelemetry;
        // Queued prefill: our own Σ p_eff counts a request whole until its first token, the engine's
        // count (plus what we sent since) is exact but a sample old; both only overestimate, take the smaller.
        long queued = base == null || base.pendingPrefillTokens() < 0 ? queuedPrefillTokens
                : Math.min(queuedPrefillTokens, base.pendingPrefillTokens() + queuedPrefillSinceTelemetry);
        // The engine's own count, for the in-flight limit only (the cost model prices the requests it knows): the
        // sample, plus what we sent since, minus ours it counted that have finished since. Other replicas' finishes
        // show with the next sample (one telemetry interval late).
        int engine = base == null ? requests.size()
                : Math.max(0, base.running() + base.waiting() + inFlightSinceTelemetry - leftSinceTelemetry);
        ownWaiting = waiting;
        view = new LoadView(requests.size(), q, decodeTokens, decodeQuadraticTwice, kv, kvCapacityTokens,
                queued, queuedTierTokens.clone(), engine);
    }
}
