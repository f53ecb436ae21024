package io.tierroute.cli;

import io.tierroute.jobs.JobSettings;

import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.selector.server.TokenVariable;
import io.tierroute.sim.bench.ProgressBar;
import io.tierroute.sim.live.LiveWorkload;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code tierroute demo}: the whole loop on loopback in one process, until Ctrl-C or --duration. */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        versionProvider = TierrouteCommand.Version.class,
        description = {"The whole loop on loopback in one process: Kafka, the fitting job on Flink, the live simulated "
                + "fleet, the selector and the dashboard.",
                "Starts an embedded Kafka broker (KRaft) with the "
                + "tierroute topics; the fitting job on a local Flink MiniCluster with its web UI; the selector (the "
                + "real Selector, parameters hot-reloaded from tierroute.params / tierroute.control, decisions "
                + "published to tierroute.decisions); the fleet simulator in live mode, paced to the wall clock and "
                + "routed by that selector, publishing engine telemetry (1 Hz per worker), KV event batches and "
                + "completion logs; the selector's HTTP API (--selector-port); and the parameter dashboard.",
                "The selector's API serves the selector that routes the fleet: GET /metrics (Prometheus), /v1/workers, "
                        + "/v1/params, /healthz; POST /v1/workers/{name}/drain, /undrain, /health with 'Authorization: "
                        + "Bearer <token>' (the --token-env token; unset: refused). The fleet is simulated, so a request "
                        + "routed from outside would never be served: POST /v1/route is answered only with ?dry_run=true "
                        + "(where a request would go and why; nothing admitted); a plain POST /v1/route and POST "
                        + "/v1/requests/events, /v1/kv-events, /v1/telemetry get 409 with a JSON error. Draining every "
                        + "worker, or marking every one unhealthy (POST /v1/workers/{name}/health), pauses the fleet until "
                        + "one can take requests again.",
                "Prints the URLs, then a status line on stderr (requests routed, TTFT p50/p99, active snapshot per "
                        + "scope, the α's served; Kafka unreachable; the fitting job's restarts and why). A failed "
                        + "fitting job restarts from its last checkpoint (a Kafka outage fails it about once a minute) "
                        + "and stops the demo only when 30 restarts in a row have failed. Stops on Ctrl-C or after "
                        + "--duration and prints a summary. Kafka listens on a loopback port, printed at the start (any "
                        + "free one; --kafka-port fixes it), and stops with the demo. Everything lives in fresh "
                        + "temporary directories that are deleted at the end.", ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:stopped cleanly at --duration or the end of the requests, every fleet record and decision "
                + "acknowledged by Kafka", TierrouteCommand.STOPPED_BY_SIGNAL,
                "1:a part could not start (e.g. a port is taken) or failed, or fleet records or decisions were not all "
                        + "acknowledged by Kafka within the stop's wait (the stop line says how many)",
                "2:bad command line"})
final class DemoCommand implements Callable<Integer> {

    @CommandLine.Mixin
    LiveFleetOptions fleet;

    @CommandLine.Mixin
    RunLengthOptions length;

    @Option(names = "--flink-ui-port", defaultValue = "8081", paramLabel = "N",
            description = "Port of the Flink web UI / REST API (default ${DEFAULT-VALUE}; 0 = any free port).")
    int flinkUiPort;

    @Option(names = "--kafka-port", defaultValue = "0", paramLabel = "N",
            description = "Run Kafka as a broker process listening on this port (default ${DEFAULT-VALUE}: an embedded "
                    + "broker on any free port). Each run starts a new, empty Kafka cluster: re-running the demo on the "
                    + "same port recreates the topics under any selector or dashboard still following them from an "
                    + "earlier run (they notice, and read the new topics from the beginning).")
    int kafkaPort;

    @Option(names = "--dashboard-port", defaultValue = "8090", paramLabel = "N",
            description = "Port of the dashboard (default ${DEFAULT-VALUE}; 0 = any free port).")
    int dashboardPort;

    @Option(names = "--selector-port", defaultValue = "8080", paramLabel = "N",
            description = "Port of the selector's HTTP API on 127.0.0.1 (default ${DEFAULT-VALUE}; 0 = any free port): "
                    + "metrics, workers, parameters, admin; route only as a dry run.")
    int selectorPort;

    @Option(names = "--min-samples", defaultValue = "100", paramLabel = "N",
            description = "Joined requests the job needs before it fits a parameter and before its gate accepts a "
                    + "snapshot (default ${DEFAULT-VALUE}; the production default is 200). The job is submitted once the "
                    + "fleet has completed this many requests, so that its first snapshot is a fit, not the defaults.")
    int minSamples;

