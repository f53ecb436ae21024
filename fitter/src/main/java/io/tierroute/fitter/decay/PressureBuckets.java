package io.tierroute.fitter.decay;

import java.util.Arrays;

/**
 * Maps cache pressure (HBM KV utilisation 0..1 of the worker when the previous step finished) to a
 * bucket index by ascending edges: bucket i holds edges[i−1] <= u < edges[i]; NaN goes to bucket 0.
 */
public final class PressureBuckets {
    private final double[] edges;

    public PressureBuckets(double... edges) {
        for (int i = 0; i < edges.length; i++) {
            if (!Double.isFinite(edges[i]) || (i > 0 && edges[i] <= edges[i - 1])) {
                throw new IllegalArgumentException("edges must be finite and strictly ascending: "
                    + Arrays.toString(edges));
            }
        }
        this.edges = edges.clone();
    }

    /** Three buckets: utilisation below 0.5, 0.5..0.85, 0.85 and above. */
    public static PressureBuckets defaults() {
        return new PressureBuckets(0.5, 0.85);
    }

    public int count() {
        return edges.length + 1;
    }

    public int bucketOf(double utilisation) {
        if (Double.isNaN(utilisation)) {
            return 0;
        }
        int i = 0;
        while (i < edges.length && utilisation >= edges[i]) {
            i++;
        }
        return i;
    }
}
