package io.tierroute.sim.policy;

import io.tierroute.selector.protocol.KvEvent;

/**
 * A router under test: sees what a real router of its kind sees, and picks a worker per request.
 *
 * <p><b>Concurrency and time.</b> The simulator drives a policy from one thread, in virtual-time
 * order: every {@code nowMicros} handed to any method is ≥ the previous one, and every callback
 * about an event at time t arrives before a {@link #route} at a later time. A policy instance serves
 * one simulation run only (the registry creates a fresh one per run), so it needs no locks and may
 * keep any state. It must be deterministic given {@link PolicySetup#seed()}: no wall clock, no
 * unseeded randomness.
 *
 * <p><b>What arrives when.</b> {@link #onKvEvent} as the engine stores, evicts or moves blocks
 * (worker = dense index, per tier; a policy that models an approximate router ignores them);
 * {@link #onTelemetry} once per {@link #telemetryPeriodMicros()} per worker; {@link #route} once per
 * request at its arrival; then {@link #onRouted} with the policy's own decision, {@link #onFirstToken}
 * and {@link #onFinished} as the request progresses (what a real router learns from its own proxying
 * of the stream). Nothing else: a policy never sees other policies' decisions or the engine's
 * internals, except the oracle through {@link FleetView#oracle()}.
 */
public interface RoutingPolicy {

    /** The registry name, e.g. {@code "sglang-cache-aware"}. */
    String name();

    /** The upstream version reimplemented, e.g. {@code "sgl-model-gateway late-2025"}; "tierroute" for ours. */
    String version();

    /**
     * For a policy that fits its parameters on a warm-up: the warm-up was too short to fit on, so the policy routes
     * without that fit (reports say so); null when it fitted, or fits nothing. Asked once the policy is created.
     */
    default WarmUpShortfall warmUpShortfall() {
        return null;
    }

    /** Period at which this policy wants {@link #onTelemetry} samples (llm-d: 50 ms; default 1 s). */
    default long telemetryPeriodMicros() {
        return 1_000_000L;
    }

    /** An engine KV event (stored/removed/moved/cleared per tier). The event is not reused: keep it if needed. */
    default void onKvEvent(KvEvent event, long nowMicros) {}

    /** A periodic per-worker sample, as an engine's metrics endpoint would report it at that instant. */
    default void onTelemetry(WorkerTelemetry sample) {}

    /**
     * What {@link #route} returns for a request the router refuses as it would answer a client (tierroute: a
     * prompt no worker's KV cache can hold); the simulator counts it rejected and tells the policy nothing more.
     */
    int REFUSED = -1;

    /**
     * What {@link #route} returns for a request the router holds instead of binding it now (tierroute's late binding:
     * its admission queue). The policy must later release it through the {@link Dispatcher} it was
     * {@link #attach attached} to, to a worker or {@link #REFUSED}; its TTFT counts the wait. A run that ends with a
     * request still held fails as stalled.
     */
    int HOLD = -2;

    /** How a policy releases a request it held ({@link #HOLD}). */
    @FunctionalInterface
    interface Dispatcher {
        /** Delivers held {@code request} to {@code worker} (or {@link #REFUSED}) at the current instant. */
        void dispatch(SimRequest request, int worker);
    }

    /** Called once, before the run's first event; a policy that never holds ignores it. */
    default void attach(Dispatcher dispatcher) {}

    /**
     * Nothing is left to run but requests this policy holds: the run would end with them never released. A policy
     * that can still release them (one waiting for an operator, as the live fleet does) releases them here through its
     * {@link Dispatcher}; otherwise the run fails as stalled. By default nothing.
     */
    default void idleWhileHolding(long nowMicros) {}

    /**
     * Picks the worker for {@code request}: a dense index in {@code [0, view.workers())}, {@link #REFUSED}, or
     * {@link #HOLD}. Called once, at the request's arrival. Must not read {@link SimRequest#trueOutputTokensForOracleOnly()} or
     * {@link FleetView#oracle()} unless the policy is the oracle.
     */
    int route(SimRequest request, FleetView view, long nowMicros);

    /** The simulator delivered {@code request} to {@code worker} (the policy's own decision). */
    default void onRouted(SimRequest request, int worker, long nowMicros) {}

    /** The first output token of {@code request} left {@code worker}. */
    default void onFirstToken(SimRequest request, int worker, long nowMicros) {}

    /** Every how many decoded tokens this policy wants {@link #onTokens} (0: never; the default). */
    default int progressEveryTokens() {
        return 0;
    }

    /** {@code request} has generated {@code generated} tokens so far (every {@link #progressEveryTokens}). */
    default void onTokens(SimRequest request, int worker, int generated, long nowMicros) {}

    /** {@code request} finished on {@code worker} after {@code outputTokens} output tokens. */
    default void onFinished(SimRequest request, int worker, int outputTokens, long nowMicros) {}
}