    @Option(names = "--gate-min-r2", defaultValue = "0.3", paramLabel = "R",
            description = "The validation gate's minimum R² (default ${DEFAULT-VALUE}).")
    double gateMinR2;

    @Option(names = "--gate-max-jump-factor", defaultValue = "4", paramLabel = "F",
            description = "The validation gate's largest accepted change of a parameter against the active fitted value "
                    + "(default ${DEFAULT-VALUE}, as in production). A jump is measured from a fitted value only, so the "
                    + "first fit goes through however far it lands from DESIGN.md's defaults (α_p 1 → about 20 µs/token "
                    + "on the simulated engines).")
    double gateMaxJumpFactor;

    @Option(names = "--token-env", paramLabel = "NAME", defaultValue = "TIERROUTE_ADMIN_TOKEN",
            description = "Environment variable with the operator token for the dashboard's pin / rollback and the "
                    + "selector's drain / undrain / health (default ${DEFAULT-VALUE}; unset: read-only).")
    String tokenEnv;


    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The requests {@link #options} loaded. */
    private LiveWorkload work;

    /** What {@link #options} found wrong but not worth a refusal, or null. */
    String warning;

    Demo.Options options() {
        CommandLine cl = spec.commandLine();
        String[] flags = {"--flink-ui-port", "--dashboard-port", "--kafka-port", "--selector-port"};
        int[] ports = {flinkUiPort, dashboardPort, kafkaPort, selectorPort};
        for (int i = 0; i < ports.length; i++) {
            if (ports[i] < 0 || ports[i] > 65535) {
                throw new CommandLine.ParameterException(cl, flags[i] + " must be in [0, 65535], got " + ports[i]);
            }
            for (int j = 0; j < i; j++) {
                if (ports[i] != 0 && ports[i] == ports[j]) { // else the second part fails late, after Kafka and Flink
                    throw new CommandLine.ParameterException(cl, flags[j] + " and " + flags[i] + " are both " + ports[i]
                            + "; give each its own port (0 = any free port)");
                }
            }
        }
        length.validate(spec);
        if (tokenEnv.isBlank()) { // else "$ is unset": no variable can have that name
            throw new CommandLine.ParameterException(cl, "--token-env must not be empty");
        }
        if (!(gateMaxJumpFactor > 1)) {
            throw new CommandLine.ParameterException(cl, "--gate-max-jump-factor must be > 1, got " + gateMaxJumpFactor);
        }
        if (minSamples < 1) {
            throw new CommandLine.ParameterException(cl, "--min-samples must be >= 1, got " + minSamples);
        }
        if (!(gateMinR2 >= 0 && gateMinR2 <= 1)) {
            throw new CommandLine.ParameterException(cl, "--gate-min-r2 must be in [0, 1], got " + gateMinR2);
        }
        fleet.validate(cl);
        Demo.Options o = new Demo.Options(fleet.trace(), fleet.workload, fleet.workers, fleet.timeScale, fleet.load,
                fleet.limit, fleet.seed, fleet.scope, flinkUiPort,
                dashboardPort, minSamples, gateMinR2, gateMaxJumpFactor, TokenVariable.read(tokenEnv, System::getenv),
                tokenEnv, kafkaPort, selectorPort);
        // The job's own checks run only after Kafka, Flink and --min-samples requests: run them now too.
        try {
            Demo.jobSettings(o, "127.0.0.1:9092", Path.of("checkpoints").toAbsolutePath());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
        work = fleet.load(cl);
        // The job fits nothing on fewer than --min-samples requests. A warning, not a refusal: a start-up kept waiting
        // for them is how a test stops the demo during its start-up.
        int requests = work.requests().size();
        warning = requests >= minSamples ? null : "the demo replays " + requests + " requests"
                + (fleet.limit > 0 ? " (--limit " + fleet.limit + ")" : "") + ", fewer than --min-samples " + minSamples
                + ": the fitting job will never fit a parameter; raise --limit or lower --min-samples";
        return o;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Demo.Options o = options();
        if (warning != null) {
            err.println("tierroute demo: warning: " + warning);
            err.flush();
        }
        out.println("tierroute demo: starting Kafka, Flink, the fitting job, the selector, the fleet and the dashboard ...");
        out.flush();
        // In place before the first part starts: Ctrl-C during the start-up (half a minute on a busy machine) must
        // stop what had started, e.g. the Kafka broker process of --kafka-port.
        Demo demo = null;
        try (StopOnCtrlC stop = new StopOnCtrlC("tierroute-demo-shutdown")) {
            try {
                demo = Demo.start(o, work, stop::requested);
            } catch (LoopbackPorts.PortTakenException e) {
                err.println("tierroute demo: " + e.getMessage());
                err.flush();
                return 1;
            } catch (Exception e) {
                if (stop.requested()) { // Ctrl-C; a part may also have failed as the JVM shut down
                    out.println("tierroute demo: stopped during start-up (Ctrl-C or SIGTERM); everything it had started is stopped");
                    out.flush();
                } else {
                    // A part's own refusal (a stale list of the broker's jars, a broker that did not start) is its
                    // message; anything else keeps its class, which may be all it says.
                    err.println("tierroute demo: cannot start: " + (e instanceof IllegalStateException
                            && e.getMessage() != null ? e.getMessage() : e));
                    err.flush();
                }
                return 1;
            }
            try {
                return run(demo, o.token(), stop, out, err);
            } finally {
                demo.close(); // before the hook lets the JVM go
            }
        }
    }

    /** What the selector API's line says of admin calls: they need the token, or are refused when it is unset. */
    static String adminNote(String token, String tokenEnv) {
        return token == null || token.isEmpty()
                ? "$" + tokenEnv + " is unset: admin calls (drain, undrain, health) are refused"
                : "admin calls need $" + tokenEnv;
    }

    /**
     * The command that lists the demo's snapshots: with {@code --scope} unless the scope is the default, the one
     * 'snapshots list' reads without it (as {@link FleetRun} suggests 'snapshots show').
     */
    static String snapshotsList(String bootstrap, String scope) {
        return "bin/tierroute snapshots list --bootstrap " + bootstrap
                + ("default".equals(scope) ? "" : " --scope " + ShellWords.quote(scope));
    }

    /** Prints the URLs and the status line until Ctrl-C, --duration or a failure, then the summary; 0 if clean. */
    private int run(Demo demo, String token, StopOnCtrlC stop, PrintWriter out, PrintWriter err)
            throws InterruptedException {
        out.println("  Flink web UI:     " + demo.flinkUi());
        out.println("  dashboard:        " + demo.dashboardUri());
        out.println("  Kafka bootstrap:  " + demo.bootstrap() + "   (e.g. " + snapshotsList(demo.bootstrap(), fleet.scope)
                + ")");
        out.println("  selector API:     " + demo.selectorUri() + "   (the selector routing the fleet: GET /metrics, /v1/workers, "
                + "/v1/params; " + adminNote(token, tokenEnv) + "; POST /v1/route only with ?dry_run=true)");
        out.println("  fleet:            " + demo.workloadDescription() + ", time scale " + fleet.timeScale + "x");
        out.println((length.duration == null ? "Ctrl-C to stop."
                : "Stopping after " + RunLengthOptions.said(length.duration) + " of replay (or Ctrl-C)."));
        out.flush();
        boolean terminal = ProgressBar.stderrIsTerminal();
        return LiveStatus.run("demo", demo.fleetRun(), stop, terminal, length.statusInterval(terminal), length.duration,
                demo.job(), out, err);
    }

    /** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, or an ISO-8601 duration. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String v) {
            Duration d = parse(v);
            // Past this a deadline in nanoseconds overflows (292 years); no option means anything near it.
            if (d.compareTo(RunLengthOptions.MAX_DURATION) > 0) {
                throw new CommandLine.TypeConversionException("'" + v + "' is longer than "
                        + RunLengthOptions.MAX_DURATION.toDays() + " days");
            }
            return d;
        }

        /**
         * The fitting job's short forms ({@link JobSettings#parseDuration}: 500ms, 30s, 5m, 1h, 2d, ISO 8601), one
         * parser for both, but for a bare number: the job reads it as milliseconds, a command line refuses it (is
         * {@code --duration 90} seconds or minutes?).
         */
        private static Duration parse(String v) {
            String s = v.trim();
            try {
                if (s.isEmpty() || s.chars().allMatch(Character::isDigit)) {
                    throw new IllegalArgumentException("no unit");
                }
                return JobSettings.parseDuration(s);
            } catch (RuntimeException e) {
                throw new CommandLine.TypeConversionException("'" + v + "' is not a duration (e.g. 500ms, 30s, 5m, 1h, 2d, PT30S)");
            }
        }
    }
}
