package io.tierroute.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The resume lines, pasted as printed, on a real cluster of 1 TaskManager with 1 slot ({@code cluster up --slots 1}):
 * a job submitted with {@code --parallelism 1 --checkpoint-interval 1s} is stopped with {@code submit --savepoint}, whose
 * {@code restart it with:} line carries both (Flink's {@code job-parallelism} and checkpoint interval) and starts the job
 * from the savepoint, where the same line without {@code --parallelism} is refused by submit's slot check (the default,
 * 2, is more than the cluster has); then {@code cluster down} while that job runs prints the line of its last checkpoint,
 * which, after {@code cluster up} on the same directory, starts it from that checkpoint at parallelism 1; a down and an
 * up with nothing resumed in between keep that line, and the job resumed from it takes its record over.
 *
 * <p>On the way, on the second cluster (which runs no job): {@code submit --from-savepoint} of a path that is not there
 * gets Flink's HTTP 400, Flink lists the job as FAILED though it never ran, and {@code cluster status} says it failed
 * before it ran and why (QA: "failed: its restarts are used up"). It had a cluster of its own before, the same
 * {@code cluster up --slots 1}: sharing this one saves a cluster's start and stop.
 */
class ResumeLineClusterTest {

    private static final Path JOB_JAR = Path.of(System.getProperty("tierroute.jobJar",
            "../streaming-jobs/target/tierroute-streaming-jobs-0.1.0-SNAPSHOT-job.jar"));
    private static final String NAME = "resume-test";
    private static final String JOB_FLAGS = "-- --job-name " + NAME + " --group-id " + NAME + " --transactional-id-prefix "
            + NAME + " --parallelism 1 --checkpoint-interval 1s";

    @TempDir
    Path tmp;

