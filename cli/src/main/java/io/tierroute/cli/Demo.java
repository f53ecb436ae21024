package io.tierroute.cli;

import io.tierroute.dashboards.Dashboard;
import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.dashboards.history.VersionRecord;
import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.deploy.local.KafkaBrokerProcess;
import io.tierroute.deploy.local.LocalClasspath;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.deploy.local.ProjectTopics;
import io.tierroute.deploy.local.TreeDeletion;
import io.tierroute.jobs.FittingJob;
import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.KafkaWiring;
import io.tierroute.selector.kafka.DecisionPublisher;
import io.tierroute.selector.params.ParameterStore;
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
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.ErrorInfo;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.concurrent.TimeUnit;

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

    private final Options opts;
    /** The requests, loaded (and a trace checked) before anything starts. */
    private final LiveWorkload work;
    /** Polled between the start-up's steps and in its waits: Ctrl-C may come at any time. */
    private final BooleanSupplier stopRequested;
    private final Closers closers = new Closers("tierroute demo");
    private Path tmp;
    private String bootstrap;
    private MiniCluster flink;
    private JobID jobId;
    private FittingJobWatch jobWatch;
    private URI flinkUi;
    private FleetRun run;
    private Dashboard dashboard;
    private long startedNanos;

    private Demo(Options opts, LiveWorkload work, BooleanSupplier stopRequested) {
        this.opts = opts;
        this.work = work;
        this.stopRequested = stopRequested;
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
        PortFlags.requireFree(opts.flinkUiPort(), "--flink-ui-port");
        PortFlags.requireFree(opts.dashboardPort(), "--dashboard-port");
        PortFlags.requireFree(opts.kafkaPort(), "--kafka-port");
        PortFlags.requireFree(opts.selectorPort(), "--selector-port");
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
        tmp = Files.createTempDirectory("tierroute-demo-");
        closers.add(() -> { // tolerant of Flink's hooks deleting in it on Ctrl-C; says what it could not delete
            TreeDeletion.delete(tmp);
            if (Files.exists(tmp)) {
                throw new IOException("could not delete all of the demo's temporary directory " + tmp);
            }
        });

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
        setRestartStrategy(conf);
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
        // 3. The selector's parameter loader and decision publisher, the live fleet routed by the selector, its API.
        //    A stop asked while the loader catches up ends the start-up as checkStop() does.
        run = FleetRun.start(new FleetRun.Settings(bootstrap, Map.of(), opts.workers(), opts.timeScale(), opts.scope(), opts.seed(),
                opts.selectorPort(), opts.token(), opts.tokenEnv(), opts.trace() != null), work, startedNanos, stopRequested);
        closers.add(run);

        checkStop();
        // 4. The dashboard; then the fleet starts.
        dashboard = Dashboard.start(new Dashboard.Settings(bootstrap, "127.0.0.1", opts.dashboardPort(), opts.token(),
                opts.tokenEnv(), opts.scope()));
        closers.add(dashboard::close);
        // This Kafka stops with the demo: the summary says the gate's reasons itself, as the dashboard read them.
        run.gateReasonsFrom(v -> gateReasons(dashboard.history(), opts.scope(), v, Duration.ofSeconds(2)));
        run.startFleet();

        checkStop();
        // 5. The fitting job, once the broker acknowledged --min-samples completion logs: it reads every topic from
        // the beginning, so its first snapshot is fitted on them rather than carrying DESIGN.md's defaults
        // (which the gate would then hold every later fit against). Counted when acknowledged, not when handed to the
        // producer: a completion that never reaches the topic is no sample.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (run.publisher().completionsAcknowledged() < opts.minSamples() && !run.fleet().done()
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
            checkStop();
        }
        if (run.fleet().failure() != null) {
            throw new IllegalStateException("the simulation failed: " + run.fleet().failure(), run.fleet().failure());
        }
        submitJob(bootstrap);
    }

    /**
     * The fitting job's restart strategy: a failure restarts it from its last checkpoint after a back-off of 2 s doubling
     * to 30 s, and it fails for good after 30 restarts in a row (counted afresh once it has run 5 min without a
     * failure). A Kafka outage fails it about once a minute (its transactional producer's InitProducerId times out
     * after 60 s) or sooner, so 30 restarts outlast an outage of 12 min at the very least (the back-offs, less their 10 % jitter); a job that
     * fails at once on every start (a bug) stops the demo after those 12–15 min, the status line saying each restart
     * and why meanwhile, and a --duration that ends before it recovered exits 1 (LiveStatus.Watched#unwellAtStop).
     * With restarts off, the first failure ended the demo, e.g. a minute into any Kafka outage.
     */
    static void setRestartStrategy(Configuration conf) {
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF, Duration.ofSeconds(2));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF, Duration.ofSeconds(30));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER, 2.0);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR, 0.1);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD, Duration.ofMinutes(5));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS, 30);
    }

    private void submitJob(String bootstrap) throws Exception {
        JobSettings js = jobSettings(opts, bootstrap, tmp.resolve("checkpoints"));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(KafkaWiring.configuration(js));
        // What the topics hold (nothing, on the demo's own broker), and the settings to read a pinned version back.
        new FittingJob(KafkaWiring.sources(js), KafkaWiring.paramsSink(js), KafkaWiring.deadLetterSink(js), js,
            KafkaWiring.publishedParams(js)).build(env);
        org.apache.flink.streaming.api.graph.StreamGraph streamGraph = env.getStreamGraph();
        streamGraph.setJobName(js.jobName());
        JobGraph graph = streamGraph.getJobGraph();
        graph.setJobID(new JobID());
        jobId = flink.submitJob(graph).get(60, TimeUnit.SECONDS).getJobID();
        closers.add(this::cancelJob);
        jobWatch = new FittingJobWatch(this::lookAtJob);

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

    /** The fitting job as Flink's JobManager shows it: state, last restart, newest failure. */
    private FittingJobWatch.Look lookAtJob() throws Exception {
        AccessExecutionGraph job = flink.getExecutionGraph(jobId).get(5, TimeUnit.SECONDS);
        ErrorInfo failure = job.getFailureInfo();
        CheckpointStatsSnapshot checkpoints = job.getCheckpointStatsSnapshot();
        CompletedCheckpointStats latest = checkpoints == null ? null : checkpoints.getHistory().getLatestCompletedCheckpoint();
        return new FittingJobWatch.Look(job.getState().name(), job.getStatusTimestamp(JobStatus.RESTARTING),
                Optional.ofNullable(failure).map(f -> FittingJobWatch.rootCause(f.getException())),
                failure == null ? 0 : failure.getTimestamp(), latest == null ? 0 : latest.getLatestAckTimestamp());
    }

    private void cancelJob() throws Exception {
        if (jobId != null && !flink.getJobStatus(jobId).get(10, TimeUnit.SECONDS).isGloballyTerminalState()) {
            flink.cancelJob(jobId).get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * The gate's reasons for {@code version} of {@code scope} as {@code history} holds them, waiting up to {@code wait}
     * for it to get there (the dashboard's reader may trail the selector's loader by a poll); empty if it did not.
     */
    static Optional<List<String>> gateReasons(SnapshotHistory history, String scope, long version, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Optional<VersionRecord> v = history.version(scope, version);
            if (v.isPresent() || System.nanoTime() > deadline) {
                return v.map(VersionRecord::rejectReasons);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
    }

    String bootstrap() { return bootstrap; }
    URI flinkUi() { return flinkUi; }
    URI dashboardUri() { return dashboard.uri(); }
    URI selectorUri() { return run.selectorUri(); }
    FleetRun fleetRun() { return run; }
    LiveFleet fleet() { return run.fleet(); }
    ParameterStore store() { return run.store(); }
    DecisionPublisher decisions() { return run.decisions(); }
    String workloadDescription() { return run.workloadDescription(); }
    String statusLine() { return run.statusLine(); }

    /** The fitting job as the status loop watches it: its restarts and why, and its end, which stops the demo. */
    FittingJobWatch job() { return jobWatch; }

    /** The Flink MiniCluster the fitting job runs on (tests take its TaskManager away). */
    MiniCluster flink() { return flink; }

    /** Stops everything, newest first; safe to call twice. */
    @Override
    public void close() {
        closers.close();
    }
}
