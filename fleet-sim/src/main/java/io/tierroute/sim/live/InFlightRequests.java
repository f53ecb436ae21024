package io.tierroute.sim.live;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.SimRequest;

import java.util.HashMap;
import java.util.Map;

/**
 * The live fleet's routed requests from their arrival to their completion log: the wall-clock instants of arrival,
 * dispatch and first token, taken when they happen (a hold moves the pacing origin, so recomputing them at the end
 * would misdate them), what the chosen engine held of the prompt at the delivery, and the engine's own completion
 * record, published through the {@link FleetPublisher} when the request finishes. Used on the simulation thread only.
 */
final class InFlightRequests {

    /**
     * A routed request until it finishes. Its wall-clock instants are taken when they happen, not recomputed
     * at the end from the pacing origin, which a hold moves: an arrival before a hold stays before it.
     */
    static final class InFlight {
        final long arrivalMicros;
        final long arrivalEpochMs;
        final long dispatchedEpochMs; // later than the arrival when the arrival waited for a worker
        final int worker;
        final int isl;
        final int[] cachedPerTier;
        final String workflow;
        final String step;
        long firstTokenMicros = -1;
        long firstTokenEpochMs = -1;

        InFlight(long arrivalMicros, long arrivalEpochMs, long dispatchedEpochMs, int worker, int isl, int[] cachedPerTier,
                 String workflow, String step) {
            this.arrivalMicros = arrivalMicros;
            this.arrivalEpochMs = arrivalEpochMs;
            this.dispatchedEpochMs = dispatchedEpochMs;
            this.worker = worker;
            this.isl = isl;
            this.cachedPerTier = cachedPerTier;
            this.workflow = workflow;
            this.step = step;
        }
    }

    private final EngineConfig cfg;
    private final String scope;
    private final FleetPublisher publisher;
    private final FleetPacer pacer;
    private final FleetCounters counters;
    private final Map<String, InFlight> inFlight = new HashMap<>();
    /** The engine's completion log of a request that just finished, until {@link #finished} publishes it. */
    private final Map<String, Completion> realised = new HashMap<>();
    /** Each routed request's arrival instant as stamped at its route, until {@link #routed} takes it. */
    private final Map<String, Long> arrivalStamps = new HashMap<>();
    private final int[] scratch = new int[Tier.COUNT];

    InFlightRequests(EngineConfig cfg, String scope, FleetPublisher publisher, FleetPacer pacer, FleetCounters counters) {
        this.cfg = cfg;
        this.scope = scope;
        this.publisher = publisher;
        this.pacer = pacer;
        this.counters = counters;
    }

    /** The simulation's completion record of a request that just finished (its {@code onCompletion} callback). */
    void realised(Completion c) {
        realised.put(c.request().id(), c);
    }

    /** Stamps {@code r}'s arrival with the wall-clock instant it is due at now. */
    void stampArrival(SimRequest r) {
        arrivalStamps.put(r.id(), pacer.epochMs(r.arrivalMicros()));
    }

    /** Forgets {@code r}'s arrival stamp: it was refused and will never be routed. */
    void dropArrivalStamp(SimRequest r) {
        arrivalStamps.remove(r.id());
    }

    /** The simulator delivered {@code r} to {@code worker} at {@code nowMicros}; {@code fleet} is the engines' side. */
    void routed(SimRequest r, int worker, long nowMicros, FleetView fleet) {
        Long arrivalEpochMs = arrivalStamps.remove(r.id());
        long dispatchedEpochMs = pacer.epochMs(nowMicros); // after a hold, the instant it left
        // The engine side (not the router): what the chosen engine holds of the prompt now, per tier, is
        // what its completion log reports as cached tokens. The selector never sees this.
        fleet.oracle().matchedBlocks(worker, r, scratch);
        int[] cached = new int[Tier.COUNT];
        for (int t = 0; t < Tier.COUNT; t++) {
            cached[t] = scratch[t] * cfg.blockSize();
        }
        SimRequest.Agent a = r.agent();
        inFlight.put(r.id(), new InFlight(r.arrivalMicros(), arrivalEpochMs == null ? dispatchedEpochMs : arrivalEpochMs,
                dispatchedEpochMs, worker, r.promptTokens(), cached,
                a == null ? null : a.workflowId(), a == null ? null : Integer.toString(a.step())));
    }

    /** {@code r}'s first token at {@code nowMicros}: its instant and its TTFT. */
    void firstToken(SimRequest r, long nowMicros) {
        InFlight f = inFlight.get(r.id());
        if (f != null) {
            f.firstTokenMicros = nowMicros;
            f.firstTokenEpochMs = pacer.epochMs(nowMicros);
            counters.recordTtft(nowMicros - f.arrivalMicros);
        }
    }

    /** {@code r} finished at {@code nowMicros}: publishes its completion log and counts it finished or failed. */
    void finished(SimRequest r, int outputTokens, long nowMicros) {
        InFlight f = inFlight.remove(r.id());
        // The engine's own log: null when the request was rejected (its prompt can never fit the worker's KV).
        Completion c = realised.remove(r.id());
        if (f == null) {
            return;
        }
        boolean ok = c != null && f.firstTokenMicros >= 0;
        publisher.completion(EngineRecords.completion(r.id(), f, c, ok, outputTokens, pacer.epochMs(nowMicros), scope,
                cfg.model()));
        if (ok) {
            counters.finished.increment();
        } else {
            counters.failed.increment();
        }
    }
}
