package io.tierroute.sim.policy.baseline;

import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;

import java.util.SplittableRandom;

/**
 * Least loaded (PEERS.md §1): {@code argmin load(w)}, ties uniformly at random, where the load is the
 * router's own count of requests it sent to {@code w} that have not finished.
 */
public final class LeastLoadedPolicy implements RoutingPolicy {

    public static final String NAME = "least-loaded";

    private final int[] load;
    private final SplittableRandom random;

    public LeastLoadedPolicy(int workers, long seed) {
        this.load = new int[workers];
        this.random = new SplittableRandom(seed);
    }

    @Override public String name() { return NAME; }
    @Override public String version() { return "baseline"; }

    @Override
    public int route(SimRequest request, FleetView view, long nowMicros) {
        int best = -1;
        int ties = 0;
        for (int w = 0; w < load.length; w++) {
            if (best < 0 || load[w] < load[best]) {
                best = w;
                ties = 1;
            } else if (load[w] == load[best] && random.nextInt(++ties) == 0) {
                best = w; // reservoir sampling among ties
            }
        }
        return best;
    }

    @Override
    public void onRouted(SimRequest request, int worker, long nowMicros) {
        load[worker]++;
    }

    @Override
    public void onFinished(SimRequest request, int worker, int outputTokens, long nowMicros) {
        load[worker]--;
    }

    /** Requests this router believes are in flight on {@code worker}. */
    public int load(int worker) {
        return load[worker];
    }
}
