package io.tierroute.cli;

import io.tierroute.dashboards.Dashboard;
import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.deploy.local.KafkaBrokerProcess;
import io.tierroute.deploy.local.LocalClasspath;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.deploy.local.ProjectTopics;
import io.tierroute.jobs.FittingJob;
import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.KafkaWiring;
import io.tierroute.schemas.Topics;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.kafka.DecisionPublisher;
import io.tierroute.selector.kafka.ParameterLoader;
import io.tierroute.selector.kafka.SnapshotConverter;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.server.EmbeddedSelectorApi;
import io.tierroute.sim.live.FleetPublisher;
import io.tierroute.sim.live.LiveFleet;
import io.tierroute.sim.live.LiveWorkload;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Everything {@code tierroute demo} runs, on loopback, in this JVM: an embedded KRaft broker with the
 * project's topics, the fitting job on a Flink MiniCluster with its web UI, the selector (the real
 * {@code Selector}; parameters hot-reloaded by a {@code ParameterLoader} from tierroute.params /
 * tierroute.control; decisions to tierroute.decisions through the {@code DecisionPublisher}), the fleet
 * simulator in live mode routed by that selector and publishing telemetry, KV events and completions,
 * that selector's HTTP API ({@link DemoSelectorApi}), and the dashboard. {@link #close} stops all of it
 * and deletes the temporary directories; a second demo in the same JVM starts from nothing.
 */
final class Demo implements AutoCloseable {

    /**
     * What to run. Ports: 0 = any free port; {@code kafkaPort} 0 = the embedded broker (whose listener port
     * cannot be pinned), else a Kafka broker process ({@link KafkaBrokerProcess}) listening on that port.
     */
    record Options(Path trace, String workload, int workers, double timeScale, double load, int limit, long seed,
                   String scope, int flinkUiPort, int dashboardPort, int minSamples, double gateMinR2, double gateMaxJumpFactor,
                   String token, String tokenEnv, int kafkaPort, int selectorPort) {
        /** With the embedded broker and the selector's API on any free port. */
        Options(Path trace, String workload, int workers, double timeScale, double load, int limit, long seed,
                String scope, int flinkUiPort, int dashboardPort, int minSamples, double gateMinR2, double gateMaxJumpFactor,
                String token, String tokenEnv) {
            this(trace, workload, workers, timeScale, load, limit, seed, scope, flinkUiPort, dashboardPort, minSamples,
                    gateMinR2, gateMaxJumpFactor, token, tokenEnv, 0, 0);
        }

        /** Never the operator token: whatever logs or prints the options must not leak it. */
        @Override
        public String toString() {
            return "Options[trace=" + trace + ", workload=" + workload + ", workers=" + workers + ", timeScale=" + timeScale
                    + ", load=" + load + ", limit=" + limit + ", seed=" + seed + ", scope=" + scope + ", flinkUiPort="
                    + flinkUiPort + ", dashboardPort=" + dashboardPort + ", minSamples=" + minSamples + ", gateMinR2="
                    + gateMinR2 + ", gateMaxJumpFactor=" + gateMaxJumpFactor + ", token="
                    + (token == null || token.isEmpty() ? "unset" : "set") + ", tokenEnv=" + tokenEnv + ", kafkaPort="
                    + kafkaPort + ", selectorPort=" + selectorPort + "]";
        }
    }

    /** Ctrl-C arrived while the demo was starting; what had started is stopped. */
    static final class StartStoppedException extends RuntimeException {
        StartStoppedException() {
            super("stopped during start-up");
        }
    }

    /** A port given on the command line that is not free. */
    static final class PortTakenException extends RuntimeException {
        PortTakenException(String message) {
            super(message);
        }
    }

    private final Options opts;
    /** The requests, loaded (and a trace checked) before anything starts. */
    private final LiveWorkload work;
    /** Polled between the start-up's steps and in its waits: Ctrl-C may come at any time. */
    private final BooleanSupplier stopRequested;
    private final List<AutoCloseable> closers = new ArrayList<>();
    private Path tmp;
    private String bootstrap;
    private MiniCluster flink;
    private JobID jobId;
    private URI flinkUi;
    private ParameterStore store;
    private ParameterLoader loader;
    private DecisionPublisher decisions;
    private FleetPublisher fleetPublisher;
    private LiveFleet fleet;
    private Dashboard dashboard;
    private EmbeddedSelectorApi selectorApi;
    private String workloadDescription;
    private long startedNanos;

    private Demo(Options opts, LiveWorkload work, BooleanSupplier stopRequested) {
        this.opts = opts;
        this.work = work;
        this.stopRequested = stopRequested;
    }

