package io.tierroute.sim.policy.baseline;

import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;

import java.util.SplittableRandom;

/** Uniformly random worker (PEERS.md §1), seeded. */
public final class RandomPolicy implements RoutingPolicy {

    public static final String NAME = "random";

    private final SplittableRandom random;

    public RandomPolicy(long seed) {
        this.random = new SplittableRandom(seed);
    }

    @Override public String name() { return NAME; }
    @Override public String version() { return "baseline"; }

    @Override
    public int route(SimRequest request, FleetView view, long nowMicros) {
        return random.nextInt(view.workers());
    }
}
