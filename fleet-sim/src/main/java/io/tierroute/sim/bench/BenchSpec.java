package io.tierroute.sim.bench;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;

/**
 * One routing benchmark: a request source (a trace file or a named workload), the fleet, the loads
 * and the policies to compare. Every value is checked here, before any run starts, so a bad one fails
 * at once instead of after the runs before it; the messages name the {@code bench routing} option.
 *
 * @param trace          trace file, or null with {@code workload}
 * @param workload       generated workload name, or null with {@code trace}
 * @param limit          at most this many requests (0: all)
 * @param workers        engine workers (≥ 1)
 * @param loads          distinct load factors in [{@link #MIN_LOAD}, {@link #MAX_LOAD}] (arrival rate multipliers; 1 = as recorded / generated)
 * @param policies       distinct registry names
 * @param seed           seed of the workload and of every policy
 * @param hbmTokens      HBM KV tokens per worker (at least one 512-token block), or null for the default
 * @param cpuTokens      CPU-tier KV tokens per worker (0 = none, else at least one block), or null for the default
 * @param pcieBytesPerSecond link bandwidth ({@link #MIN_PCIE_GBPS}–{@link #MAX_PCIE_GBPS} GB/s), or null for the default
 *                       (or the workload's)
 * @param nvmeTokens     NVMe-tier KV tokens per worker (0 = none, else at least one block; needs a CPU tier), or null
 *                       for the default (or the workload's)
 * @param nvmeBytesPerSecond NVMe read bandwidth ({@link #MIN_PCIE_GBPS}–{@link #MAX_PCIE_GBPS} GB/s), or null for the
 *                       default (or the workload's)
 * @param warmUpFraction share of the requests (from the start) replayed in the warm-up run for fitting, in (0, 1]
 */