    /** Fails with a message naming {@code flag} when {@code port} (not 0) cannot be bound on loopback. */
    static void requireFree(int port, String flag) {
        if (port == 0) {
            return;
        }
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        } catch (IOException e) {
            throw new PortTakenException("port " + port + " (" + flag + ") is taken on 127.0.0.1: " + e.getMessage()
                    + "; pick another with " + flag + " N (0 = any free port)");
        }
    }

    /** Starts every part; on failure, stops what had started and rethrows. */
    static Demo start(Options opts) throws Exception {
        return start(opts, workload(opts), () -> false);
    }

    /** The requests {@code opts} replay: its trace (a malformed line throws, naming it) or its generated workload. */
    static LiveWorkload workload(Options opts) {
        return LiveWorkload.load(opts.trace(), opts.workload(), opts.workers(), opts.load(), opts.limit(), opts.seed());
    }

    /**
     * Starts every part, giving up with {@link StartStoppedException} as soon as {@code stopRequested}
     * holds; on failure or stop, stops what had started (a Kafka broker process among them) and rethrows.
     */
    static Demo start(Options opts, LiveWorkload work, BooleanSupplier stopRequested) throws Exception {
        requireFree(opts.flinkUiPort(), "--flink-ui-port");
        requireFree(opts.dashboardPort(), "--dashboard-port");
        requireFree(opts.kafkaPort(), "--kafka-port");
        requireFree(opts.selectorPort(), "--selector-port");
        Demo d = new Demo(opts, work, stopRequested);
        try {
            d.startAll();
            return d;
        } catch (Exception | Error e) {
            d.close();
            throw e;
        }
    }

    private void checkStop() {
        if (stopRequested.getAsBoolean()) {
            throw new StartStoppedException();
        }
    }

    private void startAll() throws Exception {
        startedNanos = System.nanoTime();
        workloadDescription = work.description();
        tmp = Files.createTempDirectory("tierroute-demo-");
        closers.add(() -> deleteTree(tmp));

        // 1. Kafka with the topics: in this JVM, or a broker process on the port asked for.
        if (opts.kafkaPort() == 0) {
            EmbeddedKafka kafka = EmbeddedKafka.start();
            closers.add(kafka);
            bootstrap = kafka.bootstrapServers();
        } else {
            KafkaBrokerProcess kafka = new KafkaBrokerProcess(new KafkaBrokerProcess.Settings(tmp.resolve("kafka"),
                    opts.kafkaPort(), LoopbackPorts.free(), LocalClasspath.fromResource(Demo.class),
                    "tierroute-demo:" + tmp, Map.of()));
            closers.add(kafka);
            kafka.start(Duration.ofSeconds(120));
            bootstrap = kafka.bootstrapServers();
        }
        ProjectTopics.create(bootstrap, (short) 1);

        checkStop();
        // 2. Flink MiniCluster with the web UI (flink-runtime-web is on the classpath); the job comes in step 6.
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        conf.set(RestOptions.PORT, opts.flinkUiPort());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        // Flink's scratch space in this run's directory, deleted with it: by default the web UI leaves
        // java.io.tmpdir/flink-web-upload behind after every run.
        conf.set(CoreOptions.TMP_DIRS, tmp.resolve("flink-io").toString());
        conf.set(WebOptions.TMP_DIR, tmp.resolve("flink-web").toString());
        conf.set(WebOptions.UPLOAD_DIR, tmp.resolve("flink-web-upload").toString());
        conf.set(TaskManagerOptions.NUM_TASK_SLOTS, 2);
        flink = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(conf)
                .setNumTaskManagers(1).setNumSlotsPerTaskManager(2).build());
        flink.start();
        closers.add(flink);
        flinkUi = flink.getRestAddress().get(30, TimeUnit.SECONDS);

        checkStop();
        // 3. The selector's parameter loader and decision publisher.
        List<String> workers = LiveFleet.workerNames(opts.workers());
        KafkaSettings ks = KafkaSettings.defaults(bootstrap).withScope(opts.scope())
                .withKvEvents(new KafkaSettings.KvEvents(false, "latest"));
        store = new ParameterStore(ParameterSet.defaults(opts.workers()));
        loader = new ParameterLoader(ks, store, new SnapshotConverter(new WorkerRegistry(workers), CostParameters.DEFAULTS, 0.5))
                .start();
        closers.add(loader);
        if (!loader.awaitReady(Duration.ofSeconds(60))) {
            throw new IllegalStateException("the selector's parameter loader did not catch up with "
                    + Topics.PARAMS + " within 60 s");
        }
        decisions = new DecisionPublisher(ks, work.engines().model()).start();
        closers.add(decisions);

        checkStop();
        // 4. The live fleet, routed by the selector.
        fleetPublisher = new FleetPublisher(bootstrap, opts.workers(), work.engines().model());
        closers.add(fleetPublisher);
        fleet = new LiveFleet(work.engines(), work.requests(), opts.timeScale(), opts.scope(), store, decisions,
                fleetPublisher, opts.seed());
        closers.add(fleet);
        // The selector's HTTP API, stopped before the fleet (closers run newest first).
        selectorApi = DemoSelectorApi.start(fleet, loader, decisions, bootstrap, opts.selectorPort(), opts.token(),
                opts.tokenEnv());
        closers.add(selectorApi);

        checkStop();
        // 5. The dashboard.
        dashboard = Dashboard.start(new Dashboard.Settings(bootstrap, "127.0.0.1", opts.dashboardPort(), opts.token(),
                opts.tokenEnv(), opts.scope()));
        closers.add(dashboard::close);
        fleet.start();

        checkStop();
        // 6. The fitting job, once the fleet has completed --min-samples requests: it reads every topic from
        // the beginning, so its first snapshot is fitted on them rather than carrying DESIGN.md's defaults
        // (which the gate would then hold every later fit against).
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (fleetPublisher.completionsSent() < opts.minSamples() && !fleet.done() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            checkStop();
        }
        if (fleet.failure() != null) {
            throw new IllegalStateException("the simulation failed: " + fleet.failure(), fleet.failure());
        }
        submitJob(bootstrap);
    }

    private void submitJob(String bootstrap) throws Exception {
        JobSettings js = jobSettings(opts, bootstrap, tmp.resolve("checkpoints"));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(KafkaWiring.configuration(js));
        new FittingJob(KafkaWiring.sources(js), KafkaWiring.paramsSink(js), KafkaWiring.deadLetterSink(js), js).build(env);
        org.apache.flink.streaming.api.graph.StreamGraph streamGraph = env.getStreamGraph();
        streamGraph.setJobName(js.jobName());
        JobGraph graph = streamGraph.getJobGraph();
        graph.setJobID(new JobID());
        jobId = flink.submitJob(graph).get(60, TimeUnit.SECONDS).getJobID();
        closers.add(this::cancelJob);

        awaitJobRunning();
    }

    /**
     * The fitting job's settings for these options; JobSettings validates them (IllegalArgumentException
     * naming the flag), which is why DemoCommand calls this before anything starts.
     */
    static JobSettings jobSettings(Options opts, String bootstrap, Path checkpoints) {
        return JobSettings.builder()
                .set("bootstrap-servers", bootstrap)
                .set("job-name", "tierroute-fitting-job (demo)")
                .set("group-id", "tierroute-demo")
                .set("transactional-id-prefix", "tierroute-demo-" + UUID.randomUUID())
                .set("parallelism", 1)
                .set("checkpoint-interval", Duration.ofMillis(500)) // the job's default: parameters live ≤ 2 s after a record
                .set("checkpoint-dir", checkpoints.toUri().toString())
                .set("publish-interval", Duration.ofSeconds(1))
                .set("forest-interval", Duration.ofSeconds(15))
                .set("forest-trees", 10)
                .set("min-forest-rows", Math.max(opts.minSamples(), 200))
                .set("min-fit-samples", opts.minSamples())
                .set("gate-min-samples", (long) opts.minSamples())
                .set("gate-min-r2", opts.gateMinR2())
                .set("gate-max-jump-factor", opts.gateMaxJumpFactor())
                .set("idleness", Duration.ofSeconds(2))
                .build();
    }

    private void awaitJobRunning() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            JobStatus s = flink.getJobStatus(jobId).get(10, TimeUnit.SECONDS);
            if (s == JobStatus.RUNNING) {
                return;
            }
            if (s.isGloballyTerminalState() || System.nanoTime() > deadline) {
                throw new IllegalStateException("the fitting job is " + s + ", not RUNNING");
            }
            Thread.sleep(100);
            checkStop();
        }
    }

    private void cancelJob() throws Exception {
        if (jobId != null && !flink.getJobStatus(jobId).get(10, TimeUnit.SECONDS).isGloballyTerminalState()) {
            flink.cancelJob(jobId).get(30, TimeUnit.SECONDS);
        }
    }

    String bootstrap() { return bootstrap; }
    URI flinkUi() { return flinkUi; }
    URI dashboardUri() { return dashboard.uri(); }
    URI selectorUri() { return selectorApi.uri(); }
    LiveFleet fleet() { return fleet; }
    ParameterStore store() { return store; }
    DecisionPublisher decisions() { return decisions; }
    String workloadDescription() { return workloadDescription; }

    /** Whether the fitting job is still running. */
    String jobStatus() {
        try {
            return flink.getJobStatus(jobId).get(5, TimeUnit.SECONDS).name();
        } catch (Exception e) {
            return "UNKNOWN";
        }
    }

    /** Active snapshot version per scope as the selector's loader sees them, e.g. {@code default=v3}. */
    String versions() {
        Map<String, ParameterLoader.ScopeStatus> scopes = loader.status().scopes();
        if (scopes.isEmpty()) {
            return opts.scope() + "=defaults";
        }
        StringBuilder b = new StringBuilder();
        scopes.values().stream().sorted(Comparator.comparing(ParameterLoader.ScopeStatus::scope)).forEach(s -> {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(s.scope()).append('=').append(s.activeVersion() == null ? "-" : "v" + s.activeVersion());
            if (s.pinned()) {
                b.append("(pinned)");
            }
        });
        return b.toString();
    }

    /** The live status line. */
    String statusLine() {
        ParameterSet p = store.current();
        return String.format(Locale.ROOT, "[%4.0fs | sim %6.0fs] routed %d, done %d | TTFT p50 %s p99 %s | snapshots %s (serving v%d) | α_p %.3g α_d %.3g",
                (System.nanoTime() - startedNanos) / 1e9, fleet.virtualSeconds(), fleet.routed(), fleet.finished(),
                secs(fleet.ttftSeconds(0.5)), secs(fleet.ttftSeconds(0.99)), versions(), p.version(),
                p.cost().alphaP(), p.cost().alphaD());
    }

    private static String secs(double s) {
        return Double.isNaN(s) ? "-" : String.format(Locale.ROOT, "%.3fs", s);
    }

    /**
     * Waits (at most {@code max}) until every decision offered so far was acknowledged, dropped or failed, so that
     * the summary counts the ones still on their way to the broker as such rather than as unacknowledged.
     */
    void awaitDecisionsSettled(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (decisionsInFlight() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    private long decisionsInFlight() {
        return decisions.offered() - decisions.acknowledged() - decisions.droppedBufferFull() - decisions.droppedClosed()
                - decisions.sendFailed() - decisions.encodeFailed();
    }

    /** The summary printed at the end. */
    List<String> summary() {
        ParameterSet p = store.current();
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "ran %.0f s wall, %.0f s simulated; %s", (System.nanoTime() - startedNanos) / 1e9,
                fleet.virtualSeconds(), workloadDescription));
        lines.add(String.format(Locale.ROOT, "requests: %d routed, %d completed, %d failed (of %d in the %s)",
                fleet.routed(), fleet.finished(), fleet.failed(), fleet.totalRequests(),
                opts.trace() != null ? "trace" : "workload"));
        if (fleet.held() > 0) {
            lines.add(fleet.held() + " arrivals waited while every worker was drained or unhealthy (selector API)");
        }
        lines.add(String.format(Locale.ROOT, "TTFT: p50 %s, p90 %s, p99 %s", secs(fleet.ttftSeconds(0.5)),
                secs(fleet.ttftSeconds(0.9)), secs(fleet.ttftSeconds(0.99))));
        long lost = decisions.droppedBufferFull() + decisions.droppedClosed() + decisions.sendFailed() + decisions.encodeFailed();
        lines.add(String.format(Locale.ROOT, "decisions published: %d acknowledged of %d offered (%d dropped or failed, %d still"
                        + " in flight); fleet records: %d telemetry, %d KV batches, %d completions",
                decisions.acknowledged(), decisions.offered(), lost, decisionsInFlight(), fleetPublisher.telemetrySent(),
                fleetPublisher.kvBatchesSent(), fleetPublisher.completionsSent()));
        lines.add(String.format(Locale.ROOT, "snapshots: %s; the selector swapped %d times and ended on v%d (%s): α_p %.4g α_d %.4g",
                versions(), loader.swaps(), p.version(), p.source(), p.cost().alphaP(), p.cost().alphaD()));
        return lines;
    }

    /** Stops everything, newest first; safe to call twice. */
    @Override
    public synchronized void close() {
        for (int i = closers.size() - 1; i >= 0; i--) {
            try {
                closers.get(i).close();
            } catch (Exception e) {
                System.err.println("tierroute demo: while stopping: " + e);
            }
        }
        closers.clear();
    }

    private static void deleteTree(Path root) throws IOException {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
