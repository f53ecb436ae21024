package io.tierroute.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.LocalCluster;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotStatus;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fitting job as users run it once one machine is not enough, through the commands they type:
 * {@code cluster up} (a Kafka broker process and a Flink session cluster of 1 JobManager and 1
 * TaskManager), {@code submit} of the real job jar (streaming-jobs/target/*-job.jar) over Flink's REST
 * API, generated live input until the job publishes an accepted snapshot, {@code submit --savepoint}
 * (stop with a savepoint), an upgrade from that savepoint, and {@code cluster down}, after which none
 * of the processes is left.
 *
 * <p>The upgrade starts a changed job jar ({@link UpgradedJobJar}: one class of the job recompiled with
 * its default job name changed, which is also the snapshots' {@code producer}, so the new code's
 * snapshots are told apart). Before it starts, the input topics are emptied (records deleted up to
 * their end) and the input is stopped: a job that started without the savepoint's state would see only
 * the input sent after the upgrade, whereas the restored job's first snapshot carries at least as many
 * samples as the last one before the savepoint.
 *
 * <p>On the way: the topics on the broker carry the policies of {@code Topics.specs()}, {@code submit}
 * reports the job's id and state, keeps exactly one of two jobs submitted at once (the other refused before its
 * upload or cancelled after its submission, whichever the race gave), refuses a second job while the first runs (of
 * the same name, and of another name, group and transactional-id prefix writing the same topic on the same Kafka
 * spelled otherwise), and Flink's
 * Prometheus reporter serves every series the Grafana dashboard {@code flink-jobs.json} queries.
 */
class SessionClusterJobTest {

    private static final Path JOB_JAR = Path.of(System.getProperty("tierroute.jobJar",
            "../streaming-jobs/target/tierroute-streaming-jobs-0.1.0-SNAPSHOT-job.jar"));

    @TempDir
    Path tmp;

    @Test
    void upSubmitPublishSavepointUpgradeFromItAndDown() throws Exception {
        AvroTrust.install();
        assertThat(JOB_JAR).as("the job jar; build it with mvn -pl streaming-jobs -am package -DskipTests").isRegularFile();
        Path dir = tmp.resolve("cluster");
        int kafkaPort = LoopbackPorts.free();
        int flinkPort = LoopbackPorts.free();
        int metricsPort = twoFreePorts();
        String bootstrap = "127.0.0.1:" + kafkaPort;
        String flink = "http://127.0.0.1:" + flinkPort;

        CliRun up = CliRun.of("cluster", "up", "--dir", dir.toString(), "--kafka-port", Integer.toString(kafkaPort),
                "--kafka-controller-port", Integer.toString(LoopbackPorts.free()), "--flink-port", Integer.toString(flinkPort),
                "--flink-rpc-port", Integer.toString(LoopbackPorts.free()), "--slots", "2", "--timeout", "120s",
                "--metrics-port", Integer.toString(metricsPort));
        List<Long> pids = new ArrayList<>();
        try {
            assertThat(up.rc).as(up.all()).isZero();
            System.out.println("[measured] " + up.out.strip().replace("\n", "\n[measured] "));
            LocalCluster.members(dir).forEach(m -> pids.add(m.pid()));
            assertThat(pids).hasSize(3);
            assertThat(up.out).contains("http://127.0.0.1:" + metricsPort + "/metrics (JobManager)");
            assertTopicPolicies(bootstrap);

            CliRun status = CliRun.of("cluster", "status", "--dir", dir.toString());
            assertThat(status.rc).as(status.all()).isZero();
            assertThat(status.out).contains("Kafka " + bootstrap + ": answers", "1 TaskManager(s)");

            // a bad job flag is refused before the upload (a usage error) in one line that says where the job's flags
            // are listed
            List<String> badArgs = submitArgs(flink, bootstrap, JOB_JAR, "tierroute-fitting-job-bad");
            badArgs.addAll(List.of("--parallelism", "0"));
            CliRun bad = CliRun.of(badArgs.toArray(String[]::new));
            assertThat(bad.rc).as(bad.all()).isEqualTo(2);
            assertThat(bad.err).contains("--parallelism must be >= 1, got 0 ('tierroute submit --job-help' lists every "
                    + "job flag)").doesNotContain("\tat ");

            // v1 on generated input, until it has published an accepted snapshot that the selector serves
            List<ParameterSnapshot> v1;
            try (LiveInput input = new LiveInput(bootstrap, 40, 1)) {
                // two submits of v1 at once: both may pass the check before the upload; exactly one job stays
                CliRun[] raced = concurrently(() -> submit(flink, bootstrap, JOB_JAR, "tierroute-fitting-job-v1"),
                        () -> submit(flink, bootstrap, JOB_JAR, "tierroute-fitting-job-v1"));
                CliRun submit = raced[0].rc == 0 ? raced[0] : raced[1];
                CliRun lost = submit == raced[0] ? raced[1] : raced[0];
                assertThat(submit.rc).as(raced[0].all() + "\n---\n" + raced[1].all()).isZero();
                assertThat(lost.rc).as(lost.all()).isEqualTo(1);
                assertThat(lost.err).contains("job " + jobId(submit.out) + " 'tierroute-fitting-job-v1'",
                        "no second live job of the same name");
                System.out.println("[measured] racing submits: the other one " + (lost.out.contains("submitted")
                        ? "was cancelled after its submission" : "was refused before its upload") + ": "
                        + lost.err.strip());
                assertThat(submit.out).containsPattern("job [0-9a-f]{32} \\(tierroute-fitting-job-v1\\): RUNNING, \\d+ tasks running");
                System.out.println("[measured] submit: " + submit.out.strip().replace("\n", " | "));
                // the upload is deleted once the job runs, and a second writer of tierroute.params is refused
                assertThat(uploadedJars(flink)).as("GET /jars after submit").contains("\"files\":[]");
                CliRun again = submit(flink, bootstrap, JOB_JAR, "tierroute-fitting-job-v1");
                assertThat(again.rc).as(again.all()).isEqualTo(1);
                assertThat(again.err).contains("'tierroute-fitting-job-v1' is RUNNING", "--savepoint DIR");
                // another name, consumer group and transactional-id prefix, the same topic on the same Kafka: refused
                // by the topic and bootstrap the running job publishes (GET /jobs/<id>/config), before any upload
                String v1Id = jobId(submit.out);
                // ... named otherwise too: one Kafka whatever its spelling
                List<String> otherArgs = submitArgs(flink, "PLAINTEXT://LOCALHOST:" + kafkaPort, JOB_JAR,
                        "tierroute-fitting-job-other");
                otherArgs.addAll(List.of("--group-id", "other-group", "--transactional-id-prefix", "other-tx"));
                CliRun other = CliRun.of(otherArgs.toArray(String[]::new));
                assertThat(other.rc).as(other.all()).isEqualTo(1);
                assertThat(other.out).isEmpty();
                assertThat(other.err.strip()).doesNotContain("\n").contains("job " + v1Id + " 'tierroute-fitting-job-v1' is "
                        + "RUNNING on " + flink, "writes tierroute.params on Kafka " + bootstrap,
                        "'tierroute-fitting-job-other' would be a second writer",
                        "--savepoint DIR --job-id " + v1Id, "--from-savepoint PATH");
                FlinkRestClient rest = new FlinkRestClient(URI.create(flink), Duration.ofSeconds(10));
                assertThat(rest.jobs()).as("jobs after the refusals").filteredOn(j -> !j.state().equals("CANCELED"))
                        .singleElement().extracting(FlinkRestClient.JobSummary::id).isEqualTo(v1Id);
                // what tells a fitting job that publishes no settings (one from before them) from other jobs
                assertThat(rest.vertexNames(v1Id)).anyMatch(v -> v.contains("params sink"));
                assertThat(uploadedJars(flink)).contains("\"files\":[]");
                v1 = await(bootstrap, "an accepted snapshot of v1 with >= 200 samples", list -> list.stream()
                        .anyMatch(s -> s.getProducer().equals("tierroute-fitting-job-v1") && s.getStatus() == SnapshotStatus.ACCEPTED
                                && s.getAlphaP().getSamples() >= 200), Duration.ofSeconds(90));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (input.store.current().version() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                assertThat(input.store.current().version()).as("the selector serves a fitted snapshot").isPositive();
                assertDashboardSeriesServed(metricsPort, metricsPort + 1);
                input.stopFleet();
            }

            // stop with a savepoint
            CliRun stop = CliRun.of("submit", "--flink", flink, "--savepoint", tmp.resolve("savepoints").toUri().toString());
            assertThat(stop.rc).as(stop.all()).isZero();
            Matcher m = Pattern.compile("savepoint: (\\S+)").matcher(stop.out);
            assertThat(m.find()).as(stop.out).isTrue();
            String savepoint = m.group(1);
            assertThat(stop.out).as("the restart hint carries the job's Kafka and name, read from Flink before the stop")
                    .contains("--bootstrap " + bootstrap + " --from-savepoint " + savepoint + " -- --job-name ")
                    .as("the job's own group and transactional-id prefix go with it")
                    .contains(" --group-id cluster-test --transactional-id-prefix cluster-test");
            List<ParameterSnapshot> beforeUpgrade = PublishedSnapshots.read(bootstrap);
            ParameterSnapshot lastV1 = beforeUpgrade.get(beforeUpgrade.size() - 1);
            assertThat(lastV1.getProducer()).isEqualTo("tierroute-fitting-job-v1");
            emptyInputTopics(bootstrap);

            // v2: the changed jar from the savepoint, on new input only: its estimators continue from v1's
            Path upgradedJar = UpgradedJobJar.build(JOB_JAR, tmp.resolve("upgrade"));
            CliRun upgrade = submit(flink, bootstrap, upgradedJar, null, "--from-savepoint", savepoint);
            assertThat(upgrade.rc).as(upgrade.all()).isZero();
            String v2 = UpgradedJobJar.UPGRADED_JOB_NAME;
            try (LiveInput input = new LiveInput(bootstrap, 40, 2)) {
                List<ParameterSnapshot> after = await(bootstrap, "a snapshot of the changed jar", list -> list.stream()
                        .anyMatch(s -> s.getProducer().equals(v2)), Duration.ofSeconds(60));
                ParameterSnapshot firstV2 = after.stream().filter(s -> s.getProducer().equals(v2))
                        .findFirst().orElseThrow();
                assertThat(firstV2.getVersion()).isGreaterThan(lastV1.getVersion());
                assertThat(firstV2.getAlphaP().getSamples()).as("α_p's samples carried over the upgrade (v1 ended with "
                        + lastV1.getAlphaP().getSamples() + ")").isGreaterThanOrEqualTo(lastV1.getAlphaP().getSamples());
                System.out.println("[measured] upgrade: last v1 snapshot v" + lastV1.getVersion() + " α_p samples "
                        + lastV1.getAlphaP().getSamples() + "; first v2 snapshot v" + firstV2.getVersion() + " α_p samples "
                        + firstV2.getAlphaP().getSamples());
            }
            assertThat(new FlinkRestClient(URI.create(flink), Duration.ofSeconds(10)).jobs())
                    .anyMatch(j -> j.state().equals("RUNNING") && j.name().equals(v2));

            // status names each job with its state
            CliRun statusWithJob = CliRun.of("cluster", "status", "--dir", dir.toString());
            assertThat(statusWithJob.rc).as(statusWithJob.all()).isZero();
            assertThat(statusWithJob.out).containsPattern("job [0-9a-f]{32} " + Pattern.quote(v2) + ": RUNNING");

            // down while the job runs: it says so, and where the job resumes from (the kept checkpoint)
            CliRun downWithJob = CliRun.of("cluster", "down", "--dir", dir.toString());
            assertThat(downWithJob.rc).as(downWithJob.all()).isZero();
            assertThat(downWithJob.out).contains(v2 + " is RUNNING: it stops with the cluster, without a savepoint")
                    .contains("--savepoint DIR --job-id ").contains("to resume " + v2 + " after 'cluster up'")
                    .containsPattern("--bootstrap " + Pattern.quote(bootstrap) + " --from-savepoint \\S+/chk-\\d+ -- --job-name ");
            System.out.println("[measured] down with a job: " + downWithJob.out.strip().replace("\n", " | "));
        } finally {
            CliRun down = CliRun.of("cluster", "down", "--dir", dir.toString());
            assertThat(down.rc).as(down.all()).isZero();
        }
        for (long pid : pids) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("pid " + pid + " after down").isFalse();
        }
        assertThat(LoopbackPorts.listening(kafkaPort)).isFalse();
        assertThat(LoopbackPorts.listening(flinkPort)).isFalse();
    }

    /** {@code submit} of {@code jar}; {@code jobName} null leaves the job its default name. */
    private CliRun submit(String flink, String bootstrap, Path jar, String jobName, String... extra) {
        return CliRun.of(submitArgs(flink, bootstrap, jar, jobName, extra).toArray(String[]::new));
    }

    /** The arguments of {@link #submit}; job arguments added to the list override the ones it has. */
    private static List<String> submitArgs(String flink, String bootstrap, Path jar, String jobName, String... extra) {
        List<String> args = new ArrayList<>(List.of("submit", "--flink", flink, "--bootstrap", bootstrap, "--jar",
                jar.toString(), "--wait", "90s"));
        args.addAll(List.of(extra));
        args.add("--");
        if (jobName != null) {
            args.addAll(List.of("--job-name", jobName));
        }
        args.addAll(List.of("--parallelism", "1", "--group-id", "cluster-test",
                "--transactional-id-prefix", "cluster-test", "--checkpoint-interval", "1s", "--publish-interval", "1s",
                "--min-fit-samples", "100", "--gate-min-samples", "100", "--gate-max-jump-factor", "50",
                "--min-forest-rows", "200", "--forest-trees", "10", "--forest-interval", "15s", "--idleness", "2s"));
        return args;
    }

    /** The job id {@code submit} printed ("job ID submitted"). */
    private static String jobId(String submitOut) {
        Matcher m = Pattern.compile("job ([0-9a-f]{32}) submitted").matcher(submitOut);
        assertThat(m.find()).as(submitOut).isTrue();
        return m.group(1);
    }

    private static List<ParameterSnapshot> await(String bootstrap, String what, Predicate<List<ParameterSnapshot>> done,
                                                 Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<ParameterSnapshot> list = List.of();
        while (System.nanoTime() < deadline) {
            list = PublishedSnapshots.read(bootstrap);
            if (done.test(list)) {
                return list;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("no " + what + " within " + timeout.toSeconds() + " s; published: " + list.stream()
                .map(s -> s.getProducer() + " v" + s.getVersion() + " " + s.getStatus() + " α_p samples " + s.getAlphaP().getSamples()
                        + " " + s.getRejectReasons()).toList());
    }

    /** {@code a} and {@code b} started together on two threads. */
    private static CliRun[] concurrently(Supplier<CliRun> a, Supplier<CliRun> b) throws Exception {
        CyclicBarrier start = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<CliRun> fa = pool.submit(() -> {
                start.await();
                return a.get();
            });
            Future<CliRun> fb = pool.submit(() -> {
                start.await();
                return b.get();
            });
            return new CliRun[] {fa.get(5, TimeUnit.MINUTES), fb.get(5, TimeUnit.MINUTES)};
        } finally {
            pool.shutdownNow();
        }
    }

    /** A port whose next port is free too (the reporter's JobManager and TaskManager ports). */
    private static int twoFreePorts() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int p = LoopbackPorts.free();
            try {
                LoopbackPorts.requireFree(p + 1, "probe");
                return p;
            } catch (RuntimeException taken) {
                // try another
            }
        }
        throw new IllegalStateException("no two consecutive free ports on 127.0.0.1");
    }

    /** Each topic on the broker has the cleanup policy and retention {@code Topics.specs()} gives it. */
    private static void assertTopicPolicies(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.<String, Object>of("bootstrap.servers", bootstrap))) {
            for (Topics.Spec spec : Topics.specs()) {
                ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, spec.name());
                Config config = admin.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic);
                for (Map.Entry<String, String> e : spec.configs().entrySet()) {
                    assertThat(config.get(e.getKey()).value()).as(spec.name() + " " + e.getKey()).isEqualTo(e.getValue());
                }
                assertThat(config.get("cleanup.policy").value()).as(spec.name())
                        .isEqualTo(Topics.isCompacted(spec.name()) ? "compact" : "delete");
            }
        }
    }

    /**
     * The JobManager's and the TaskManager's Prometheus endpoints together serve every series the Flink
     * dashboard queries (task and operator metrics appear once the job's tasks run, hence the wait).
     */
    private static void assertDashboardSeriesServed(int... ports) throws Exception {
        Set<Pattern> queried = FlinkDashboardSeries.queried();
        assertThat(queried).hasSizeGreaterThan(20);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<String> missing;
        Set<String> served;
        do {
            served = new java.util.TreeSet<>();
            for (int port : ports) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as("GET :" + port + "/metrics").isEqualTo(200);
                served.addAll(FlinkDashboardSeries.served(r.body()));
            }
            missing = FlinkDashboardSeries.missing(queried, served);
        } while (!missing.isEmpty() && System.nanoTime() < deadline && sleep(1000));
        assertThat(missing).as("series of %s that Flink's reporter does not serve (it serves %d names)",
                FlinkDashboardSeries.DASHBOARD, served.size()).isEmpty();
        System.out.println("[measured] Prometheus reporter: " + served.size() + " series names on ports "
                + java.util.Arrays.toString(ports) + ", all " + queried.size() + " dashboard queries answered");
    }

    private static boolean sleep(long ms) throws InterruptedException {
        Thread.sleep(ms);
        return true;
    }

    /** Deletes every record of the input topics (telemetry, decisions, completions) up to their current end. */
    private static void emptyInputTopics(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.<String, Object>of("bootstrap.servers", bootstrap))) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (String topic : List.of(Topics.TELEMETRY, Topics.DECISIONS, Topics.COMPLETIONS)) {
                admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()
                        .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            }
            Map<TopicPartition, RecordsToDelete> delete = new HashMap<>();
            admin.listOffsets(latest).all().get().forEach((tp, info) ->
                    delete.put(tp, RecordsToDelete.beforeOffset(info.offset())));
            admin.deleteRecords(delete).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** {@code GET /jars}: the jars uploaded to the cluster. */
    private static String uploadedJars(String flink) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(flink + "/jars"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }
}