public record BenchSpec(Path trace, String workload, int limit, int workers, List<Double> loads, List<String> policies,
                        long seed, Long hbmTokens, Long cpuTokens, Double pcieBytesPerSecond, Long nvmeTokens,
                        Double nvmeBytesPerSecond, double warmUpFraction) {

    /**
     * Load range. Below it arrivals spread so far apart that a run mostly ticks telemetry (1e-9 with 10
     * requests ran for minutes); above it every arrival lands at once and more load measures nothing new.
     */
    public static final double MIN_LOAD = 0.01;
    public static final double MAX_LOAD = 100;
    /** Far beyond any fleet a router serves; more only exhausts the heap. */
    public static final int MAX_WORKERS = 4096;
    /** One KV block of the simulated engines: a worker with less HBM can hold no request, a CPU or NVMe tier nothing. */
    public static final long MIN_HBM_TOKENS = 512;
    /**
     * Link range, GB/s. Below it a CPU-tier load takes simulated hours and a run mostly ticks telemetry (1e-6 ran for
     * minutes without end); above it the link is never the bottleneck and more measures nothing new.
     */
    public static final double MIN_PCIE_GBPS = 0.01;
    public static final double MAX_PCIE_GBPS = 10_000;

    public BenchSpec {
        if ((trace == null) == (workload == null)) {
            throw new IllegalArgumentException("give exactly one of --trace or --workload");
        }
        // Path.of("") is the working directory: "is a directory" would hide that nothing was named, as for --out.
        if (trace != null && trace.toString().isEmpty()) {
            throw new IllegalArgumentException("--trace must name a file (got an empty path)");
        }
        loads = List.copyOf(loads);
        policies = List.copyOf(policies);
        if (loads.isEmpty() || policies.isEmpty()) {
            throw new IllegalArgumentException("at least one load and one policy are required");
        }
        for (double load : loads) {
            if (!(load >= MIN_LOAD && load <= MAX_LOAD)) {
                throw bad("--load", "a number in [0.01, 100]", fmt(load));
            }
        }
        // Duplicates would print the same row twice and overwrite the same request log; the reports print a
        // load with two decimals, so 0.011 and 0.012 are the same there.
        if (loads.stream().map(l -> String.format(java.util.Locale.ROOT, "%.2f", l)).distinct().count() < loads.size()) {
            throw bad("--load", "a list of values distinct to two decimals",
                    String.join(",", loads.stream().map(BenchSpec::fmt).toList()));
        }
        if (new HashSet<>(policies).size() < policies.size()) {
            throw bad("--policies", "a list of distinct names", String.join(",", policies));
        }
        if (limit < 0) {
            throw bad("--limit", "≥ 0", Integer.toString(limit));
        }
        if (workers < 1 || workers > MAX_WORKERS) {
            throw bad("--workers", "in [1, " + MAX_WORKERS + "]", Integer.toString(workers));
        }
        if (hbmTokens != null && hbmTokens < MIN_HBM_TOKENS) {
            throw bad("--hbm-tokens", "≥ " + MIN_HBM_TOKENS + " (one KV block)", hbmTokens.toString());
        }
        if (cpuTokens != null && cpuTokens < 0) {
            throw bad("--cpu-tokens", "≥ 0", cpuTokens.toString());
        }
        requireLinkRange("--pcie-gbps", pcieBytesPerSecond);
        if (nvmeTokens != null && nvmeTokens < 0) {
            throw bad("--nvme-tokens", "≥ 0", nvmeTokens.toString());
        }
        requireLinkRange("--nvme-gbps", nvmeBytesPerSecond);
        if (nvmeTokens != null && nvmeTokens > 0 && cpuTokens != null && cpuTokens == 0) {
            throw bad("--nvme-tokens", "0 with --cpu-tokens 0: the NVMe tier receives the CPU tier's evictions, so it "
                    + "needs a CPU tier", nvmeTokens.toString());
        }
        // Less than a block is no tier at all: the run would silently go without it.
        requireWholeBlock("--cpu-tokens", "no CPU tier", cpuTokens);
        requireWholeBlock("--nvme-tokens", "no NVMe tier", nvmeTokens);
        if (!(warmUpFraction > 0 && warmUpFraction <= 1)) {
            throw bad("--warm-up", "a number in (0, 1]", fmt(warmUpFraction));
        }
    }

    /** A benchmark on the default NVMe tier (the workload's, or none). */
    public BenchSpec(Path trace, String workload, int limit, int workers, List<Double> loads, List<String> policies,
                     long seed, Long hbmTokens, Long cpuTokens, Double pcieBytesPerSecond, double warmUpFraction) {
        this(trace, workload, limit, workers, loads, policies, seed, hbmTokens, cpuTokens, pcieBytesPerSecond, null, null,
                warmUpFraction);
    }

    /** The same benchmark with another seed. */
    public BenchSpec withSeed(long other) {
        return new BenchSpec(trace, workload, limit, workers, loads, policies, other, hbmTokens, cpuTokens,
                pcieBytesPerSecond, nvmeTokens, nvmeBytesPerSecond, warmUpFraction);
    }

    /** What the report is titled with. */
    public String source() {
        return trace != null ? trace.getFileName().toString() : workload;
    }

    /** A link's bandwidth (null: the default) within {@link #MIN_PCIE_GBPS}–{@link #MAX_PCIE_GBPS} GB/s. */
    private static void requireLinkRange(String option, Double bytesPerSecond) {
        if (bytesPerSecond != null && !(bytesPerSecond >= MIN_PCIE_GBPS * 1e9 && bytesPerSecond <= MAX_PCIE_GBPS * 1e9)) {
            throw bad(option, "in [" + fmt(MIN_PCIE_GBPS) + ", " + fmt(MAX_PCIE_GBPS) + "]", fmt(bytesPerSecond / 1e9));
        }
    }

    /** A tier's capacity (null: the default): none, or at least one KV block. */
    private static void requireWholeBlock(String option, String zeroMeans, Long tokens) {
        if (tokens != null && tokens > 0 && tokens < MIN_HBM_TOKENS) {
            throw bad(option, "0 (" + zeroMeans + ") or ≥ " + MIN_HBM_TOKENS + " (one KV block)", tokens.toString());
        }
    }

    private static IllegalArgumentException bad(String option, String must, String got) {
        return new IllegalArgumentException(option + " must be " + must + " (got " + got + ")");
    }

    /** 2.0 as "2", 0.5 as "0.5", NaN as "NaN": as the user typed it, near enough. */
    private static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format(Locale.ROOT, "%s", v);
    }
}
