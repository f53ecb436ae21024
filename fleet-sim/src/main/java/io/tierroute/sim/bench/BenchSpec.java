package io.tierroute.sim.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * One routing benchmark: a request source (a trace file or a named workload), the fleet, the loads
 * and the policies to compare.
 *
 * @param trace          trace file, or null with {@code workload}
 * @param workload       generated workload name, or null with {@code trace}
 * @param limit          at most this many requests (≤ 0: all)
 * @param workers        engine workers
 * @param loads          load factors (arrival rate multipliers; 1 = as recorded / generated)
 * @param policies       registry names
 * @param seed           seed of the workload and of every policy
 * @param hbmTokens      HBM KV tokens per worker, or null for the default
 * @param cpuTokens      CPU-tier KV tokens per worker (0 = none), or null for the default
 * @param pcieBytesPerSecond link bandwidth, or null for the default (or the workload's)
 * @param warmUpFraction share of the requests (from the start) replayed in the warm-up run for fitting
 */
public record BenchSpec(Path trace, String workload, int limit, int workers, List<Double> loads, List<String> policies,
                        long seed, Long hbmTokens, Long cpuTokens, Double pcieBytesPerSecond, double warmUpFraction) {

    public BenchSpec {
        if ((trace == null) == (workload == null)) {
            throw new IllegalArgumentException("give exactly one of a trace file or a workload name");
        }
        loads = List.copyOf(loads);
        policies = List.copyOf(policies);
        if (loads.isEmpty() || policies.isEmpty()) {
            throw new IllegalArgumentException("at least one load and one policy are required");
        }
        if (!(warmUpFraction > 0 && warmUpFraction <= 1)) {
            throw new IllegalArgumentException("warmUpFraction must be in (0, 1]");
        }
    }

    /** What the report is titled with. */
    public String source() {
        return trace != null ? trace.getFileName().toString() : workload;
    }
}
