package io.tierroute.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.local.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

/**
 * A job Flink refused at submission, on a real cluster ({@code cluster up --slots 1}): {@code submit --from-savepoint}
 * of a path that is not there gets Flink's HTTP 400, and Flink lists the job as FAILED though it never ran.
 * {@code cluster status} says it failed before it ran and why (QA: "failed: its restarts are used up").
 */
class RefusedJobStatusClusterTest {

    private static final Path JOB_JAR = Path.of(System.getProperty("tierroute.jobJar",
            "../streaming-jobs/target/tierroute-streaming-jobs-0.1.0-SNAPSHOT-job.jar"));

    @TempDir
    Path tmp;

    @Test
    void aJobRefusedAtSubmissionIsSaidToHaveFailedBeforeItRan() {
        assertThat(JOB_JAR).as("the job jar; build it with mvn -pl streaming-jobs -am package -DskipTests").isRegularFile();
        Path dir = tmp.resolve("cluster");
        int kafkaPort = LoopbackPorts.free();
        int flinkPort = LoopbackPorts.free();
        String flink = "http://127.0.0.1:" + flinkPort;
        try {
            CliRun up = CliRun.of("cluster", "up", "--dir", dir.toString(), "--kafka-port", Integer.toString(kafkaPort),
                    "--kafka-controller-port", Integer.toString(LoopbackPorts.free()), "--flink-port",
                    Integer.toString(flinkPort), "--flink-rpc-port", Integer.toString(LoopbackPorts.free()), "--slots", "1",
                    "--metrics-port", "0", "--timeout", "120s");
            assertThat(up.rc).as(up.all()).isZero();

            Path missing = tmp.resolve("no-such-savepoint");
            CliRun submit = CliRun.of(List.of("submit", "--flink", flink, "--bootstrap", "127.0.0.1:" + kafkaPort, "--jar",
                    JOB_JAR.toString(), "--from-savepoint", missing.toString(), "--", "--parallelism", "1"));
            assertThat(submit.rc).as(submit.all()).isEqualTo(1);
            assertThat(submit.err).contains("HTTP 400").contains("FileNotFoundException");

            CliRun status = CliRun.of("cluster", "status", "--dir", dir.toString());
            assertThat(status.rc).as("a halted fitting job: " + status.all()).isEqualTo(1);
            assertThat(status.out).contains(": FAILED")
                    .contains("failed before it ran: Flink could not start it (FileNotFoundException: Cannot find "
                            + "checkpoint or savepoint file/directory '" + missing + "'")
                    .doesNotContain("restarts are used up");
            System.out.println("[measured] " + status.out.strip().replace("\n", "\n[measured] "));
        } finally {
            CliRun down = CliRun.of("cluster", "down", "--dir", dir.toString());
            assertThat(down.rc).as(down.all()).isZero();
        }
    }
}
