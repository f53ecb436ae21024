package io.tierroute.sim.bench;

import io.tierroute.sim.engine.EngineConfig;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a benchmark was run, as its reports record it: the command line as given and what it resolved to (the seed,
 * the requests, the fleet's tiers and links, the notes on options that had no effect), one {@code name: value} line
 * each. A report read weeks later, or one seed's of a sweep, says what produced it. Written as the header of
 * {@code results.txt}, a section of {@code report.html}, and {@value #FILE} beside {@code results.csv} (a comment line
 * in the CSV would break the scripts that read it with {@code csv.DictReader}).
 */
public record RunParameters(List<String> lines) {

    public static final String FILE = "run.txt";

    public RunParameters {
        lines = List.copyOf(lines);
    }

    /**
     * @param commandLine the command as the user gave it, or null when the benchmark was not run from one
     * @param requests    how many requests each run replays at load 1
     * @param notes       what the command said of its options (a capacity rounded to blocks, an option with no effect)
     */
    public static RunParameters of(String commandLine, BenchSpec spec, EngineConfig engine, int requests,
                                   List<String> notes) {
        List<String> lines = new ArrayList<>();
        if (commandLine != null) {
            lines.add("command: " + commandLine);
        }
        lines.add(spec.trace() != null ? "trace: " + spec.trace() : "workload: " + spec.workload());
        lines.add("seed: " + spec.seed());
        lines.add("requests: " + requests + (spec.limit() > 0 ? " (--limit " + spec.limit() + ")" : " (all)"));
        lines.add("workers: " + spec.workers());
        lines.add("loads: " + String.join(", ", spec.loads().stream().map(RunParameters::plain).toList()));
        lines.add("policies: " + String.join(", ", spec.policies()));
        lines.add("warm-up: " + plain(spec.warmUpFraction()) + " of the requests (fitted policies)");
        lines.add("HBM: " + tokens(engine.hbmCapacityBlocks(), engine) + " tokens per worker");
        lines.add("CPU tier: " + (engine.hasCpuTier() ? tokens(engine.cpuCapacityBlocks(), engine)
                + " tokens per worker, PCIe link " + gbps(engine.pcieBytesPerSecond()) : "none"));
        lines.add("NVMe tier: " + (engine.hasNvmeTier() ? tokens(engine.nvmeCapacityBlocks(), engine)
                + " tokens per worker, drive " + gbps(engine.nvmeBytesPerSecond()) : "none"));
        notes.forEach(n -> lines.add("note: " + n));
        return new RunParameters(lines);
    }

    /**
     * The same run at every seed of {@code seeds}, from this, the first seed's parameters: the {@code seed} line names
     * them all (a sweep's summary files and its top-level {@value #FILE}; each seed's own reports keep their seed). A
     * generated workload draws its requests again at each seed, so its request count is said to be the first seed's.
     */
    public RunParameters atSeeds(SeedList seeds) {
        boolean generated = lines.stream().anyMatch(l -> l.startsWith("workload: "));
        return new RunParameters(lines.stream().map(l -> {
            if (l.startsWith("seed: ")) {
                return "seeds: " + seeds + " (" + seeds.size() + ")";
            }
            if (generated && l.startsWith("requests: ")) {
                return "requests: " + l.substring("requests: ".length()) + " at seed " + seeds.first()
                        + " (each seed generates its own)";
            }
            return l;
        }).toList());
    }

    /** The lines, each ended by a newline. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        lines.forEach(l -> sb.append(l).append('\n'));
        return sb.toString();
    }

    /** {@value #FILE} in {@code outDir}. */
    public void write(Path outDir) throws ReportWriteException {
        ReportWriteException.writeString(outDir.resolve(FILE), text());
    }

    /** What a tier of {@code blocks} holds: whole blocks, as the run has them (not the tokens asked for). */
    private static long tokens(long blocks, EngineConfig engine) {
        return blocks * engine.blockSize();
    }

    private static String gbps(double bytesPerSecond) {
        return plain(bytesPerSecond / 1e9) + " GB/s";
    }

    /** 2.0 as "2", 0.25 as "0.25", at most six significant digits. */
    private static String plain(double v) {
        return new BigDecimal(String.format(Locale.ROOT, "%.6g", v)).stripTrailingZeros().toPlainString();
    }
}
