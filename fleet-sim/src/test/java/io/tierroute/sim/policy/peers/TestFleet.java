package io.tierroute.sim.policy.peers;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.OracleView;
import io.tierroute.sim.policy.SimRequest;

/** A hand-built fleet configuration and request factory for the peers' unit tests. */
public record TestFleet(int workers, int blockSize, long hbmBlocks, long cpuBlocks) implements FleetView {

    public static TestFleet of(int workers) {
        return new TestFleet(workers, 16, 1000, 4000);
    }

    @Override public double bytesPerToken() { return 262_144; }
    @Override public String model() { return "test-model"; }
    @Override public double bandwidth(int worker, Tier tier) {
        return tier == Tier.HBM ? 2e12 : tier == Tier.CPU && cpuBlocks > 0 ? 25e9 : 0;
    }
    @Override public long hbmCapacityBlocks(int worker) { return hbmBlocks; }
    @Override public long cpuCapacityBlocks(int worker) { return cpuBlocks; }
    @Override public int maxBatchedTokens() { return 8192; }
    @Override public OracleView oracle() { throw new AssertionError("peers must not read the oracle"); }

    /** A request whose full blocks have the given chained hashes, plus {@code tailTokens} extra tokens. */
    public SimRequest request(String id, long arrivalMicros, int tailTokens, long... hashes) {
        return new SimRequest(id, arrivalMicros, hashes.length * blockSize + tailTokens, hashes.clone(), hashes.clone(),
                blockSize, 100, 10, null);
    }

    /** Hashes {@code from, from+1, …, from+n-1}: a prefix chain shared by any two ranges with the same start. */
    public static long[] chain(long from, int n) {
        long[] h = new long[n];
        for (int i = 0; i < n; i++) {
            h[i] = from + i;
        }
        return h;
    }
}
