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
        return build(commandLine, spec, "seed: " + spec.seed(), requestsLine(spec, requests), engine, notes);
    }

    /**
     * A sweep over {@code seeds} (its summary files and its top-level {@value #FILE}; each seed's own reports record
     * {@link #of}): {@code spec}, {@code engine} and {@code requests} are the first seed's. A generated workload draws
     * its requests again at each seed, so its request count is said to be the first seed's.
     */
    public static RunParameters sweep(String commandLine, BenchSpec spec, SeedList seeds, EngineConfig engine,
                                      int requests, List<String> notes) {
        String requestsLine = requestsLine(spec, requests)
                + (spec.trace() == null ? " at seed " + seeds.first() + " (each seed generates its own)" : "");
        return build(commandLine, spec, "seeds: " + seeds + " (" + seeds.size() + ")", requestsLine, engine, notes);
    }

    private static String requestsLine(BenchSpec spec, int requests) {
        return "requests: " + requests + (spec.limit() > 0 ? " (--limit " + spec.limit() + ")" : " (all)");
    }

    private static RunParameters build(String commandLine, BenchSpec spec, String seedLine, String requestsLine,
                                       EngineConfig engine, List<String> notes) {
        List<String> lines = new ArrayList<>();
        if (commandLine != null) {
            lines.add("command: " + commandLine);
        }
        lines.add(spec.trace() != null ? "trace: " + spec.trace() : "workload: " + spec.workload());
        lines.add(seedLine);
        lines.add(requestsLine);
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

    /** {@code report} (a title line, then the rest) with these lines under its title: results.txt and summary.txt. */
    public String underTitle(String report) {
        int afterTitle = report.indexOf('\n') + 1;
        return report.substring(0, afterTitle) + text() + report.substring(afterTitle);
    }

    /** The "Run" section of report.html and summary.html; empty when there are no lines. */
    String htmlSection() {
        return lines.isEmpty() ? "" : "<h2>Run</h2><pre class=\"run\">" + Html.escape(text()) + "</pre>";
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
