package io.tierroute.selector.sequences;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * Requests in flight on every worker (DESIGN.md §3's {@code A(w)}, {@code Q(w)}, {@code KV_used(w)}).
 * Updated by the route call (admit), by request events, and by telemetry; requests that stop
 * reporting expire after a configured age. Thread-safe: many route threads admit concurrently.
 */
public final class InFlightTracker {

    private final WorkerLoad[] loads;
    private final ConcurrentHashMap<String, InFlightRequest> byId = new ConcurrentHashMap<>();
    private final long requestMaxAgeNanos;
    private final long telemetryMaxAgeNanos;
    private volatile boolean ownKvAccounting; // see ownKvAccounting(boolean)

    /**
     * @param kvCapacityTokens     per worker, the HBM KV capacity in tokens
     * @param requestMaxAgeNanos   a request with no event for this long is considered lost
     * @param telemetryMaxAgeNanos a telemetry sample older than this no longer serves as the base
     */
    public InFlightTracker(long[] kvCapacityTokens, long requestMaxAgeNanos, long telemetryMaxAgeNanos) {
        this.loads = new WorkerLoad[kvCapacityTokens.length];
        for (int w = 0; w < loads.length; w++) {
            loads[w] = new WorkerLoad(kvCapacityTokens[w]);
        }
        this.requestMaxAgeNanos = requestMaxAgeNanos;
        this.telemetryMaxAgeNanos = telemetryMaxAgeNanos;
    }

    public int workers() {
        return loads.length;
    }

    /** The current load of {@code worker}: one volatile read, never blocks. */
    public LoadView view(int worker) {
        return loads[worker].view();
    }

    /**
     * This selector's requests on {@code worker} still waiting for their first token: it falls at each first token,
     * where {@link LoadView#waiting()} keeps a telemetry sample's count until the next sample. One volatile read.
     */
    public int ownWaiting(int worker) {
        return loads[worker].ownWaiting();
    }

    /**
     * How long {@code worker} has been silent while this selector's requests wait for their first token there: the time
     * since its last sign of work ({@link #lastWorkNanos}) or since the first of those waiting was admitted, whichever
     * is later; 0 while none waits. A working engine gives output or reports steps; a hung one that still passes its
     * health checks does neither. Without telemetry that reports work, only this selector's requests count: a worker
     * whose queue other replicas fill, while ours there only wait, looks silent too.
     */
    public long silentNanos(int worker, long nowNanos) {
        return loads[worker].silentNanos(nowNanos);
    }

    /**
     * {@code worker}'s last sign of work: the output of one of our requests there (a first token, tokens, a finish after
     * output; not a failure nor a finish without output) or the instant of a telemetry sample that reports a prefill or
     * a decode step since the previous one ({@link Telemetry#showsWork}; for counters read as running totals, a change
     * of them: {@link WorkCounters}); 0 before either.
     */
    public long lastWorkNanos(int worker) {
        return loads[worker].lastWorkNanos();
    }

    /**
     * Records that {@code requestId} was sent to {@code worker}.
     *
     * @throws IllegalStateException when a request with this id is already in flight
     */
    public void admit(String requestId, int worker, int promptTokens, int predictedOutputTokens, long nowNanos) {
        admit(requestId, worker, promptTokens, predictedOutputTokens, promptTokens, null, nowNanos);
    }

    /**
     * As {@link #admit(String, int, int, int, long)}, with the prompt tokens the worker must compute
     * ({@code p_eff} = ISL − hit at routing), which count as the worker's queued prefill work until
     * the request's first token, and the tokens it loads from each slower tier ({@code H_t} per tier
     * ordinal, or null), which count as queued work on that tier's link until its first token.
     *
     * @throws IllegalStateException when a request with this id is already in flight
     */
    public void admit(String requestId, int worker, int promptTokens, int predictedOutputTokens, long prefillTokens,
                      long nowNanos) {
        admit(requestId, worker, promptTokens, predictedOutputTokens, prefillTokens, null, nowNanos);
    }

    /** As above, with the tokens it loads from each slower tier ({@code H_t} per tier ordinal, or null). */
    public void admit(String requestId, int worker, int promptTokens, int predictedOutputTokens, long prefillTokens,
                      long[] tierTokens, long nowNanos) {
        admit(requestId, worker, promptTokens, predictedOutputTokens, prefillTokens, tierTokens, PrefixMarks.NONE,
                nowNanos);
    }

    /**
     * As above, with the prompt's prefix marks: under {@link #ownKvAccounting own accounting} a prefix the worker's
     * running requests share counts once in its {@code KV_used} ({@link SharedPrefixKv}). Without it the marks are
     * dropped (the engine's sample counts what it shares); marks beyond the prompt's tokens are too (a client may
     * count its blocks rounding up).
     */
    public void admit(String requestId, int worker, int promptTokens, int predictedOutputTokens, long prefillTokens,
                      long[] tierTokens, PrefixMarks marks, long nowNanos) {
        admitWithin(0, 0, requestId, worker, promptTokens, predictedOutputTokens, prefillTokens, tierTokens, marks,
                nowNanos);
    }

    /**
     * As above, only while {@code worker} is below the limits {@code maxInFlight} and {@code maxWaiting} (0: none;
     * {@link LoadView#atLimit}), checked with the admission under the worker's lock: routes on several threads price a
     * worker from its load read without a lock, and each would otherwise be admitted into its last slot. False, and
     * nothing changed, when the worker is at them.
     *
     * @throws IllegalStateException when a request with this id is already in flight
     */
    public boolean admitWithin(int maxInFlight, int maxWaiting, String requestId, int worker, int promptTokens,
                               int predictedOutputTokens, long prefillTokens, long[] tierTokens, PrefixMarks marks,
                               long nowNanos) {
        InFlightRequest r = new InFlightRequest(requestId, worker, promptTokens, predictedOutputTokens, prefillTokens,
                tierTokens, ownKvAccounting ? marks.within(promptTokens) : PrefixMarks.NONE, nowNanos);
        // Under the worker's lock, which apply() takes too: an event that finds the request by its id (another thread,
        // as replica sync's consumer admits while a gateway posts) waits until the worker holds it. Else a finish
        // in between found it nowhere on the worker yet took it off the id map, and it stayed on the worker.
        synchronized (loads[worker]) {
            if (loads[worker].view().atLimit(maxInFlight, maxWaiting)) {
                return false;
            }
            if (byId.putIfAbsent(requestId, r) != null) {
                throw new DuplicateRequestException("request '" + requestId + "' is already in flight");
            }
            loads[worker].admit(r);
            return true;
        }
    }

    /** Applies a request event; returns false when the request is not (or no longer) in flight. */
    public boolean onEvent(RequestEvent event, long nowNanos) {
        return apply(event, nowNanos) != EventEffect.UNKNOWN;
    }

    /** Applies a request event and says what it changed (decided under the worker's lock, with the change). */
    public EventEffect apply(RequestEvent event, long nowNanos) {
        return apply(event, nowNanos, null);
    }

    /**
     * As {@link #apply(RequestEvent, long)}; when the event finishes a request in flight, {@code onFinished} (if not
     * null) receives the largest output count its events reported (0 when none did), read after the worker's lock.
     */
    public EventEffect apply(RequestEvent event, long nowNanos, IntConsumer onFinished) {
        InFlightRequest r = byId.get(event.requestId());
        if (r == null) {
            return EventEffect.UNKNOWN;
        }
        EventEffect effect = loads[r.worker].apply(r, event, nowNanos);
        if (event.type() == RequestEvent.Type.FINISHED || event.type() == RequestEvent.Type.FAILED) {
            byId.remove(event.requestId(), r);
            if (onFinished != null && effect.left() && event.type() == RequestEvent.Type.FINISHED) {
                onFinished.accept(r.reportedOutputTokens);
            }
        }
        return effect;
    }

    /** The worker a request in flight was sent to, or -1. */
    public int workerOf(String requestId) {
        InFlightRequest r = byId.get(requestId);
        return r == null ? -1 : r.worker;
    }

    /**
     * When on, {@code KV_used(w)} is the KV demand of the requests this selector sent there (prompt plus
     * tokens generated so far, queued requests included; a prompt prefix that running requests share, once, as the
     * engine holds it: {@link SharedPrefixKv}, given each request's {@link PrefixMarks}) instead of the engine's sampled
     * usage plus what was sent since. Right when one selector routes everything the workers serve (the simulator, a
     * single replica): the engine's usage counts only blocks held, not its queue's demand, and is up to
     * a telemetry period old. Off by default (replicas see each other only through telemetry).
     */
    public void ownKvAccounting(boolean on) {
        ownKvAccounting = on;
        for (WorkerLoad load : loads) {
            load.ownKvAccounting(on);
        }
    }

    /** Whether {@code KV_used} is this selector's own accounting ({@link #ownKvAccounting(boolean)}). */
    public boolean ownKvAccounting() {
        return ownKvAccounting;
    }

    /**
     * Takes an engine telemetry sample. True once per worker: when this sample gave its work counters away as running
     * totals, not counts since the previous sample (from then on a change of those totals is the worker's work).
     */
    public boolean onTelemetry(Telemetry sample) {
        return loads[sample.worker()].telemetry(sample);
    }

    /** Whether {@code worker}'s telemetry work counters are read as running totals ({@link WorkCounters}). */
    public boolean readsRunningTotals(int worker) {
        return loads[worker].readsRunningTotals();
    }

    /**
     * Drops requests that stopped reporting and telemetry too old to trust; returns requests dropped, each of which is
     * also handed to {@code droppedId} (their workflows' steps end with them).
     */
    public int expire(long nowNanos, Consumer<String> droppedId) {
        int dropped = 0;
        for (WorkerLoad load : loads) {
            load.expireTelemetry(nowNanos, telemetryMaxAgeNanos);
            for (InFlightRequest r : load.stale(nowNanos, requestMaxAgeNanos)) {
                byId.remove(r.id, r);
                if (load.remove(r)) { // not one a concurrent finish already took
                    dropped++;
                    droppedId.accept(r.id);
                }
            }
        }
        return dropped;
    }

    /** Requests in flight across all workers. */
    public int size() {
        return byId.size();
    }
}
