package io.tierroute.sim.policy;

/** Creates a fresh policy for one simulation run. */
@FunctionalInterface
public interface PolicyFactory {
    RoutingPolicy create(PolicySetup setup);
}
