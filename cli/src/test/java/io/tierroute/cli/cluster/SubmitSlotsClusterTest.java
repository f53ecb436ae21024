package io.tierroute.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.cli.TierrouteCommand;
import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.FlinkSessionCluster;
import io.tierroute.deploy.local.KafkaBrokerProcess;
import io.tierroute.deploy.local.LocalClasspath;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.deploy.local.ProjectTopics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code submit} against the task slots of a real session cluster (a broker process and 1 TaskManager with 2 slots):
 * a job needing more slots than the cluster has is refused before its upload (with {@code --no-slot-check} submitted, and
 * its failure names the shortage); one needing slots another application's
 * job holds is refused naming that job, and with {@code --wait-for-slots} submitted, shown waiting, and reported with
 * Flink's root cause (NoResourceAvailableException) when the slots do not come, or running once they are freed.
 *
 * <p>{@code slot.request.timeout} is 5 s so that the ResourceManager reports a shortage within seconds, as it does
 * with the default 5 min once that long has passed since its start; the submits that wait out a shortage wait twice
 * (--no-slot-check) and four times (--wait-for-slots) that long.
 */
class SubmitSlotsClusterTest {

    private static final Path JOB_JAR = Path.of(System.getProperty("tierroute.jobJar",
            "../streaming-jobs/target/tierroute-streaming-jobs-0.1.0-SNAPSHOT-job.jar"));
    private static final String NO_SLOT = "NoResourceAvailableException: Could not acquire the minimum required resources.";

    @TempDir
    Path tmp;

