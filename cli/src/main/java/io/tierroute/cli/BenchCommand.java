package io.tierroute.cli;

import io.tierroute.sim.bench.BenchRunner;
import io.tierroute.sim.bench.BenchSpec;
import io.tierroute.sim.bench.OutputDirectory;
import io.tierroute.sim.bench.ProgressBar;
import io.tierroute.sim.bench.ReportWriteException;
import io.tierroute.sim.bench.Reporter;
import io.tierroute.sim.bench.RunParameters;
import io.tierroute.sim.bench.RunReport;
import io.tierroute.sim.bench.SeedList;
import io.tierroute.sim.bench.SeedSummary;
import io.tierroute.sim.bench.SeedSweep;
import io.tierroute.sim.bench.SummaryCsvReporter;
import io.tierroute.sim.bench.SummaryHtmlReporter;
import io.tierroute.sim.bench.SummaryTableReporter;
import io.tierroute.sim.policy.PolicyRegistry;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.Workloads;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code tierroute bench}: benchmarks. {@code bench routing} compares routing policies on the fleet simulator. */
@Command(name = "bench",
        mixinStandardHelpOptions = true,
        versionProvider = TierrouteCommand.Version.class,
        description = {"Benchmarks. 'bench routing' replays a trace or a generated workload on the fleet simulator "
                + "under each routing policy and reports TTFT, JCT, throughput, cache hits and PCIe use.", ""},
        subcommands = BenchCommand.Routing.class,
        synopsisSubcommandLabel = "COMMAND")
