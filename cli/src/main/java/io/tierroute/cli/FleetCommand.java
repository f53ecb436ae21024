package io.tierroute.cli;

import io.tierroute.deploy.kafka.KafkaClientErrors;
import io.tierroute.deploy.local.BootstrapAddresses;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.deploy.local.ProjectTopics;
import io.tierroute.schemas.Topics;
import io.tierroute.selector.server.TokenVariable;
import io.tierroute.sim.bench.ProgressBar;
import io.tierroute.sim.live.LiveWorkload;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code tierroute fleet}: the live simulated fleet of {@code demo}, routed by the selector, on an operator's Kafka
 * (e.g. {@code cluster up}'s), so that a fitting job submitted to a session cluster has engine telemetry, KV events,
 * completion logs and decisions to fit, and the dashboard and {@code snapshots} have snapshots to show.
 */
@Command(name = "fleet",
        mixinStandardHelpOptions = true,
        versionProvider = TierrouteCommand.Version.class,
        description = {"Run the simulated fleet live on a Kafka with the tierroute topics, routed by the selector: "
                + "what a fitting job on a Flink cluster fits.",
                "The fleet simulator in live mode (paced to the wall clock, --time-scale simulated seconds per second) "
                        + "publishes what real engines publish: engine telemetry (1 Hz per worker) to "
                        + Topics.TELEMETRY + ", KV event batches to " + Topics.KV_EVENTS + ", completion logs to "
                        + Topics.COMPLETIONS + ". The real Selector routes it, its parameters hot-reloaded from "
                        + Topics.PARAMS + " / " + Topics.CONTROL + ", its decisions published to " + Topics.DECISIONS
                        + ". Its HTTP API (--selector-port) serves GET /metrics, /v1/workers, /v1/params and the admin "
                        + "calls (drain, undrain, health; the --token-env token), POST /v1/route only with ?dry_run=true.",
                "Typical use, after 'tierroute cluster up' and 'tierroute submit': tierroute fleet --bootstrap "
                        + "127.0.0.1:9092 --workload chat. Prints a status line on stderr (requests routed, TTFT, the "
                        + "snapshot served) and, on Ctrl-C, --duration or the end of the requests, a summary. The Kafka "
                        + "clients connect without authentication, as to the local cluster, unless --command-config gives "
                        + "their settings.", ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:stopped cleanly at --duration or the end of the requests, every fleet record and decision "
                + "acknowledged by Kafka", TierrouteCommand.STOPPED_BY_SIGNAL,
                "1:could not start (Kafka unreachable or refusing the client, a tierroute topic missing, a port taken), "
                        + "stopped during start-up, the simulation failed, or fleet records or decisions were not all "
                        + "acknowledged by Kafka within the stop's wait (the stop line says how many)", "2:bad command line"})
final class FleetCommand implements Callable<Integer> {

    @Option(names = {"-b", "--bootstrap"}, required = true, paramLabel = "HOST:PORT",
            description = "Kafka bootstrap servers, with the tierroute topics ('cluster up' creates them).")
    String bootstrap;

    @Option(names = {"--command-config"}, paramLabel = "FILE",
            description = "Kafka client properties (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.* ...) for "
                    + "a secured broker, as for Kafka's own tools; every client of the run gets them (the selector's "
                    + "loader and decisions, the fleet's producer). The principal needs READ on " + Topics.PARAMS + " and "
                    + Topics.CONTROL + ", WRITE on the others, DESCRIBE on all.")
    java.nio.file.Path commandConfig;

    @CommandLine.Mixin
    LiveFleetOptions fleet;

    @CommandLine.Mixin
    RunLengthOptions length;

    @Option(names = "--selector-port", defaultValue = "0", paramLabel = "N",
            description = "Port of the selector's HTTP API on 127.0.0.1 (default ${DEFAULT-VALUE}: any free port, printed).")
    int selectorPort;

    @Option(names = "--token-env", paramLabel = "NAME", defaultValue = "TIERROUTE_ADMIN_TOKEN",
            description = "Environment variable with the operator token of the selector API's admin calls (default "
                    + "${DEFAULT-VALUE}; unset: refused).")
    String tokenEnv;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The run's settings and requests, once every option is checked. */
    record Checked(FleetRun.Settings settings, LiveWorkload work) {}

    /** Checks every option and loads the requests; a problem is a usage error. */
    Checked check(CommandLine cl) {
        BootstrapAddress.require(bootstrap, "--bootstrap", cl);
        if (selectorPort < 0 || selectorPort > 65535) {
            throw new CommandLine.ParameterException(cl, "--selector-port must be in [0, 65535], got " + selectorPort);
        }
        length.validate(spec);
        if (tokenEnv.isBlank()) { // else "$ is unset": no variable can have that name
            throw new CommandLine.ParameterException(cl, "--token-env must not be empty");
        }
        fleet.validate(cl);
        Map<String, String> kafkaClient = new HashMap<>();
        KafkaClientConfig.load(commandConfig, KafkaClientConfig.FLEET, cl)
                .forEach((k, v) -> kafkaClient.put(k.toString(), v.toString()));
        LiveWorkload work = fleet.load(cl);
        return new Checked(new FleetRun.Settings(bootstrap, kafkaClient, fleet.workers, fleet.timeScale, fleet.scope, fleet.seed,
                selectorPort, TokenVariable.read(tokenEnv, System::getenv), tokenEnv, fleet.trace() != null), work);
    }

    /**
     * A part's refusal to start: a Kafka client keeps why it refused to be built in its causes ("Failed to construct
     * kafka producer" over "delivery.timeout.ms should be …"); any other part's message is its own words.
     */
    private static String startFailure(RuntimeException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof org.apache.kafka.common.KafkaException) {
                return KafkaClientErrors.describe(e);
            }
        }
        return e.getMessage();
    }

    /** What the fleet publishes to and its selector reads. */
    static final List<String> USED_TOPICS = List.of(Topics.PARAMS, Topics.CONTROL, Topics.DECISIONS, Topics.TELEMETRY,
            Topics.KV_EVENTS, Topics.COMPLETIONS);

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Checked checked = check(spec.commandLine());
        FleetRun.Settings s = checked.settings();
        try {
            PortFlags.requireFree(s.selectorPort(), "--selector-port");
        } catch (LoopbackPorts.PortTakenException e) {
            err.println("tierroute fleet: " + e.getMessage());
            err.flush();
            return 1;
        }
        Optional<String> unresolvable = KafkaAnswers.unresolvable(s.bootstrap());
        if (unresolvable.isPresent()) {
            err.println("tierroute fleet: " + unresolvable.get());
            err.flush();
            return 1;
        }
        // Only a TCP probe: a broker that wants SASL or TLS answers no plain client, so whether it answers this run's
        // clients is for the topic listing below, made with their settings, to tell.
        if (!BootstrapAddresses.anyListening(s.bootstrap())) {
            err.println("tierroute fleet: " + KafkaAnswers.notAnswering(s.bootstrap()));
            err.flush();
            return 1;
        }
        List<String> missing;
        try {
            missing = ProjectTopics.missing(s.bootstrap(), s.kafkaClient(), USED_TOPICS);
        } catch (ProjectTopics.Unlisted e) {
            err.println("tierroute fleet: " + e.getMessage() + (e.settingsRefused()
                    ? "; check --bootstrap" + (commandConfig == null ? "" : " and the client settings in " + commandConfig)
                    : commandConfig == null
                    ? "; if it requires authentication (SASL/TLS), pass its client settings with --command-config FILE"
                    : "; check the client settings in " + commandConfig));
            err.flush();
            return 1;
        }
        if (!missing.isEmpty()) {
            err.println("tierroute fleet: Kafka at " + s.bootstrap() + " has no topic " + String.join(", ", missing)
                    + "; 'tierroute cluster up' creates them (their policies: Topics.specs(), deploy/README.md)");
            err.flush();
            return 1;
        }
        out.println("tierroute fleet: starting the selector and " + Plural.of(s.workers(), "simulated worker") + " on Kafka "
                + s.bootstrap() + " ...");
        out.flush();
        try (StopOnCtrlC stop = new StopOnCtrlC("tierroute-fleet-shutdown")) {
            FleetRun run;
            try {
                run = FleetRun.start(s, checked.work(), System.nanoTime(), stop::requested);
            } catch (RuntimeException e) {
                if (stop.requested()) { // Ctrl-C; a part may also have failed as the JVM shut down
                    out.println("tierroute fleet: stopped during start-up (Ctrl-C or SIGTERM); everything it had started is stopped");
                    out.flush();
                } else {
                    err.println("tierroute fleet: cannot start: " + startFailure(e)
                            + (commandConfig != null && ProjectTopics.refusedSettings(e)
                            ? "; check --bootstrap and the client settings in " + commandConfig : ""));
                    err.flush();
                }
                return 1;
            }
            try {
                if (stop.requested()) {
                    out.println("tierroute fleet: stopped during start-up (Ctrl-C or SIGTERM); everything it had started is stopped");
                    out.flush();
                    return 1;
                }
                run.startFleet();
                out.println("  selector API:     " + run.selectorUri() + "   (GET /metrics, /v1/workers, /v1/params; "
                        + DemoCommand.adminNote(s.token(), tokenEnv) + ")");
                out.println("  fleet:            " + run.workloadDescription() + ", time scale " + s.timeScale() + "x, scope "
                        + s.scope());
                out.println(length.duration == null ? "Ctrl-C to stop."
                        : "Stopping after " + RunLengthOptions.said(length.duration) + " of replay (or Ctrl-C).");
                out.flush();
                boolean terminal = ProgressBar.stderrIsTerminal();
                return LiveStatus.run("fleet", run, stop, terminal, length.statusInterval(terminal), length.duration,
                        LiveStatus.Watched.NONE, out, err);
            } finally {
                run.close(); // before the hook lets the JVM go
            }
        }
    }
}
