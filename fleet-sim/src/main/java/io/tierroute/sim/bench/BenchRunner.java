package io.tierroute.sim.bench;

import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.engine.SimResult;
import io.tierroute.sim.engine.Simulation;
import io.tierroute.sim.policy.PolicyRegistry;
import io.tierroute.sim.policy.PolicySetup;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.WarmUpShortfall;
import io.tierroute.sim.trace.TraceFormat;
import io.tierroute.sim.trace.TraceReplay;
import io.tierroute.sim.workload.RequestFactory;
import io.tierroute.sim.workload.Workload;
import io.tierroute.sim.workload.Workloads;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Runs every policy at every load of a {@link BenchSpec} on the same requests and fleet, and returns
 * one {@link RunReport} per run. A policy that fits its parameters gets a warm-up: the first
 * {@code warmUpFraction} of the same (scaled) requests, replayed on a fresh fleet with the policy it
 * chooses.
 */
public final class BenchRunner {

    private final PolicyRegistry registry;
    private final ProgressBar progress; // may be null
    private Path requestLogs; // null: no per-request logs
    private Consumer<String> warnings = w -> { }; // none unless told (the CLI: stderr)

    public BenchRunner(PolicyRegistry registry, ProgressBar progress) {
        this.registry = registry;
        this.progress = progress;
    }

    /** Also writes each run's completion logs to {@code dir} ({@link RequestLog}, one file per policy and load). */
    public BenchRunner requestLogs(Path dir) {
        this.requestLogs = dir;
        return this;
    }

    /**
     * Tells {@code sink} what a run's figures do not say, as each run starts (e.g. "tierroute-fitted @ load 1.00,
     * seed 1: not fitted, ..."); the reports carry it too ({@link RunReport#note()}).
     */
    public BenchRunner warnings(Consumer<String> sink) {
        this.warnings = sink;
        return this;
    }