    @Test
    void theResumeLinesCarryTheJobsParallelismAndRunAsPrintedOnAOneSlotCluster() throws Exception {
        assertThat(JOB_JAR).as("the job jar; build it with mvn -pl streaming-jobs -am package -DskipTests").isRegularFile();
        Path dir = tmp.resolve("cluster");
        int kafkaPort = LoopbackPorts.free();
        int flinkPort = LoopbackPorts.free();
        List<String> up = up(dir, kafkaPort, flinkPort);
        String bootstrap = "127.0.0.1:" + kafkaPort;
        String flink = "http://127.0.0.1:" + flinkPort;
        FlinkRestClient rest = new FlinkRestClient(URI.create(flink), Duration.ofSeconds(10));
        try {
            CliRun started = CliRun.of(up);
            assertThat(started.rc).as(started.all()).isZero();

            CliRun submit = CliRun.of(List.of("submit", "--flink", flink, "--bootstrap", bootstrap, "--jar", JOB_JAR.toString(),
                    "--wait", "90s", "--", "--parallelism", "1", "--job-name", NAME, "--group-id", NAME,
                    "--transactional-id-prefix", NAME, "--checkpoint-interval", "1s"));
            assertThat(submit.rc).as(submit.all()).isZero();
            awaitCheckpoint(rest, jobId(submit.out, "submitted"));

            // submit --savepoint: the restart line carries the job's parallelism and checkpoint interval
            CliRun stop = CliRun.of(List.of("submit", "--flink", flink, "--savepoint", tmp.resolve("savepoints").toString()));
            assertThat(stop.rc).as(stop.all()).isZero();
            String savepoint = group(stop.out, "savepoint: (\\S+)");
            String restart = group(stop.out, "restart it with: (.+)");
            assertThat(restart).isEqualTo("tierroute submit --flink " + flink + " --bootstrap " + bootstrap
                    + jarFlagOf(restart) + " --from-savepoint " + savepoint + " " + JOB_FLAGS);
            System.out.println("[measured] restart line: " + restart);

            // without its --parallelism (the line before), the job would ask for the default 2 slots: refused
            List<String> withoutParallelism = words(restart);
            int p = withoutParallelism.indexOf("--parallelism");
            withoutParallelism.subList(p, p + 2).clear();
            CliRun refused = CliRun.of(withoutParallelism);
            assertThat(refused.rc).as(refused.all()).isEqualTo(1);
            assertThat(refused.err).contains("the job needs 2 task slots (its --parallelism", "the cluster has 1 slot in total");

            // as printed: it runs from the savepoint, at parallelism 1, checkpointing every second
            CliRun resumed = CliRun.of(words(restart));
            assertThat(resumed.rc).as(resumed.all()).isZero();
            String resumedId = jobId(resumed.out, "submitted from savepoint " + Pattern.quote(savepoint));
            assertRestoredAsBefore(rest, resumedId, savepoint);
            awaitCheckpoint(rest, resumedId);

            // cluster down while it runs: the line of its last checkpoint carries them too
            CliRun down = CliRun.of(List.of("cluster", "down", "--dir", dir.toString()));
            assertThat(down.rc).as(down.all()).isZero();
            String resume = group(down.out, "to resume " + NAME + " after 'cluster up': (.+) \\(and its other flags\\)");
            Matcher checkpoint = Pattern.compile(" --from-savepoint (\\S+/" + resumedId + "/chk-\\d+) ").matcher(resume);
            assertThat(checkpoint.find()).as(resume).isTrue();
            assertThat(resume).isEqualTo("tierroute submit --flink " + flink + " --bootstrap " + bootstrap
                    + jarFlagOf(resume) + " --from-savepoint " + checkpoint.group(1) + " " + JOB_FLAGS);
            System.out.println("[measured] down's resume line: " + resume);

            // cluster up on the same directory (checkpoints kept), on other ports: it prints the line that resumes the
            // job there (down's output was the only record of the checkpoint, its line with the old ports), and the
            // line runs from that checkpoint as printed
            int kafkaPort2 = LoopbackPorts.free();
            int flinkPort2 = LoopbackPorts.free();
            String flink2 = "http://127.0.0.1:" + flinkPort2;
            CliRun again = CliRun.of(up(dir, kafkaPort2, flinkPort2));
            assertThat(again.rc).as(again.all()).isZero();
            assertThat(again.out).contains("'cluster down' here stopped the fitting job below, and nothing has resumed "
                    + "it since; to resume from its last checkpoint (and keep what it fitted):").doesNotContain("Next: ");
            String upLine = group(again.out, "\n    (tierroute submit .+)");
            assertThat(upLine).isEqualTo(resume.replace(flink, flink2).replace(bootstrap, "127.0.0.1:" + kafkaPort2));

            // on this cluster, which runs no job: a job Flink refused at submission (a --from-savepoint path that is
            // not there gets Flink's HTTP 400, and Flink lists the job as FAILED though it never ran) is said by
            // 'cluster status' to have failed before it ran, and why (QA: "failed: its restarts are used up")
            Path missing = tmp.resolve("no-such-savepoint");
            CliRun refusedSubmit = CliRun.of(List.of("submit", "--flink", flink2, "--bootstrap", "127.0.0.1:" + kafkaPort2,
                    "--jar", JOB_JAR.toString(), "--from-savepoint", missing.toString(), "--", "--parallelism", "1"));
            assertThat(refusedSubmit.rc).as(refusedSubmit.all()).isEqualTo(1);
            assertThat(refusedSubmit.err).contains("HTTP 400").contains("FileNotFoundException");
            CliRun status = CliRun.of("cluster", "status", "--dir", dir.toString());
            assertThat(status.rc).as("a halted fitting job: " + status.all()).isEqualTo(1);
            assertThat(status.out).contains(": FAILED")
                    .contains("failed before it ran: Flink could not start it (FileNotFoundException: Cannot find "
                            + "checkpoint or savepoint file/directory '" + missing + "'")
                    .doesNotContain("restarts are used up");
            System.out.println("[measured] " + status.out.strip().replace("\n", "\n[measured] "));

            // down and up again with nothing resumed in between: the job stays recorded, its line on the third ports
            // (the down that stopped no job used to delete the record)
            CliRun down2 = CliRun.of(List.of("cluster", "down", "--dir", dir.toString()));
            assertThat(down2.rc).as(down2.all()).isZero();
            int kafkaPort3 = LoopbackPorts.free();
            int flinkPort3 = LoopbackPorts.free();
            String flink3 = "http://127.0.0.1:" + flinkPort3;
            CliRun third = CliRun.of(up(dir, kafkaPort3, flinkPort3));
            assertThat(third.rc).as(third.all()).isZero();
            String thirdLine = group(third.out, "\n    (tierroute submit .+)");
            assertThat(thirdLine).isEqualTo(resume.replace(flink, flink3).replace(bootstrap, "127.0.0.1:" + kafkaPort3));

            CliRun fromCheckpoint = CliRun.of(words(thirdLine));
            assertThat(fromCheckpoint.rc).as(fromCheckpoint.all()).isZero();
            String fromCheckpointId = jobId(fromCheckpoint.out, "submitted from savepoint "
                    + Pattern.quote(checkpoint.group(1)));
            FlinkRestClient rest3 = new FlinkRestClient(URI.create(flink3), Duration.ofSeconds(10));
            assertRestoredAsBefore(rest3, fromCheckpointId, checkpoint.group(1));
            awaitCheckpoint(rest3, fromCheckpointId);

            // the resumed job took its record over: the next down records it alone, at its own checkpoint
            CliRun down3 = CliRun.of(List.of("cluster", "down", "--dir", dir.toString()));
            assertThat(down3.rc).as(down3.all()).isZero();
            String record = Files.readString(dir.resolve("stopped-jobs.properties"));
            assertThat(record).contains("/" + fromCheckpointId + "/chk-").doesNotContain("job.1.")
                    .doesNotContain("/" + resumedId + "/");
        } finally {
            CliRun down = CliRun.of(List.of("cluster", "down", "--dir", dir.toString()));
            assertThat(down.rc).as(down.all()).isZero();
        }
    }

