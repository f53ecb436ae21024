package io.tierroute.sim.policy.baseline;

import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;

/** Round robin (PEERS.md §1): worker {@code i mod N} for the i-th request. */
public final class RoundRobinPolicy implements RoutingPolicy {

    public static final String NAME = "round-robin";

    private int next;

    @Override public String name() { return NAME; }
    @Override public String version() { return "baseline"; }

    @Override
    public int route(SimRequest request, FleetView view, long nowMicros) {
        int w = next % view.workers();
        next = w + 1;
        return w;
    }
}
