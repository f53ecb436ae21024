package io.tierroute.selector.scheduling;

import io.tierroute.selector.protocol.Tier;

import java.util.Arrays;

/**
 * What the configuration says about one worker.
 *
 * @param name             the worker's name, as engines and clients spell it
 * @param kvCapacityTokens HBM KV capacity in tokens
 * @param bandwidth        per tier, the link bandwidth in bytes/s; 0 when the worker has no such tier
 * @param approximate      true when the worker publishes no KV events: the selector then indexes its
 *                         own decisions with a TTL (Dynamo's and SGLang's approximate mode)
 * @param maxInFlight      requests in flight beyond which the worker is filtered out (0: no limit)
 * @param maxWaiting       waiting requests beyond which the worker is filtered out (0: no limit)
 */
public record WorkerSpec(String name, long kvCapacityTokens, double[] bandwidth, boolean approximate,
                         int maxInFlight, int maxWaiting) {

    public WorkerSpec {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("worker name is required");
        }
        if (kvCapacityTokens <= 0) {
            throw new IllegalArgumentException("worker " + name + ": kv capacity must be > 0 tokens, got " + kvCapacityTokens);
        }
        if (bandwidth == null || bandwidth.length != Tier.COUNT) {
            throw new IllegalArgumentException("worker " + name + ": bandwidth needs one value per tier");
        }
        bandwidth = bandwidth.clone();
        for (int t = 0; t < Tier.COUNT; t++) {
            if (!(bandwidth[t] >= 0 && Double.isFinite(bandwidth[t]))) {
                throw new IllegalArgumentException("worker " + name + ": bandwidth of " + Tier.ofOrdinal(t)
                        + " must be a finite number ≥ 0 bytes/s, got " + bandwidth[t]);
            }
        }
        if (maxInFlight < 0 || maxWaiting < 0) {
            throw new IllegalArgumentException("worker " + name + ": limits must be ≥ 0");
        }
    }

    /** A worker with PCIe Gen5 to CPU (64 GB/s), no NVMe or remote tier, no limits, event mode. */
    public static WorkerSpec of(String name, long kvCapacityTokens) {
        double[] bw = new double[Tier.COUNT];
        bw[Tier.CPU.ordinal()] = 64e9;
        return new WorkerSpec(name, kvCapacityTokens, bw, false, 0, 0);
    }

    @Override
    public double[] bandwidth() {
        return bandwidth.clone();
    }

    double[] bandwidthNoCopy() {
        return bandwidth;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WorkerSpec w && name.equals(w.name) && kvCapacityTokens == w.kvCapacityTokens
                && Arrays.equals(bandwidth, w.bandwidth) && approximate == w.approximate
                && maxInFlight == w.maxInFlight && maxWaiting == w.maxWaiting;
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return "WorkerSpec{" + name + ", kv=" + kvCapacityTokens + ", bw=" + Arrays.toString(bandwidth)
                + (approximate ? ", approximate" : "") + "}";
    }
}
