package io.tierroute.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.cli.TierrouteCommand;
import io.tierroute.deploy.local.ChildJvm;
import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.FlinkSessionCluster;
import io.tierroute.deploy.local.KafkaBrokerProcess;
import io.tierroute.deploy.local.LocalClasspath;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotStatus;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * Fault test: kill -9 of the TaskManager in the middle of a stream of deterministic input, on a real
 * standalone Flink session cluster (1 JobManager, 1 TaskManager JVM) and a Kafka broker process on
 * loopback. A new TaskManager is started; the job must restart by itself from its last completed
 * checkpoint and finish the input, and its committed snapshot history must equal, snapshot for
 * snapshot (versions, event-time createdAt, every value, forests), that of an uninterrupted run of
 * the same job jar on the same input.
 *
 * <p>The job runs in its deterministic mode ({@code --cadence-clock event}, single-partition topics:
 * streaming-jobs/README.md), so the history is a function of the input alone. The input is fed while
 * the job runs (one second of event time every 0.5 s); the feeder holds before its last third until the
 * kill has happened, so there is always input left to process after the kill. The kill waits (up to
 * 20 s) for a moment when tierroute.params holds records of a transaction not yet committed, so that
 * the sink's recovery (re-commit or abort) is part of what is compared. The reference run
 * comes second: a new job (new group and transactional id, no state) on the same, by then complete,
 * input topics, publishing to a recreated, empty params topic.
 */
class TaskManagerKillTest {

    private static final Path JOB_JAR = Path.of(System.getProperty("tierroute.jobJar",
            "../streaming-jobs/target/tierroute-streaming-jobs-0.1.0-SNAPSHOT-job.jar"));
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SCOPE = "kill9";
    private static final int SECONDS = 30;
    private static final int PREFILLED = 5;
    /** The feeder sends no second from this one on before the kill. */
    private static final int HOLD_AT = 20;
    private static final long ROWS = (long) SECONDS * DeterministicInput.REQUESTS_PER_SECOND;

    @TempDir
    Path tmp;