    /** {@code cluster up} of a one-slot cluster on {@code dir} at these Kafka and Flink REST ports (the others free). */
    private static List<String> up(Path dir, int kafkaPort, int flinkPort) {
        return List.of("cluster", "up", "--dir", dir.toString(), "--kafka-port", Integer.toString(kafkaPort),
                "--kafka-controller-port", Integer.toString(LoopbackPorts.free()), "--flink-port", Integer.toString(flinkPort),
                "--flink-rpc-port", Integer.toString(LoopbackPorts.free()), "--slots", "1", "--metrics-port", "0",
                "--timeout", "120s");
    }

    /** The job restored from {@code path} (its checkpoint statistics), at parallelism 1 with 1 s checkpoints. */
    private static void assertRestoredAsBefore(FlinkRestClient rest, String jobId, String path) throws Exception {
        assertThat(rest.jobConfig(jobId).orElseThrow().parallelism()).isEqualTo(OptionalInt.of(1));
        assertThat(rest.checkpointConfig(jobId).intervalMs()).isEqualTo(1000);
        String restored = "";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!restored.contains("\"external_path\":\"" + path + "\"") && System.nanoTime() < deadline) {
            Thread.sleep(200);
            restored = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(rest.base() + "/jobs/" + jobId
                    + "/checkpoints")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
        }
        assertThat(restored).as("GET /jobs/" + jobId + "/checkpoints").contains("\"restored\":{")
                .contains("\"external_path\":\"" + path + "\"");
    }

    private static void awaitCheckpoint(FlinkRestClient rest, String jobId) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (rest.completedCheckpoints(jobId) < 1 && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(rest.completedCheckpoints(jobId)).as("completed checkpoints of " + jobId).isPositive();
    }

    /** {@code " --jar PATH"} when the printed line has one (outside a checkout), else "". */
    private static String jarFlagOf(String line) {
        Matcher m = Pattern.compile(" --jar \\S+").matcher(line);
        return m.find() ? m.group() : "";
    }

    /**
     * The printed {@code tierroute ...} line as the words a POSIX shell would pass (single quotes as ShellWords writes
     * them), without {@code tierroute}; a {@code --jar} placeholder (a run outside a checkout) names the job jar.
     */
    private static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean quoted = false;
        boolean any = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '\'') {
                    quoted = false;
                } else {
                    w.append(c);
                }
            } else if (c == '\'') {
                quoted = true;
                any = true;
            } else if (c == '\\' && i + 1 < line.length()) {
                w.append(line.charAt(++i));
            } else if (c == ' ') {
                if (any || w.length() > 0) {
                    words.add(w.toString());
                }
                w.setLength(0);
                any = false;
            } else {
                w.append(c);
            }
        }
        if (any || w.length() > 0) {
            words.add(w.toString());
        }
        assertThat(words.get(0)).isEqualTo("tierroute");
        int jar = words.indexOf("--jar");
        if (jar >= 0) {
            words.set(jar + 1, JOB_JAR.toString());
        }
        return new ArrayList<>(words.subList(1, words.size()));
    }

    private static String group(String out, String regex) {
        Matcher m = Pattern.compile(regex).matcher(out);
        assertThat(m.find()).as(regex + " in:\n" + out).isTrue();
        return m.group(1);
    }

    /** The job id of "job ID WHAT" in {@code submit}'s output. */
    private static String jobId(String out, String what) {
        return group(out, "job ([0-9a-f]{32}) " + what);
    }
}
