package io.tierroute.cli;

import io.tierroute.sim.bench.BenchRunner;
import io.tierroute.sim.bench.BenchSpec;
import io.tierroute.sim.bench.CsvReporter;
import io.tierroute.sim.bench.HtmlReporter;
import io.tierroute.sim.bench.ProgressBar;
import io.tierroute.sim.bench.RunReport;
import io.tierroute.sim.bench.TableReporter;
import io.tierroute.sim.policy.PolicyRegistry;
import io.tierroute.sim.workload.Workloads;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
                    "Writes results.txt, results.csv and report.html (TTFT CDFs, load-latency curves) to --out; "
                            + "prints the tables; shows progress on stderr.", ""},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:done", "1:a run failed", "2:bad command line (unknown policy, workload or file)"})
    static final class Routing implements Callable<Integer> {

        @Option(names = "--trace", paramLabel = "FILE",
                description = "Trace to replay: Mooncake .jsonl (512-token block ids) or Azure .csv.")
        Path trace;

        @Option(names = "--workload", paramLabel = "NAME", description = "Generated workload instead of a trace: "
                + "llmd-blog, cpu-overflow, agentic, agentic-pcie, chat.")
        String workload;

        @Option(names = "--workers", defaultValue = "8", paramLabel = "N", description = "Engine workers (default ${DEFAULT-VALUE}).")
        int workers;

        @Option(names = "--load", split = ",", defaultValue = "1", paramLabel = "L1,L2",
                description = "Load factors: arrival-rate multipliers (default ${DEFAULT-VALUE}).")
        List<Double> loads;

        @Option(names = "--policies", split = ",", defaultValue = "round-robin,least-loaded,tierroute-default,oracle",
                paramLabel = "a,b", description = "Policies to compare (default ${DEFAULT-VALUE}); --list-policies shows all.")
        List<String> policies;

        @Option(names = "--limit", defaultValue = "0", paramLabel = "N", description = "Replay only the first N requests (0: all).")
        int limit;

        @Option(names = "--seed", defaultValue = "1", description = "Seed of the workload and the policies (default ${DEFAULT-VALUE}).")
        long seed;

        @Option(names = "--hbm-tokens", paramLabel = "T", description = "HBM KV tokens per worker (default 262144).")
        Long hbmTokens;

        @Option(names = "--cpu-tokens", paramLabel = "T", description = "CPU-tier KV tokens per worker, 0 = no CPU tier (default 1048576).")
        Long cpuTokens;

        @Option(names = "--pcie-gbps", paramLabel = "GB/s", description = "Host-to-device link bandwidth in GB/s (default 64).")
        Double pcieGbps;

        @Option(names = "--warm-up", defaultValue = "0.3", paramLabel = "F",
                description = "Share of the requests replayed in the warm-up run of fitted policies (default ${DEFAULT-VALUE}).")
        double warmUp;

        @Option(names = "--out", defaultValue = "bench-out", paramLabel = "DIR", description = "Output directory (default ${DEFAULT-VALUE}).")
        Path out;

        @Option(names = "--request-logs", description = "Also write each run's per-request completion log "
                + "(requests-<policy>-load<L>.csv: worker, queue wait, tier load, prefill, decode, hits, preemptions) to --out.")
        boolean requestLogs;

        @Option(names = "--list-policies", description = "List the registered policies and workloads, then exit.")
        boolean list;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PolicyRegistry registry = new PolicyRegistry();
            PrintStream stdout = System.out;
            if (list) {
                stdout.println("policies:  " + String.join(", ", registry.names()));
                stdout.println("workloads: " + String.join(", ", Workloads.names()));
                return 0;
            }
            BenchSpec bench;
            try {
                if (trace != null && !Files.isRegularFile(trace)) {
                    throw new IllegalArgumentException("trace file " + trace + " does not exist");
                }
                bench = new BenchSpec(trace, workload, limit, workers, loads, policies, seed, hbmTokens, cpuTokens,
                        pcieGbps == null ? null : pcieGbps * 1e9, warmUp);
                for (String p : policies) {
                    if (!registry.contains(p)) {
                        throw new IllegalArgumentException("unknown policy '" + p + "'; known: " + String.join(", ", registry.names()));
                    }
                }
                if (workload != null) {
                    Workloads.named(workload);
                }
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            Files.createDirectories(out);
            BenchRunner runner = new BenchRunner(registry, new ProgressBar(System.err));
            if (requestLogs) {
                runner.requestLogs(out);
            }
            List<RunReport> reports = runner.run(bench);
            String title = "tierroute bench routing: " + bench.source() + ", " + workers + " workers";
            new TableReporter(stdout).write(title, reports, out);
            new CsvReporter().write(title, reports, out);
            new HtmlReporter().write(title, reports, out);
            System.err.println("wrote " + out.resolve("results.csv") + " and " + out.resolve("report.html"));
            return 0;
        }
    }
}