    @Test
    void killNineTheTaskManagerMidStreamAndTheHistoryEqualsAnUninterruptedRun() throws Exception {
        AvroTrust.install();
        assertThat(JOB_JAR).as("the job jar; build it with mvn -pl streaming-jobs -am package -DskipTests").isRegularFile();
        long testStart = System.nanoTime();
        List<Path> classpath = LocalClasspath.fromResource(TierrouteCommand.class);
        String marker = "tierroute-test:" + tmp;
        KafkaBrokerProcess kafka = new KafkaBrokerProcess(new KafkaBrokerProcess.Settings(tmp.resolve("kafka"),
                LoopbackPorts.free(), LoopbackPorts.free(), classpath, marker, Map.of()));
        // Heartbeats every second: a dead TaskManager's refused heartbeat RPCs mark it lost after ~2 s
        // (heartbeat.rpc-failure-threshold); the long timeout keeps a starved but live JVM from being dropped.
        // Pekko's 10 s start-up and ask timeouts failed the JobManager's start on this machine under load.
        FlinkSessionCluster flink = new FlinkSessionCluster(new FlinkSessionCluster.Settings(tmp.resolve("flink"),
                LoopbackPorts.free(), LoopbackPorts.free(), 1, 2, "1024m", classpath, marker,
                Map.of("heartbeat.interval", "1 s", "heartbeat.timeout", "30 s",
                        "restart-strategy.exponential-delay.initial-backoff", "1 s", "pekko.startup-timeout", "90 s",
                        "pekko.ask.timeout", "30 s")));
        Thread cleanup = new Thread(() -> stopAll(flink, kafka), "kill9-test-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        CompletableFuture<Void> kafkaUp = CompletableFuture.runAsync(() -> kafka.start(Duration.ofSeconds(180)));
        try {
            flink.start(Duration.ofSeconds(180));
            kafkaUp.get(180, TimeUnit.SECONDS);
            String bootstrap = kafka.bootstrapServers();
            System.out.printf("[measured] kill -9 test: broker up in %.1f s, Flink JobManager + 1 TaskManager in %.1f s%n",
                    kafka.lastStartTime().toMillis() / 1e3, flink.taskManagersRegisteredTime().toMillis() / 1e3);
            createSinglePartitionTopics(bootstrap);
            FlinkRestClient rest = flink.rest();
            String jarId = rest.uploadJar(JOB_JAR);

            // the input: 30 s of one scope, then a record a minute later (another scope) that moves every
            // source's watermark past the data so that its last ticks fire
            long startMs = (System.currentTimeMillis() - Duration.ofMinutes(20).toMillis()) / 1000 * 1000;
            DeterministicInput gen = new DeterministicInput(7, SCOPE, startMs);
            List<List<ProducerRecord<byte[], byte[]>>> seconds = new ArrayList<>();
            for (int s = 0; s < SECONDS; s++) {
                seconds.add(gen.nextSecond(DeterministicInput.REQUESTS_PER_SECOND));
            }
            seconds.add(new DeterministicInput(8, "zz-end", startMs + 80_000).nextSecond(1));

            // ---- the run that is killed
            try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
                for (int s = 0; s < PREFILLED; s++) {
                    send(producer, seconds.get(s));
                }
                String jobId = rest.run(jarId, new FlinkRestClient.RunRequest(null, jobArgs(bootstrap, "a"), null, false, null));
                rest.awaitRunning(jobId, Duration.ofSeconds(120));

                CountDownLatch killed = new CountDownLatch(1);
                AtomicInteger sent = new AtomicInteger(PREFILLED);
                AtomicReference<Throwable> feederFailure = new AtomicReference<>();
                Thread feeder = new Thread(() -> {
                    try {
                        for (int s = PREFILLED; s < seconds.size(); s++) {
                            if (s == HOLD_AT) {
                                killed.await();
                            }
                            Thread.sleep(500);
                            send(producer, seconds.get(s));
                            sent.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        feederFailure.set(t);
                    }
                }, "kill9-feeder");
                feeder.setDaemon(true);
                feeder.start();

                // kill once a checkpoint has completed and snapshots have been committed, preferably while a
                // transaction holds snapshots not yet committed (the sink's abort / re-commit path)
                await("a completed checkpoint and 3 committed snapshots", Duration.ofSeconds(90), () ->
                        rest.completedCheckpoints(jobId) >= 1 && scopeHistory(PublishedSnapshots.read(bootstrap)).size() >= 3);
                Set<String> oldTaskManagers = taskManagerIds(rest);
                try (Admin admin = admin(bootstrap)) {
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (uncommittedOffsets(admin) == 0 && System.nanoTime() < until) {
                        Thread.sleep(20);
                    }
                }
                ChildJvm tm = flink.taskManagers().get(0);
                long killWallMs = System.currentTimeMillis();
                long kill = System.nanoTime();
                flink.killTaskManager(tm);
                int sentAtKill = sent.get();
                killed.countDown();
                assertThat(tm.isAlive()).isFalse();
                assertThat(sentAtKill).as("seconds of input sent when the TaskManager was killed").isLessThan(seconds.size());
                List<ParameterSnapshot> beforeKill = scopeHistory(PublishedSnapshots.read(bootstrap));
                long openAtKill;
                try (Admin admin = admin(bootstrap)) {
                    openAtKill = uncommittedOffsets(admin);
                }
                flink.startTaskManager(Duration.ofSeconds(120));

                // the job restarts by itself, restored from a checkpoint
                Recovery recovery = awaitRecovered(rest, jobId, oldTaskManagers, Duration.ofSeconds(120));
                await("a snapshot committed after the kill", Duration.ofSeconds(90), () ->
                        scopeHistory(PublishedSnapshots.read(bootstrap)).size() > beforeKill.size());
                long firstNew = System.nanoTime();
                JsonNode job = get(rest, "/jobs/" + jobId);
                JsonNode restored = get(rest, "/jobs/" + jobId + "/checkpoints").path("latest").path("restored");
                long restartingAt = job.path("timestamps").path("RESTARTING").asLong();

                List<ParameterSnapshot> faulted = awaitAllRows(bootstrap, Duration.ofSeconds(120));
                feeder.join(10_000);
                assertThat(feederFailure.get()).as("the feeder's failure").isNull();
                long abortedRecords = countParamsRecords(bootstrap, "read_uncommitted")
                        - countParamsRecords(bootstrap, "read_committed");
                rest.cancel(jobId);
                await("the killed run's job cancelled", Duration.ofSeconds(60), () -> rest.jobState(jobId).equals("CANCELED"));

                System.out.printf("[measured] kill -9 of the TaskManager with %d of %d s of input sent, %d snapshots "
                                + "committed, %d params offsets in an open transaction: job RESTARTING %.1f s after the kill, "
                                + "the new TaskManager (JVM started at the kill) registered %.1f s, every task RUNNING again "
                                + "(restored from checkpoint %d) %.1f s, first new snapshot committed %.1f s after it; "
                                + "%d snapshots in all, %d params records left in aborted transactions%n",
                        sentAtKill, seconds.size(), beforeKill.size(), openAtKill, (restartingAt - killWallMs) / 1e3,
                        (recovery.newTaskManager() - kill) / 1e9, restored.path("id").asLong(),
                        (recovery.running() - kill) / 1e9, (firstNew - kill) / 1e9, faulted.size(), abortedRecords);
                assertThat(restored.isObject()).as("the job restored from a checkpoint: " + restored).isTrue();
                assertThat(restored.path("is_savepoint").asBoolean()).isFalse();
                assertThat(restartingAt).as("the job went through RESTARTING").isGreaterThanOrEqualTo(killWallMs);
                assertThat(beforeKill.size()).as("snapshots before the kill").isLessThan(faulted.size());

                // ---- the reference: uninterrupted, same jar, same input topics, an empty params topic
                recreateParamsTopic(bootstrap);
                String refId = rest.run(jarId, new FlinkRestClient.RunRequest(null, jobArgs(bootstrap, "b"), null, false, null));
                rest.awaitRunning(refId, Duration.ofSeconds(120));
                List<ParameterSnapshot> reference = awaitAllRows(bootstrap, Duration.ofSeconds(120));
                long refRestarts = get(rest, "/jobs/" + refId).path("timestamps").path("RESTARTING").asLong();
                rest.cancel(refId);
                assertThat(refRestarts).as("the reference run never restarted").isZero();

                assertGapFree(reference);
                assertThat(reference).as("reference snapshots").hasSizeGreaterThan(10);
                assertThat(reference).anySatisfy(p -> assertThat(p.getStatus()).isEqualTo(SnapshotStatus.ACCEPTED));
                assertThat(reference).anySatisfy(p -> assertThat(p.getQuantileModel()).isNotNull());
                assertGapFree(faulted);
                for (int i = 0; i < Math.min(reference.size(), faulted.size()); i++) {
                    ParameterSnapshot expected = reference.get(i);
                    ParameterSnapshot actual = faulted.get(i);
                    assertThat(actual).as(() -> "snapshot v" + expected.getVersion() + " of the killed run: "
                            + difference(expected, actual) + "\n" + fitLog(tmp.resolve("flink").resolve("log")))
                            .isEqualTo(expected);
                }
                assertThat(faulted).hasSameSizeAs(reference);
                System.out.printf("[measured] kill -9 test: %d snapshots equal to the uninterrupted run's; whole test %.0f s%n",
                        reference.size(), (System.nanoTime() - testStart) / 1e9);
            }
        } finally {
            try {
                kafkaUp.get(190, TimeUnit.SECONDS); // a broker still starting must not outlive the test
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                // its failure is the test's failure already (or comes from the flink start failing first)
            }
            stopAll(flink, kafka);
            Runtime.getRuntime().removeShutdownHook(cleanup);
        }
    }

    private static void stopAll(FlinkSessionCluster flink, KafkaBrokerProcess kafka) {
        try {
            flink.close();
        } finally {
            kafka.close();
        }
    }

    private List<String> jobArgs(String bootstrap, String run) {
        // DeterministicModeTest's flags (streaming-jobs/README.md, "Deterministic mode"); the same job name in
        // both runs, because it is the snapshots' producer
        return List.of("--bootstrap-servers", bootstrap, "--job-name", "tierroute-kill9", "--group-id", "kill9-" + run,
                "--transactional-id-prefix", "kill9-" + run,
                "--checkpoint-dir", tmp.resolve("checkpoints-" + run).toAbsolutePath().toUri().toString(),
                "--cadence-clock", "event", "--parallelism", "1", "--idleness", "30s", "--out-of-orderness", "1s",
                "--checkpoint-interval", "500ms", "--publish-interval", "1s", "--forest-interval", "5s",
                "--min-forest-rows", "500", "--forest-trees", "5");
    }

    /** The project's topics with their settings, but one partition each: the deterministic mode's input. */
    private static void createSinglePartitionTopics(String bootstrap) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(Topics.specs().stream().map(s -> new NewTopic(s.name(), 1, (short) 1).configs(s.configs()))
                    .toList()).all().get(60, TimeUnit.SECONDS);
        }
    }

    /** Deletes tierroute.params and creates it again, empty, with its settings (Kafka deletes asynchronously). */
    private static void recreateParamsTopic(String bootstrap) throws Exception {
        Topics.Spec params = Topics.specs().stream().filter(s -> s.name().equals(Topics.PARAMS)).findFirst().orElseThrow();
        try (Admin admin = admin(bootstrap)) {
            admin.deleteTopics(List.of(Topics.PARAMS)).all().get(60, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // The controller has accepted the deletion; the broker may serve the old topic a moment longer, and a
            // topic created meanwhile would still show the killed run's records to a reader.
            while (admin.listTopics().names().get(10, TimeUnit.SECONDS).contains(Topics.PARAMS)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(Topics.PARAMS + " was still listed 60 s after its deletion");
                }
                Thread.sleep(50);
            }
            while (true) {
                try {
                    admin.createTopics(List.of(new NewTopic(Topics.PARAMS, 1, (short) 1).configs(params.configs())))
                            .all().get(60, TimeUnit.SECONDS);
                    break;
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException) || System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(200);
                }
            }
        }
        assertThat(PublishedSnapshots.read(bootstrap)).as("the recreated params topic").isEmpty();
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.<String, Object>of("bootstrap.servers", bootstrap, "default.api.timeout.ms", "60000"));
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        return new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, "acks", "all", "enable.idempotence", "true",
                "linger.ms", "5"), new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, List<ProducerRecord<byte[], byte[]>> records)
            throws Exception {
        List<Future<?>> acks = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> r : records) {
            acks.add(producer.send(r));
        }
        for (Future<?> a : acks) {
            a.get(60, TimeUnit.SECONDS);
        }
    }

    /** The scope's committed snapshots in publication order. */
    private static List<ParameterSnapshot> scopeHistory(List<ParameterSnapshot> all) {
        return all.stream().filter(p -> p.getScope().toString().equals(SCOPE)).toList();
    }

    /** The scope's committed history once a snapshot covers every row, and 2 s later (nothing may follow). */
    private static List<ParameterSnapshot> awaitAllRows(String bootstrap, Duration timeout) throws Exception {
        await("a committed snapshot with all " + ROWS + " rows", timeout, () -> {
            List<ParameterSnapshot> h = scopeHistory(PublishedSnapshots.read(bootstrap));
            return !h.isEmpty() && h.get(h.size() - 1).getAlphaP().getSamples() == ROWS;
        });
        Thread.sleep(2000);
        return scopeHistory(PublishedSnapshots.read(bootstrap));
    }

    /** When (System.nanoTime) a TaskManager other than the killed one had registered, and every task ran again. */
    private record Recovery(long newTaskManager, long running) {}

    /**
     * Waits until every task of the job runs again after a restore from a checkpoint. Fails at once if
     * the job reaches a terminal state.
     */
    private static Recovery awaitRecovered(FlinkRestClient rest, String jobId, Set<String> oldTaskManagers,
                                           Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        long newTaskManager = 0;
        while (true) {
            if (newTaskManager == 0 && !oldTaskManagers.containsAll(taskManagerIds(rest))) {
                newTaskManager = System.nanoTime();
            }
            FlinkRestClient.JobDetails d = rest.job(jobId);
            if (d.fullyRunning() && get(rest, "/jobs/" + jobId + "/checkpoints").path("latest").path("restored").isObject()) {
                return new Recovery(newTaskManager == 0 ? System.nanoTime() : newTaskManager, System.nanoTime());
            }
            if (List.of("FAILED", "CANCELED", "FINISHED", "SUSPENDED").contains(d.state()) || System.nanoTime() > deadline) {
                throw new AssertionError("the job did not run again after the kill within " + timeout.toSeconds()
                        + " s: " + d + "; Flink reports: " + rest.rootException(jobId));
            }
            Thread.sleep(100);
        }
    }

    private static Set<String> taskManagerIds(FlinkRestClient rest) throws Exception {
        Set<String> ids = new HashSet<>();
        get(rest, "/taskmanagers").path("taskmanagers").forEach(t -> ids.add(t.path("id").asText()));
        return ids;
    }

    /** Offsets of tierroute.params past its last stable offset: records of a transaction not yet committed. */
    private static long uncommittedOffsets(Admin admin) throws Exception {
        TopicPartition tp = new TopicPartition(Topics.PARAMS, 0);
        long end = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get(10, TimeUnit.SECONDS).offset();
        long stable = admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .partitionResult(tp).get(10, TimeUnit.SECONDS).offset();
        return end - stable;
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static void await(String what, Duration timeout, Check check) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no " + what + " within " + timeout.toSeconds() + " s");
            }
            Thread.sleep(200);
        }
    }

    /** A raw GET of the Flink REST API, for the fields FlinkRestClient does not expose (timestamps, restore). */
    private static JsonNode get(FlinkRestClient rest, String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(rest.base() + path))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET " + path + ": " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** Records on tierroute.params as a consumer with this isolation level sees them. */
    private static long countParamsRecords(String bootstrap, String isolation) {
        TopicPartition tp = new TopicPartition(Topics.PARAMS, 0);
        long n = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
                "isolation.level", isolation, "enable.auto.commit", "false"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            while (c.position(tp, Duration.ofSeconds(30)) < end) {
                for (ConsumerRecord<byte[], byte[]> ignored : c.poll(Duration.ofMillis(500))) {
                    n++;
                }
            }
        }
        return n;
    }

    private static void assertGapFree(List<ParameterSnapshot> history) {
        for (int i = 0; i < history.size(); i++) {
            assertThat(history.get(i).getVersion()).as("version at position %d (no duplicate, no gap)", i).isEqualTo(i + 1L);
        }
    }

    /**
     * For a failure message: what the fitting operator logged about forests, and its warnings with their stack traces,
     * from every TaskManager's log in start order (the killed run's, then its restore's and the reference's), so that
     * a difference in the histories can be traced to a training or an input that one run saw and the other did not.
     */
    private static String fitLog(Path logDir) {
        StringBuilder out = new StringBuilder("the fitting operator's forest lines and warnings, per TaskManager log:");
        try (var files = Files.list(logDir)) {
            List<Path> logs = files.filter(f -> TASK_MANAGER_LOG.matcher(f.getFileName().toString()).matches())
                    .sorted(Comparator.comparingInt(TaskManagerKillTest::taskManagerNumber)).toList();
            for (Path log : logs) {
                out.append("\n== ").append(log.getFileName());
                boolean inWarning = false; // a kept warning's stack trace follows it, up to the next log line
                for (String l : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                    if (LOG_LINE.matcher(l).lookingAt()) {
                        boolean warning = l.contains(" WARN ") || l.contains(" ERROR ");
                        boolean keep = l.contains("io.tierroute.jobs") && (warning || l.contains("forest") || l.contains("rebuilt"));
                        inWarning = keep && warning;
                        if (keep) {
                            out.append("\n").append(l.length() > 400 ? l.substring(0, 400) + " …" : l);
                        }
                    } else if (inWarning) {
                        out.append("\n").append(l);
                    }
                }
            }
        } catch (IOException | UncheckedIOException e) {
            out.append("\n(the TaskManager logs in ").append(logDir).append(" could not be read: ").append(e).append(')');
        }
        return out.toString();
    }

    private static final Pattern TASK_MANAGER_LOG = Pattern.compile("taskmanager-(\\d+)\\.log");
    /** A log line (the TaskManagers' layout starts with the milliseconds since start and the thread). */
    private static final Pattern LOG_LINE = Pattern.compile("\\d+ \\[");

    private static int taskManagerNumber(Path log) {
        var m = TASK_MANAGER_LOG.matcher(log.getFileName().toString());
        return m.matches() ? Integer.parseInt(m.group(1)) : Integer.MAX_VALUE;
    }

    /** Where the two snapshots' JSON forms first differ, with some context, for the failure message. */
    private static String difference(ParameterSnapshot a, ParameterSnapshot b) {
        String x = a.toString();
        String y = b.toString();
        int i = 0;
        while (i < Math.min(x.length(), y.length()) && x.charAt(i) == y.charAt(i)) {
            i++;
        }
        if (i == x.length() && i == y.length()) {
            return "equal";
        }
        int from = Math.max(0, i - 80);
        return "first difference at character " + i + ": ..." + x.substring(from, Math.min(x.length(), i + 40))
                + " vs ..." + y.substring(from, Math.min(y.length(), i + 40));
    }
}
