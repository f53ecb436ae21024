package io.tierroute.sim.policy.tierroute;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sync.ReplicaSync;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.WarmUpShortfall;
import io.tierroute.sim.policy.WorkerTelemetry;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Several tierroute selectors in front of one fleet, as a deployment runs them (deploy/k8s: two replicas behind a
 * Service): requests reach the replicas in turn (a round-robin load balancer); every replica hears every engine's KV
 * events and telemetry.
 *
 * <p>Unsynchronised, each replica hears only its own requests' events, so it prices a worker's decode work and
 * in-flight count from its own requests only, on top of the engine's queue and KV use (selector-runtime README,
 * "Several replicas"): what that costs against one selector routing everything. With replica sync (a delay of at least
 * 0), each replica's {@link ReplicaSync} tells the others its admissions and the request events reported to it, which
 * reach them {@code syncDelayMicros} later, and the gateway posts each request event to the replicas in turn, as a
 * load balancer would, not to the one that routed it.
 */
final class ReplicatedTierroute implements RoutingPolicy {

    /** {@code syncDelayMicros} of replicas that do not hear each other. */
    static final long NO_SYNC = -1;

    /** A message of one replica that reaches {@code to} at {@code atMicros}. */
    private record Delivery(long atMicros, TierroutePolicy to, Runnable apply) {}

    private final String name;
    private final List<TierroutePolicy> replicas;
    private final Map<String, TierroutePolicy> routedBy = new HashMap<>();
    private final long syncDelayMicros;
    private final Map<TierroutePolicy, ReplicaSync> syncs = new HashMap<>(); // empty without sync
    private final ArrayDeque<Delivery> deliveries = new ArrayDeque<>(); // in time order: one delay for all
    private long nowMicros;
    private int next;
    private int nextForEvents;

    ReplicatedTierroute(String name, List<TierroutePolicy> replicas) {
        this(name, replicas, NO_SYNC);
    }

    ReplicatedTierroute(String name, List<TierroutePolicy> replicas, long syncDelayMicros) {
        if (replicas.size() < 2) {
            throw new IllegalArgumentException("a replicated policy needs at least 2 replicas, got " + replicas.size());
        }
        this.name = name;
        this.replicas = List.copyOf(replicas);
        this.syncDelayMicros = syncDelayMicros;
        if (syncDelayMicros >= 0) {
            for (TierroutePolicy r : this.replicas) {
                syncs.put(r, new ReplicaSync(r.selector(), transportFrom(r), r::nowNanos,
                        ReplicaSync.DEFAULT_PENDING_MAX_AGE, ReplicaSync.DEFAULT_MAX_PENDING).install());
            }
        }
    }

    /** What {@code from} sends reaches every other replica {@link #syncDelayMicros} later. */
    private ReplicaSync.Transport transportFrom(TierroutePolicy from) {
        return new ReplicaSync.Transport() {
            @Override
            public void admitted(ReplicaAdmission admission) {
                long sentNanos = from.nowNanos(); // admitted then, as the record's timestamp says over Kafka
                toOthers(from, to -> syncs.get(to).admitted(admission, sentNanos));
            }

            @Override
            public void event(RequestEvent event) {
                toOthers(from, to -> syncs.get(to).event(event));
            }
        };
    }

    private void toOthers(TierroutePolicy from, java.util.function.Consumer<TierroutePolicy> apply) {
        for (TierroutePolicy to : replicas) {
            if (to != from) {
                deliveries.add(new Delivery(nowMicros + syncDelayMicros, to, () -> apply.accept(to)));
            }
        }
    }

    /**
     * Delivers the messages due by {@code now}; each lands at the first callback at or after its time (tests: those
     * the run's last callbacks left on the way).
     */
    void deliverUpTo(long now) {
        nowMicros = Math.max(nowMicros, now);
        while (!deliveries.isEmpty() && deliveries.peek().atMicros() <= nowMicros) {
            Delivery d = deliveries.poll();
            d.to().advanceTo(nowMicros);
            d.apply().run();
        }
    }

    /** The replica a request event is posted to: with sync, the next in turn; without, the one that routed it. */
    private TierroutePolicy eventReceiver(SimRequest request) {
        if (syncs.isEmpty()) {
            return replicaOf(request);
        }
        replicaOf(request); // it must have been routed here
        TierroutePolicy r = replicas.get(nextForEvents);
        nextForEvents = (nextForEvents + 1) % replicas.size();
        return r;
    }

    /** Each replica's sync, in replica order; empty without sync (tests). */
    List<ReplicaSync> syncs() {
        return replicas.stream().map(syncs::get).filter(java.util.Objects::nonNull).toList();
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
        deliverUpTo(nowMicros);
        replicas.forEach(r -> r.onKvEvent(event, nowMicros));
    }

    @Override
    public void onTelemetry(WorkerTelemetry sample) {
        deliverUpTo(sample.atMicros());
        replicas.forEach(r -> r.onTelemetry(sample));
        syncs.values().forEach(ReplicaSync::expire);
    }

    @Override
    public void idleWhileHolding(long nowMicros) {
        deliverUpTo(nowMicros);
        replicas.forEach(r -> r.idleWhileHolding(nowMicros));
    }

    @Override
    public int route(SimRequest request, FleetView view, long nowMicros) {
        deliverUpTo(nowMicros);
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
        deliverUpTo(nowMicros);
        eventReceiver(request).onFirstToken(request, worker, nowMicros);
    }

    @Override
    public int progressEveryTokens() {
        return replicas.get(0).progressEveryTokens();
    }

    @Override
    public void onTokens(SimRequest request, int worker, int generated, long nowMicros) {
        deliverUpTo(nowMicros);
        eventReceiver(request).onTokens(request, worker, generated, nowMicros);
    }

    @Override
    public void onFinished(SimRequest request, int worker, int outputTokens, long nowMicros) {
        deliverUpTo(nowMicros);
        TierroutePolicy receiver = eventReceiver(request);
        if (routedBy.remove(request.id()) == null) {
            throw new IllegalStateException("finished request " + request.id() + " was not routed by this policy");
        }
        receiver.onFinished(request, worker, outputTokens, nowMicros);
    }

    private TierroutePolicy replicaOf(SimRequest request) {
        TierroutePolicy replica = routedBy.get(request.id());
        if (replica == null) {
            throw new IllegalStateException("request " + request.id() + " was not routed by this policy");
        }
        return replica;
    }
}