    /** The engine configuration for {@code spec} (defaults, then the workload's, then the spec's overrides). */
    public static EngineConfig engine(BenchSpec spec) {
        EngineConfig.Builder b = EngineConfig.builder().workers(spec.workers());
        if (spec.workload() != null) {
            b = Workloads.named(spec.workload()).tune(b);
            requireCpuTierForTheWorkloadsNvme(spec);
        }
        if (spec.hbmTokens() != null) b.hbmCapacityTokens(spec.hbmTokens());
        if (spec.cpuTokens() != null) b.cpuCapacityTokens(spec.cpuTokens());
        if (spec.pcieBytesPerSecond() != null) b.pcieBytesPerSecond(spec.pcieBytesPerSecond());
        if (spec.nvmeTokens() != null) b.nvmeCapacityTokens(spec.nvmeTokens());
        if (spec.nvmeBytesPerSecond() != null) b.nvmeBytesPerSecond(spec.nvmeBytesPerSecond());
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            // Only the spec's overrides can make the build fail (e.g. HBM below one block): say which they are.
            throw new IllegalArgumentException("--hbm-tokens / --cpu-tokens / --pcie-gbps / --nvme-tokens / --nvme-gbps: "
                    + e.getMessage(), e);
        }
    }

    /**
     * {@code --cpu-tokens 0} on a workload that brings its own NVMe tier (nvme-overflow): the user never asked for an
     * NVMe tier, so the engine's "an NVMe tier needs a CPU tier" would puzzle; say where the tier comes from and the ways out.
     */
    private static void requireCpuTierForTheWorkloadsNvme(BenchSpec spec) {
        boolean noCpuTier = spec.cpuTokens() != null && spec.cpuTokens() == 0;
        if (noCpuTier && spec.nvmeTokens() == null && Workloads.named(spec.workload())
                .tune(EngineConfig.builder().workers(spec.workers())).build().hasNvmeTier()) {
            throw new IllegalArgumentException("--cpu-tokens 0 leaves no CPU tier, but the " + spec.workload()
                    + " workload has an NVMe tier, which receives the CPU tier's evictions: keep a CPU tier (--cpu-tokens "
                    + "≥ " + BenchSpec.MIN_HBM_TOKENS + ") or add --nvme-tokens 0");
        }
    }

    /**
     * What the command says of its options before the runs: {@link #capacityRounding} and {@link #withoutEffect}. Each
     * a sentence naming its option; the reports record them too.
     */
    public static List<String> optionNotes(BenchSpec spec, EngineConfig cfg) {
        List<String> notes = new ArrayList<>(capacityRounding(spec, cfg));
        notes.addAll(withoutEffect(spec, cfg));
        return notes;
    }

    /**
     * The link bandwidths given for a tier the run does not have: {@code --nvme-gbps} without an NVMe tier, or
     * {@code --pcie-gbps} without a CPU tier (the PCIe link carries only the CPU and NVMe tiers' loads, and there is no
     * NVMe tier without a CPU tier). Accepted, since the value is valid, but said: a sweep over one would otherwise
     * report the same figures for every value without a word.
     */
    public static List<String> withoutEffect(BenchSpec spec, EngineConfig cfg) {
        List<String> notes = new ArrayList<>();
        if (spec.pcieBytesPerSecond() != null && !cfg.hasCpuTier()) {
            notes.add("--pcie-gbps has no effect: the run has no CPU tier (" + tierSource("--cpu-tokens", spec.cpuTokens(),
                    spec) + "), and the PCIe link carries only CPU- and NVMe-tier loads");
        }
        if (spec.nvmeBytesPerSecond() != null && !cfg.hasNvmeTier()) {
            notes.add("--nvme-gbps has no effect: the run has no NVMe tier (" + tierSource("--nvme-tokens",
                    spec.nvmeTokens(), spec) + "); --nvme-tokens N gives it one");
        }
        return notes;
    }

    /** Why a tier is missing: the option that removed it, or the default of the trace or workload. */
    private static String tierSource(String option, Long tokens, BenchSpec spec) {
        if (tokens != null) {
            return option + " " + tokens;
        }
        return spec.workload() != null ? "the " + spec.workload() + " workload has none" : "the default fleet has none";
    }

    /**
     * What the capacities given in tokens become in whole KV blocks, for each one that is not a whole number of them:
     * {@code --hbm-tokens 1023 is 1 block of 512 tokens: 512 tokens of HBM per worker}. A tier holds blocks, so the
     * rest is no capacity; said, since a run rejecting a 605-token request with "1023 tokens" reads as a bug.
     */
    public static List<String> capacityRounding(BenchSpec spec, EngineConfig cfg) {
        List<String> notes = new ArrayList<>();
        roundingNote(notes, "--hbm-tokens", spec.hbmTokens(), cfg.blockSize(), "HBM");
        roundingNote(notes, "--cpu-tokens", spec.cpuTokens(), cfg.blockSize(), "CPU tier");
        roundingNote(notes, "--nvme-tokens", spec.nvmeTokens(), cfg.blockSize(), "NVMe tier");
        return notes;
    }

    private static void roundingNote(List<String> notes, String option, Long tokens, int blockSize, String tier) {
        if (tokens != null && tokens % blockSize != 0) {
            long blocks = tokens / blockSize;
            notes.add(String.format(Locale.ROOT, "%s %d is %,d whole block%s of %d tokens: %,d tokens of %s per worker",
                    option, tokens, blocks, blocks == 1 ? "" : "s", blockSize, blocks * blockSize, tier));
        }
    }

    /** The requests of {@code spec} at load 1. */
    public static List<SimRequest> requests(BenchSpec spec, EngineConfig cfg) {
        RequestFactory factory = new RequestFactory(cfg.model(), cfg.blockSize());
        if (spec.trace() != null) {
            // Before the format, which is read from the name: a missing file is the first thing to say.
            if (!Files.exists(spec.trace())) {
                throw new IllegalArgumentException(spec.trace() + ": does not exist");
            }
            if (Files.isDirectory(spec.trace())) {
                throw new IllegalArgumentException(spec.trace() + ": is a directory");
            }
            return TraceReplay.load(spec.trace(), TraceFormat.ofFile(spec.trace().toString()), factory, spec.limit());
        }
        Workload w = Workloads.named(spec.workload());
        List<SimRequest> all = w.generate(factory, spec.seed());
        return spec.limit() > 0 && all.size() > spec.limit() ? all.subList(0, spec.limit()) : all;
    }

    /** Every name in {@code policies} is registered, else an IllegalArgumentException naming it and the known ones. */
    public static void requireKnown(PolicyRegistry registry, List<String> policies) {
        for (String p : policies) {
            if (!registry.contains(p)) {
                throw new IllegalArgumentException("unknown policy '" + p + "'; known: " + String.join(", ", registry.names()));
            }
        }
    }

    public List<RunReport> run(BenchSpec spec) {
        return run(spec, requests(spec, engine(spec)));
    }

    /** Every run of {@code spec} on {@code base}, its requests at load 1 (loaded by the caller, so that a bad trace is told apart from a failed run). */
    public List<RunReport> run(BenchSpec spec, List<SimRequest> base) {
        requireKnown(registry, spec.policies());
        EngineConfig cfg = engine(spec);
        List<RunReport> out = new ArrayList<>();
        for (double load : spec.loads()) {
            List<SimRequest> scaled = Workloads.atLoad(base, load);
            List<SimRequest> warm = scaled.subList(0, Math.max(1, (int) (scaled.size() * spec.warmUpFraction())));
            for (String name : spec.policies()) {
                out.add(runOne(cfg, scaled, warm, name, spec.seed(), load));
            }
        }
        return out;
    }

    /** Why requests were rejected, and what it leaves of the run's figures. */
    static String rejectedNote(int rejected, int requests, EngineConfig cfg) {
        String what = String.format(Locale.ROOT, "%d of %d requests rejected (a prompt with its output larger than a "
                + "worker's HBM of %d tokens, or refused by the policy); they are in no latency figure", rejected,
                requests, cfg.hbmCapacityBlocks() * cfg.blockSize());
        return rejected < requests ? what : what + "; no request completed: raise --hbm-tokens or use smaller prompts";
    }

    /** One policy at one load. */
    public RunReport runOne(EngineConfig cfg, List<SimRequest> requests, List<SimRequest> warm, String name,
                            long seed, double load) {
        Simulation sim = new Simulation(cfg, requests);
        String label = String.format(Locale.ROOT, "%s @ load %.2f", name, load);
        // A fitted policy's warm-ups run first (seconds each on a whole trace): shown, not a silence before the run.
        // Numbered: a fitted policy runs several (each a whole pass over the warm-up requests).
        int[] warmUps = {0};
        PolicySetup.WarmUp warmUp = policy -> {
            String warmLabel = label + ", warm-up " + ++warmUps[0];
            return new Simulation(cfg, warm)
                    .run(policy, progress == null ? null : (d, t) -> progress.update(warmLabel, d, t)).completions();
        };
        RoutingPolicy policy = registry.create(name, new PolicySetup(sim.fleetView(), seed, warmUp));
        String note = note(policy.warmUpShortfall());
        if (note != null) { // now, not after the run: a long benchmark can be stopped and rerun with more warm-up
            warnings.accept(label + ", seed " + seed + ": " + note);
        }
        SimResult result = sim.run(policy, progress == null ? null : (d, t) -> progress.update(label, d, t));
        if (result.rejected() > 0) { // the tables show the count; a run whose figures stand on few requests is said
            warnings.accept(label + ", seed " + seed + ": " + rejectedNote(result.rejected(), requests.size(), cfg));
        }
        RunReport report = RunReport.of(result, load, note);
        if (requestLogs != null) {
            try {
                RequestLog.write(requestLogs.resolve(RequestLog.fileName(name, load)), result.completions());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (progress != null) {
            progress.finish(String.format(Locale.ROOT, "%s: %d requests, TTFT p99 %s s, %.1f s wall", label,
                    (long) report.get("requests"), TableReporter.format(report.get("ttft_p99_s")), report.get("wall_s")));
        }
        return report;
    }

    /** A warm-up too short to fit on, as the reports say it, with what gives it more; null for none. */
    static String note(WarmUpShortfall shortfall) {
        return shortfall == null ? null : shortfall.describe() + "; use a larger --limit or --warm-up";
    }
}
