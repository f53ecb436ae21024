package io.tierroute.sim.policy;

/**
 * What a policy is created with, once per simulation run.
 *
 * @param fleet  the fleet's configuration (the same view later passed to {@link RoutingPolicy#route})
 * @param seed   the run's seed: every random choice of the policy must derive from it
 * @param warmUp runs the same simulator on a warm-up workload with a given policy and returns the
 *               completion logs (for policies that fit their parameters first); null when unavailable
 */
public record PolicySetup(FleetView fleet, long seed, WarmUp warmUp) {

    /** A warm-up run of the same simulator and workload prefix, for fitting. */
    @FunctionalInterface
    public interface WarmUp {
        java.util.List<Completion> run(RoutingPolicy policy);
    }
}