final class BenchCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a benchmark is required (routing)");
    }

    @Command(name = "routing",
            mixinStandardHelpOptions = true,
            versionProvider = TierrouteCommand.Version.class,
            description = {"Routing quality on the simulated fleet: every policy × load on the same requests.",
                    "Writes results.txt, results.csv, report.html (TTFT CDFs, load-latency curves) and run.txt to "
                            + "--out; prints the tables; shows progress on stderr. results.txt, report.html and run.txt "
                            + "record how the benchmark was run: the command line, the seed, the requests, the tiers' "
                            + "capacities and links.",
                    "With several seeds (--seed 1-10), each seed's four files go to --out/seed-<N>/, and "
                            + "--out/summary.csv and summary.txt give per load, policy and metric the geometric mean, "
                            + "min and max over the seeds, and the ratio best other policy / this policy (> 1: better "
                            + "than all others) with its geometric mean, min and the seeds where it is below 0.97; "
                            + "--out/summary.html shows the same with each seed's ratio charted and links to the seeds' "
                            + "reports. A line on stdout as each seed finishes; the summary is printed at the end. The "
                            + "summary files are rewritten as each seed finishes, so a sweep stopped early (Ctrl-C) leaves "
                            + "the summary of its finished seeds.", ""},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:done", "1:a run failed, or its reports could not be written", "2:bad command line (an option out of range, an unknown policy or workload, a missing or malformed trace)"})
    static final class Routing implements Callable<Integer> {

        @Option(names = "--trace", paramLabel = "FILE",
                description = "Trace to replay: Mooncake .jsonl (512-token block ids) or Azure .csv. One of --trace "
                        + "or --workload is required.")
        Path trace;

        @Option(names = "--workload", paramLabel = "NAME", description = "Generated workload instead of a trace: "
                + "llmd-blog, cpu-overflow, nvme-overflow, agentic, agentic-pcie, chat.")
        String workload;

        @Option(names = "--workers", defaultValue = "8", paramLabel = "N", description = "Engine workers, 1–4096 (default ${DEFAULT-VALUE}).")
        int workers;

        @Option(names = "--load", split = ",", defaultValue = "1", paramLabel = "L",
                description = "Load factors: distinct arrival-rate multipliers, each in [0.01, 100] (default ${DEFAULT-VALUE}).")
        List<Double> loads;

        @Option(names = "--policies", split = ",", defaultValue = "round-robin,least-loaded,tierroute-default,oracle",
                paramLabel = "POLICY", description = "Distinct policies to compare (default ${DEFAULT-VALUE}); --list-policies shows all.")
        List<String> policies;

        @Option(names = "--limit", defaultValue = "0", paramLabel = "N", description = "Replay only the first N requests, ≥ 0 (0: all).")
        int limit;

        @Option(names = "--seed", defaultValue = "1", paramLabel = "S",
                description = "Seed of the workload and the policies (default ${DEFAULT-VALUE}), or several: a comma-separated "
                        + "list of seeds ≥ 0 and ascending ranges, e.g. 1,2,5 or 1-10 or 1-3,7; each seed once, at most "
                        + SeedList.MAX_SEEDS + ". One seed writes to --out as usual; several write each seed's files "
                        + "to --out/seed-<N>/ and the spread over the seeds to --out/summary.csv, summary.txt and summary.html.")
        String seed;

        @Option(names = "--hbm-tokens", paramLabel = "T", description = "HBM KV tokens per worker, ≥ 512 (one KV block; default 262144).")
        Long hbmTokens;

        @Option(names = "--cpu-tokens", paramLabel = "T", description = "CPU-tier KV tokens per worker: 0 = no CPU tier, else ≥ 512 "
                + "(one KV block; default 1048576).")
        Long cpuTokens;

        @Option(names = "--pcie-gbps", paramLabel = "GB/s", description = "Host-to-device link bandwidth in GB/s, in [0.01, 10000] (default 64).")
        Double pcieGbps;

        @Option(names = "--nvme-tokens", paramLabel = "T", description = "NVMe-tier KV tokens per worker: 0 = no NVMe "
                + "tier, else ≥ 512 (one KV block; default 0, or the workload's). It receives the CPU tier's evictions, "
                + "so it needs a CPU tier.")
        Long nvmeTokens;

        @Option(names = "--nvme-gbps", paramLabel = "GB/s", description = "NVMe read bandwidth in GB/s, in [0.01, 10000] "
                + "(default 7, or the workload's): a drive's link, shared by its loads like the PCIe link.")
        Double nvmeGbps;

        @Option(names = "--warm-up", defaultValue = "0.3", paramLabel = "F",
                description = "Share of the requests replayed in the warm-up run of fitted policies, in (0, 1] (default ${DEFAULT-VALUE}). "
                        + "A fit takes 64 warm-up completions; with fewer, the policy runs on its defaults (tierroute-gated: on "
                        + "its earlier accepted fit, if any) and a warning and the reports say so.")
        double warmUp;

        @Option(names = "--out", defaultValue = "bench-out", paramLabel = "DIR", description = "Output directory, created if missing (default ${DEFAULT-VALUE}).")
        Path out;

        @Option(names = "--request-logs", description = "Also write each run's per-request completion log "
                + "(requests-<policy>-load<L>.csv: worker, queue wait, tier load, prefill, decode, hits, preemptions) to --out "
                + "(to --out/seed-<N>/ with several seeds).")
        boolean requestLogs;

        /** The request logs each run directory gets (none without --request-logs). */
        private List<String> requestLogNames() {
            List<String> names = new java.util.ArrayList<>();
            if (requestLogs) {
                for (String p : policies) {
                    for (double l : loads) {
                        names.add(io.tierroute.sim.bench.RequestLog.fileName(p.strip(), l));
                    }
                }
            }
            return names;
        }

        @Option(names = "--list-policies", description = "List the registered policies, and the workloads with what each models, then exit.")
        boolean list;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PolicyRegistry registry = new PolicyRegistry();
            PrintStream stdout = System.out;
            if (list) {
                // It lists and exits: a run flag beside it would be ignored, so it is refused naming the flag.
                for (CommandLine.Model.OptionSpec o : spec.commandLine().getParseResult().matchedOptions()) {
                    if (!o.longestName().equals("--list-policies")) {
                        return usageError("--list-policies lists the policies and workloads and runs nothing; it takes "
                                + "no " + o.longestName());
                    }
                }
                stdout.println("policies:  " + String.join(", ", registry.names()));
                stdout.println("workloads:");
                int width = Workloads.names().stream().mapToInt(String::length).max().orElse(0);
                for (String name : Workloads.names()) {
                    stdout.printf(Locale.ROOT, "  %-" + width + "s  %s%n", name, Workloads.named(name).description());
                }
                return 0;
            }
            // Everything the user gave is checked and the requests loaded before the first run, so a bad
            // value (or a bad trace line) is one line and exit 2, never a stack trace after hours of runs.
            String stray = emptyItem();
            if (stray != null) {
                return usageError(stray);
            }
            BenchSpec bench;
            List<SimRequest> base;
            SeedList seeds;
            policies = policies.stream().map(String::strip).toList(); // "round-robin, dynamo" names two policies
            try {
                seeds = SeedList.parse(seed);
                // the loads are checked here, before the output directory check names a file after each of them
                bench = new BenchSpec(trace, workload, limit, workers, loads, policies, seeds.first(), hbmTokens, cpuTokens,
                        pcieGbps == null ? null : pcieGbps * 1e9, nvmeTokens, nvmeGbps == null ? null : nvmeGbps * 1e9,
                        warmUp);
                OutputDirectory.check(out, seeds, requestLogNames());
                BenchRunner.requireKnown(registry, policies);
                // Not around the runs: a simulator bug there should still show its stack trace (exit 1).
                base = BenchRunner.requests(bench, BenchRunner.engine(bench));
            } catch (IllegalArgumentException | UncheckedIOException e) {
                return usageError(e.getMessage());
            }
            PrintWriter err = spec.commandLine().getErr();
            List<String> notes = BenchRunner.optionNotes(bench, BenchRunner.engine(bench));
            for (String note : notes) {
                err.println("tierroute bench routing: note: " + note);
            }
            err.flush();
            if (limit > 0 && base.size() < limit) {
                System.err.println("tierroute bench routing: --limit " + limit + " asks for more requests than "
                        + bench.source() + " has; replaying all " + base.size());
            }
            List<String> left;
            try {
                left = OutputDirectory.leftovers(out, seeds, requestLogNames());
            } catch (IOException e) { // only a note: the write check below says whether --out can be used
                left = List.of();
            }
            if (!left.isEmpty()) {
                System.err.println("tierroute bench routing: note: --out " + out + " also holds reports of an earlier run "
                        + "that this one does not replace: " + String.join(", ", left));
            }
            try {
                Files.createDirectories(out);
            } catch (IOException e) {
                return usageError("--out " + out + " cannot be created (" + IoErrors.describe(e) + ")");
            }
            try { // now, not after hours of runs when the reports are written
                Files.delete(Files.createTempFile(out, ".tierroute-write-check", ""));
            } catch (IOException e) {
                return usageError("--out " + out + " is not writable (" + IoErrors.describe(e) + ")");
            }
            ProgressBar progress = ProgressBar.stderr();
            BenchRunner runner = new BenchRunner(registry, progress).warnings(w -> {
                progress.clearFrame(); // on a terminal the bar's line is blanked: the warning starts a line of its own
                err.println("tierroute bench routing: warning: " + w);
                err.flush();
            });
            String title = "tierroute bench routing: " + bench.source() + ", " + Plural.of(workers, "worker");
            try {
                return run(runner, progress, bench, seeds, base, title, notes, stdout);
            } catch (ReportWriteException e) {
                return writeError(e.getMessage());
            } catch (UncheckedIOException e) { // a request log, written after its run
                if (e.getCause() instanceof ReportWriteException w) {
                    return writeError(w.getMessage());
                }
                throw e;
            } catch (IOException e) { // a directory or move of the reports' own (FileSystemException: names its path)
                return writeError("cannot write the reports: " + IoErrors.describe(e));
            }
        }

        /** The runs and their reports, once the command line is checked and the requests loaded. */
        private int run(BenchRunner runner, ProgressBar progress, BenchSpec bench, SeedList seeds, List<SimRequest> base,
                        String title, List<String> notes, PrintStream stdout) throws IOException {
            if (seeds.size() > 1) {
                // The summary files follow the sweep: stopped after k seeds, they hold those k.
                PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
                SeedSummary summary = new SeedSweep(runner, progress, requestLogs).seedLines(stdout).commandLine(commandLine())
                        .afterEachSeed((soFar, done, total) -> writeSummary(quiet,
                                title + " (so far: " + done + " of " + total + " seeds)", soFar, out))
                        .run(bench, seeds, base, title, out);
                writeSummary(stdout, title, summary, out);
                System.err.println("wrote " + out.resolve("seed-<N>") + "/ for each seed, "
                        + out.resolve(SummaryCsvReporter.FILE) + ", " + out.resolve(SummaryTableReporter.FILE)
                        + ", " + out.resolve(SummaryHtmlReporter.FILE) + " and " + out.resolve(RunParameters.FILE));
                return 0;
            }
            if (requestLogs) {
                runner.requestLogs(out);
            }
            List<RunReport> reports = runner.run(bench, base);
            RunParameters run = RunParameters.of(commandLine(), bench, BenchRunner.engine(bench), base.size(), notes);
            Reporter.writeAll(stdout, title, run, reports, out);
            System.err.println("wrote " + String.join(", ", Reporter.FILES.stream().map(f -> out.resolve(f).toString()).toList()));
            return 0;
        }

        /** The command as the user gave it, each argument quoted for a shell where it needs it. */
        private String commandLine() {
            List<String> words = new java.util.ArrayList<>(List.of("tierroute"));
            spec.commandLine().getParseResult().originalArgs().forEach(a -> words.add(ShellWords.quote(a)));
            return String.join(" ", words);
        }

        /** Written beside and moved into place: a Ctrl-C mid-write leaves the previous seed's files whole. */
        private static void writeSummary(PrintStream tables, String title, SeedSummary summary, Path out)
                throws IOException {
            Path staging = Files.createDirectories(out.resolve(OutputDirectory.SUMMARY_STAGING));
            try {
                new SummaryTableReporter(tables).write(title, summary, staging);
                new SummaryCsvReporter().write(summary, staging);
                new SummaryHtmlReporter().write(title, summary, staging);
                summary.run().write(staging);
            } catch (ReportWriteException e) {
                // name the file the user will look for, not the staging copy, and leave no staging behind
                Path failed = out.resolve(staging.relativize(e.file()));
                deleteStaging(staging);
                throw new ReportWriteException(failed, e.getCause());
            }
            for (String f : List.of(SummaryTableReporter.FILE, SummaryCsvReporter.FILE, SummaryHtmlReporter.FILE,
                    RunParameters.FILE)) {
                Files.move(staging.resolve(f), out.resolve(f), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            Files.delete(staging);
        }

        private static void deleteStaging(Path staging) throws IOException {
            try (var files = Files.list(staging)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(staging);
        }

        /**
         * Exit code 1 with one line on stderr: a report or request log that could not be written (a full disk), not a
         * stack trace. The benchmark stops there: the reports after it, and a sweep's later seeds, are not written.
         */
        private int writeError(String message) {
            spec.commandLine().getErr().println("tierroute bench routing: " + message);
            spec.commandLine().getErr().flush();
            return 1;
        }

        /**
         * What is wrong when a list option has an empty item, else null: picocli drops a trailing one ("--load 1," is
         * [1]), so a stray comma would change the sweep unsaid.
         */
        private String emptyItem() {
            String[][] lists = {{"--load", "values"}, {"--policies", "names"}};
            for (String[] list : lists) {
                CommandLine.Model.OptionSpec o = spec.commandLine().getParseResult().matchedOption(list[0]);
                for (String v : o == null ? List.<String>of() : o.originalStringValues()) {
                    if (java.util.Arrays.stream(v.split(",", -1)).anyMatch(String::isBlank)) {
                        return list[0] + " must be a list of " + list[1] + " with no empty item (got " + v + ")";
                    }
                }
            }
            return null;
        }

        /** Exit code 2 with one line on stderr: picocli's usage dump would bury the reason. */
        private int usageError(String message) {
            // One line even when a parser's message spans several (Jackson's adds its location on a second).
            spec.commandLine().getErr().println("tierroute bench routing: " + String.valueOf(message).replaceAll("\\s*\\R\\s*", " "));
            spec.commandLine().getErr().flush();
            return 2;
        }
    }
}