    @Test
    void tooFewSlotsAreRefusedBeforeTheUploadOrWaitedForAndAFailureNamesItsRootCause() throws Exception {
        assertThat(JOB_JAR).as("the job jar; build it with mvn -pl streaming-jobs -am package -DskipTests").isRegularFile();
        List<Path> classpath = LocalClasspath.fromResource(TierrouteCommand.class);
        String marker = "tierroute-test:" + tmp;
        KafkaBrokerProcess kafka = new KafkaBrokerProcess(new KafkaBrokerProcess.Settings(tmp.resolve("kafka"),
                LoopbackPorts.free(), LoopbackPorts.free(), classpath, marker, Map.of()));
        FlinkSessionCluster flink = new FlinkSessionCluster(new FlinkSessionCluster.Settings(tmp.resolve("flink"),
                LoopbackPorts.free(), LoopbackPorts.free(), 1, 2, "1024m", classpath, marker,
                Map.of("slot.request.timeout", "5 s")));
        Thread cleanup = new Thread(() -> stopAll(flink, kafka), "slots-test-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        CompletableFuture<Void> kafkaUp = CompletableFuture.runAsync(() -> kafka.start(Duration.ofSeconds(180)));
        try {
            flink.start(Duration.ofSeconds(180));
            kafkaUp.get(180, TimeUnit.SECONDS);
            String bootstrap = kafka.bootstrapServers();
            ProjectTopics.create(bootstrap, (short) 1);
            FlinkRestClient rest = flink.rest();
            String url = flink.restUri().toString();

            // more than the cluster has: refused before the upload, whatever is free
            CliRun tooMany = CliRun.of(submit(url, bootstrap, "fit-3", "3"));
            assertThat(tooMany.rc).as(tooMany.all()).isEqualTo(1);
            assertThat(tooMany.err.strip()).isEqualTo("tierroute submit: the job needs 3 task slots (its --parallelism; its "
                    + "operators share slots); the cluster has 2 slots in total (1 TaskManager × 2); lower --parallelism "
                    + "(after --) or start more TaskManagers (a cluster that starts them on demand: pass --no-slot-check)");
            assertThat(rest.jobs()).isEmpty();
            assertThat(uploadedJars(url)).contains("\"files\":[]");

            // --no-slot-check (a cluster that starts TaskManagers on demand): submitted all the same; this cluster has no
            // third slot, so the job does not run, and its failure says what it was short of
            List<String> unchecked = submit(url, bootstrap, "fit-unchecked", "3");
            unchecked.addAll(1, List.of("--no-slot-check", "--wait", "10s"));
            CliRun noCheck = CliRun.of(unchecked);
            assertThat(noCheck.rc).as(noCheck.all()).isEqualTo(1);
            String uncheckedId = jobId(noCheck.out);
            assertThat(noCheck.err).contains("job " + uncheckedId + " (fit-unchecked) is ", "\nthe job needs 3 task slots "
                    + "(its --parallelism; its operators share slots); the cluster has 2 slots in total (1 TaskManager × 2)");
            System.out.println("[measured] --no-slot-check, 3 of 2 slots: " + noCheck.err.strip().replace("\n", " | "));
            cancel(rest, uncheckedId);
            long released = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (rest.overview().slotsAvailable() < 2 && System.nanoTime() < released) {
                Thread.sleep(200); // its slots back on the TaskManager, for the counts below
            }

            // another application's job takes one of the two slots
            String holderJar = rest.uploadJar(SlotHolderJar.build(tmp.resolve("holder")));
            String holder = rest.run(holderJar, new FlinkRestClient.RunRequest(SlotHolderJar.MAIN, List.of(), null, false, null));
            rest.deleteJar(holderJar);
            rest.awaitRunning(holder, Duration.ofSeconds(90));
            String held = "1 of the cluster's 2 slots is free: job " + holder + " '" + SlotHolderJar.NAME + "' (RUNNING) holds 1";

            // more than is free: refused naming the job holding them
            CliRun busy = CliRun.of(submit(url, bootstrap, "fit-busy", "2"));
            assertThat(busy.rc).as(busy.all()).isEqualTo(1);
            assertThat(busy.err.strip()).doesNotContain("\n").startsWith("tierroute submit: the job needs 2 task slots")
                    .contains(held, "pass --wait-for-slots to submit anyway");
            assertThat(rest.jobs()).filteredOn(j -> !j.state().equals("CANCELED"))
                    .extracting(FlinkRestClient.JobSummary::id).containsExactly(holder);

            // --wait-for-slots: submitted, shown waiting, and failing with Flink's root cause and the slots' holder
            List<String> waits = submit(url, bootstrap, "fit-waits", "2");
            waits.addAll(1, List.of("--wait-for-slots", "--wait", "20s"));
            CliRun timedOut = CliRun.of(waits);
            assertThat(timedOut.rc).as(timedOut.all()).isEqualTo(1);
            assertThat(timedOut.out).contains("the job needs 2 task slots", held, "submitting anyway (--wait-for-slots), "
                    + "waiting up to 20 s for them").containsPattern("\\d+ s: job [A-Z]+, \\d+ of \\d+ tasks running.*; "
                    + "\\d of 2 slots free, it needs 2");
            String waitsId = jobId(timedOut.out);
            assertThat(timedOut.err).contains("job " + waitsId + " (fit-waits) is ", "; root cause: " + NO_SLOT,
                    "\nthe job needs 2 task slots", held);
            System.out.println("[measured] --wait-for-slots, slots held: " + timedOut.err.strip().replace("\n", " | "));
            cancel(rest, waitsId);

            // --wait-for-slots while the holder ends: the job gets its slots and runs
            List<String> getsSlots = submit(url, bootstrap, "fit-gets-slots", "2");
            getsSlots.addAll(1, List.of("--wait-for-slots", "--wait", "120s"));
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CompletableFuture<Integer> rc = CompletableFuture.supplyAsync(() -> TierrouteCommand.execute(
                    getsSlots.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (!out.toString().contains("tasks running") && !rc.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertThat(out.toString()).as(out + "\n" + err).contains("tasks running");
            cancel(rest, holder);
            assertThat(rc.get(150, TimeUnit.SECONDS)).as(out + "\n" + err).isZero();
            assertThat(out.toString()).containsPattern("job [0-9a-f]{32} \\(fit-gets-slots\\): RUNNING, \\d+ tasks running");
            System.out.println("[measured] --wait-for-slots, slots freed: " + out.toString().strip().replace("\n", " | "));
            cancel(rest, jobId(out.toString()));
        } finally {
            stopAll(flink, kafka);
            Runtime.getRuntime().removeShutdownHook(cleanup);
        }
    }

    /** {@code submit} of the fitting job named {@code name} at {@code parallelism}; flags of submit go before index 1's. */
    private static List<String> submit(String flink, String bootstrap, String name, String parallelism) {
        return new ArrayList<>(List.of("submit", "--flink", flink, "--bootstrap", bootstrap, "--jar", JOB_JAR.toString(),
                "--", "--parallelism", parallelism, "--job-name", name, "--group-id", name, "--transactional-id-prefix", name));
    }

    private static void cancel(FlinkRestClient rest, String id) throws InterruptedException {
        rest.cancel(id);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!rest.jobState(id).equals("CANCELED") && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(rest.jobState(id)).isEqualTo("CANCELED");
    }

    /** The job id {@code submit} printed ("job ID submitted"). */
    private static String jobId(String submitOut) {
        Matcher m = Pattern.compile("job ([0-9a-f]{32}) submitted").matcher(submitOut);
        assertThat(m.find()).as(submitOut).isTrue();
        return m.group(1);
    }

    /** {@code GET /jars}: the jars uploaded to the cluster. */
    private static String uploadedJars(String flink) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(flink + "/jars"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static void stopAll(FlinkSessionCluster flink, KafkaBrokerProcess kafka) {
        try {
            flink.close();
        } finally {
            kafka.close();
        }
    }
}
