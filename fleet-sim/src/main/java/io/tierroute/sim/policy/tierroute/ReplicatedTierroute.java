package io.tierroute.sim.policy.tierroute;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.WarmUpShortfall;
import io.tierroute.sim.policy.WorkerTelemetry;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Several tierroute selectors in front of one fleet, as a deployment runs them (deploy/k8s: two replicas behind a
 * Service): requests reach the replicas in turn (a round-robin load balancer); every replica hears every engine's KV
 * events and telemetry, and only its own requests' events. So each prices a worker's decode work and in-flight count
 * from its own requests only, on top of the engine's queue and KV use (selector-runtime README, "Several replicas"):
 * this policy measures what that costs against one selector routing everything.
 */
final class ReplicatedTierroute implements RoutingPolicy {

    private final String name;
    private final List<TierroutePolicy> replicas;
    private final Map<String, TierroutePolicy> routedBy = new HashMap<>();
    private int next;

    ReplicatedTierroute(String name, List<TierroutePolicy> replicas) {
        if (replicas.size() < 2) {
            throw new IllegalArgumentException("a replicated policy needs at least 2 replicas, got " + replicas.size());
        }
        this.name = name;
        this.replicas = List.copyOf(replicas);
    }

    @Override public String name() { return name; }

    @Override public String version() { return replicas.size() + " replicas of " + replicas.get(0).version(); }

    @Override public WarmUpShortfall warmUpShortfall() { return replicas.get(0).warmUpShortfall(); }

    /** The replicas, in the order requests reach them (tests). */
    List<TierroutePolicy> replicas() {
        return replicas;
    }

    @Override
    public long telemetryPeriodMicros() {
        return replicas.get(0).telemetryPeriodMicros();
    }

    /** Requests routed and not yet finished or refused (tests). */
    int tracked() {
        return routedBy.size();
    }

    @Override
    public void attach(Dispatcher dispatcher) {
        Dispatcher forgetRefused = (request, worker) -> {
            if (worker == REFUSED) {
                routedBy.remove(request.id()); // a held request refused: nothing more is heard of it
            }
            dispatcher.dispatch(request, worker);
        };
        replicas.forEach(r -> r.attach(forgetRefused));
    }

    @Override
    public void onKvEvent(KvEvent event, long nowMicros) {
        replicas.forEach(r -> r.onKvEvent(event, nowMicros));
    }

    @Override
    public void onTelemetry(WorkerTelemetry sample) {
        replicas.forEach(r -> r.onTelemetry(sample));
    }

    @Override
    public void idleWhileHolding(long nowMicros) {
        replicas.forEach(r -> r.idleWhileHolding(nowMicros));
    }

    @Override
    public int route(SimRequest request, FleetView view, long nowMicros) {
        TierroutePolicy replica = replicas.get(next);
        next = (next + 1) % replicas.size();
        routedBy.put(request.id(), replica);
        int worker = replica.route(request, view, nowMicros);
        if (worker == REFUSED) {
            routedBy.remove(request.id()); // nothing more is heard of it
        }
        return worker;
    }

    @Override
    public void onRouted(SimRequest request, int worker, long nowMicros) {
        replicaOf(request).onRouted(request, worker, nowMicros);
    }

    @Override
    public void onFirstToken(SimRequest request, int worker, long nowMicros) {
        replicaOf(request).onFirstToken(request, worker, nowMicros);
    }

    @Override
    public int progressEveryTokens() {
        return replicas.get(0).progressEveryTokens();
    }

    @Override
    public void onTokens(SimRequest request, int worker, int generated, long nowMicros) {
        replicaOf(request).onTokens(request, worker, generated, nowMicros);
    }

    @Override
    public void onFinished(SimRequest request, int worker, int outputTokens, long nowMicros) {
        TierroutePolicy replica = routedBy.remove(request.id());
        if (replica == null) {
            throw new IllegalStateException("finished request " + request.id() + " was not routed by this policy");
        }
        replica.onFinished(request, worker, outputTokens, nowMicros);
    }

    private TierroutePolicy replicaOf(SimRequest request) {
        TierroutePolicy replica = routedBy.get(request.id());
        if (replica == null) {
            throw new IllegalStateException("request " + request.id() + " was not routed by this policy");
        }
        return replica;
    }
}
