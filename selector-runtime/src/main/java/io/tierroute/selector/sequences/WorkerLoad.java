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
    private long kvTokens;

    private Telemetry telemetry; // the newest sample still considered fresh, or null
    // Sums over the requests admitted after `telemetry` was taken (the part the sample cannot know).
    private int waitingSinceTelemetry;
    private int inFlightSinceTelemetry;
    private int leftSinceTelemetry; // our requests the sample counted that have finished since
    private long kvTokensSinceTelemetry;
    private long queuedPrefillSinceTelemetry;
    // Our requests the sample counted (admitted before it was taken): their sums now, and when the sample became the
    // base. The difference is what they changed since, which the engine's sample cannot show until the next one: a
    // first token leaves its waiting count and pending prefill, and brings its KV into the engine's; a finish takes it out.
    private final SampledSums sampledNow = new SampledSums();
    private final SampledSums sampledAtBase = new SampledSums();

    private volatile LoadView view;
    private boolean ownKvAccounting;

    WorkerLoad(long kvCapacityTokens) {
        this.kvCapacityTokens = kvCapacityTokens;
        this.view = new LoadView(0, 0, 0, 0, 0, kvCapacityTokens);
    }

    LoadView view() {
        return view;
    }

    /** See {@link InFlightTracker#ownKvAccounting(boolean)}. */
    synchronized void ownKvAccounting(boolean on) {
        ownKvAccounting = on;
        publish();
    }

    synchronized void admit(InFlightRequest r) {
        InFlightRequest previous = requests.put(r.id, r);
        if (previous != null && previous != r) {
            // Its id was reused while the tracker was expiring it: it leaves here, and that expiry finds it gone.
            add(previous, -1);
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
        if (!done) {
            add(r, +1);
        }
        publish();
        return done ? EventEffect.LEFT : wasWaiting && !r.waiting ? EventEffect.ENDED_WAIT : EventEffect.PROGRESS;
    }

    /** Removes {@code r}; false when it had already left (a finish raced the caller). */
    synchronized boolean remove(InFlightRequest r) {
        if (requests.remove(r.id, r)) {
            add(r, -1);
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

    /** Takes a telemetry sample as the new base, unless an equally new one is already in force. */
    synchronized void telemetry(Telemetry sample) {
        if (telemetry != null && sample.atNanos() <= telemetry.atNanos()) {
            return;
        }
        telemetry = sample;
        recountSinceTelemetry();
        publish();
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
        kvTokens += sign * r.contextTokens();
        if (telemetry != null && r.admittedNanos > telemetry.atNanos()) {
            inFlightSinceTelemetry += sign;
            if (r.waiting) {
                waitingSinceTelemetry += sign;
            }
            kvTokensSinceTelemetry += sign * r.contextTokens();
            if (r.waiting) {
                queuedPrefillSinceTelemetry += sign * r.prefillTokens;
            }
        } else if (telemetry != null) {
            sampledNow.add(r, sign);
        }
    }

    /** Once per new telemetry base: which of our requests did the sample not see yet? */
    private void recountSinceTelemetry() {
        waitingSinceTelemetry = 0;
        inFlightSinceTelemetry = 0;
        leftSinceTelemetry = 0;
        kvTokensSinceTelemetry = 0;
        queuedPrefillSinceTelemetry = 0;
        sampledNow.clear();
        sampledAtBase.clear();
        if (telemetry == null) {
            return;
        }
        for (InFlightRequest r : requests.values()) {
            if (r.admittedNanos <= telemetry.atNanos()) {
                sampledNow.add(r, +1);
                sampledAtBase.add(r, +1);
            } else {
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
        // The sample's counts move with what our requests it counted did since (sampledNow − sampledAtBase).
        int q = base == null ? waiting
                : Math.max(0, base.waiting() + sampledNow.waiting - sampledAtBase.waiting) + waitingSinceTelemetry;
        // KV_used: with own accounting (this selector routes everything the worker serves), the requests
        // it sent, queued ones included (an engine's KV usage counts only blocks held, not its queue's
        // demand, and is a sample old); otherwise the engine's sample plus what we sent since.
        long kv = base == null || ownKvAccounting ? kvTokens
                : Math.max(0, base.kvUsedTokens() + sampledNow.runningKvTokens - sampledAtBase.runningKvTokens)
                        + kvTokensSinceTelemetry;
        // Queued prefill: our own Σ p_eff counts a request whole until its first token, the engine's
        // count (plus what we sent since) is exact but a sample old; both only overestimate, take the smaller.
        long queued = base == null || base.pendingPrefillTokens() < 0 ? queuedPrefillTokens
                : Math.min(queuedPrefillTokens, Math.max(0, base.pendingPrefillTokens()
                        + sampledNow.queuedPrefillTokens - sampledAtBase.queuedPrefillTokens) + queuedPrefillSinceTelemetry);
        // The engine's own count, for the in-flight limit only (the cost model prices the requests it knows): the
        // sample, plus what we sent since, minus ours it counted that have finished since. Other replicas' finishes
        // show with the next sample (one telemetry interval late).
        int engine = base == null ? requests.size()
                : Math.max(0, base.running() + base.waiting() + inFlightSinceTelemetry - leftSinceTelemetry);
        view = new LoadView(requests.size(), q, decodeTokens, decodeQuadraticTwice, kv, kvCapacityTokens,
                queued, queuedTierTokens.clone(), engine);
    }

    /** Sums over our requests a telemetry sample counted: the ones still waiting, and the running ones' KV. */
    private static final class SampledSums {
        int waiting;
        long queuedPrefillTokens;
        long runningKvTokens; // an engine's KV usage counts the blocks of running requests, not its queue's

        void add(InFlightRequest r, int sign) {
            if (r.waiting) {
                waiting += sign;
                queuedPrefillTokens += sign * r.prefillTokens;
            } else {
                runningKvTokens += sign * r.contextTokens();
            }
        }

        void clear() {
            waiting = 0;
            queuedPrefillTokens = 0;
            runningKvTokens = 0;
        }
    }
}
