package io.tierroute.sim.policy.peers;

import java.util.SplittableRandom;

/**
 * Arg-min / arg-max over per-worker values with ties broken uniformly at random (reservoir
 * sampling over the tied workers), as Dynamo's and llm-d's pickers do. Seeded by the caller, so a
 * run is deterministic; allocation-free.
 */
public final class Ties {

    private Ties() {}

    /** The index of the smallest of {@code values[0, n)}, ties uniformly at random. */
    public static int argmin(double[] values, int n, SplittableRandom random) {
        int best = 0;
        int ties = 1;
        for (int i = 1; i < n; i++) {
            if (values[i] < values[best]) {
                best = i;
                ties = 1;
            } else if (values[i] == values[best] && random.nextInt(++ties) == 0) {
                best = i;
            }
        }
        return best;
    }

    /** The index of the largest of {@code values[0, n)}, ties uniformly at random. */
    public static int argmax(double[] values, int n, SplittableRandom random) {
        int best = 0;
        int ties = 1;
        for (int i = 1; i < n; i++) {
            if (values[i] > values[best]) {
                best = i;
                ties = 1;
            } else if (values[i] == values[best] && random.nextInt(++ties) == 0) {
                best = i;
            }
        }
        return best;
    }
}
