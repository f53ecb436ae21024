package io.tierroute.cli;

import io.tierroute.deploy.local.ClusterDirLock;
import io.tierroute.deploy.local.FlinkSessionCluster;
import io.tierroute.deploy.local.LocalCluster;
import io.tierroute.deploy.local.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ctrl-C during {@code cluster up}, in a JVM of its own as an operator runs it: the processes it had started (the
 * Kafka broker, up before Flink) are stopped, not left running where no {@code cluster down} would find them, and
 * every port it was given is free again for the next {@code up}. While it starts, a {@code cluster down} on its
 * directory (from this JVM, another process) is refused naming it, and its lock is free once it has exited; the Flink
 * scratch files of an earlier run are gone before Flink starts.
 */
class ClusterUpInterruptTest {

    @TempDir
    Path dir;

    @Test
    void ctrlCWhileFlinkStartsStopsTheBrokerItHadStarted() throws Exception {
        int kafkaPort = LoopbackPorts.free();
        List<Integer> ports = List.of(kafkaPort, LoopbackPorts.free(), LoopbackPorts.free(), LoopbackPorts.free());
        Path clusterDir = dir.resolve("cluster");
        // what a killed JobManager of an earlier run left
        Path leftover = FlinkSessionCluster.scratchDirs(LocalCluster.flinkDir(clusterDir)).get(0)
                .resolve("jm_0123/blobStorage/blob_1");
        Files.createDirectories(leftover.getParent());
        Files.write(leftover, new byte[1024]);
        Path checkpoint = Files.createDirectories(LocalCluster.flinkDir(clusterDir).resolve("checkpoints/job/chk-1"));
        List<String> up = List.of("cluster", "up", "--dir", clusterDir.toString(),
                "--kafka-port", Integer.toString(kafkaPort), "--kafka-controller-port", Integer.toString(ports.get(1)),
                "--flink-port", Integer.toString(ports.get(2)), "--flink-rpc-port", Integer.toString(ports.get(3)),
                "--metrics-port", "0");
        try (DemoChild child = DemoChild.command(dir.resolve("run"), up, Map.of())) {
            // The state file names the broker once it is ready: Flink starts after it.
            child.awaitLast(Pattern.compile("starting Kafka and Flink"), m -> LoopbackPorts.listening(kafkaPort)
                    && Files.exists(clusterDir.resolve(LocalCluster.STATE_FILE)), Duration.ofSeconds(120),
                    "its Kafka broker listening");
            assertThat(child.startedProcessesAlive()).as("the broker process").isNotEmpty();
            assertThat(leftover).as("an earlier run's scratch file, once Kafka runs").doesNotExist();
            assertThat(checkpoint).exists();
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int down = TierrouteCommand.execute(new String[] {"cluster", "down", "--dir", clusterDir.toString()},
                    new PrintWriter(out, true), new PrintWriter(err, true));
            assertThat(down).as(err.toString()).isEqualTo(1);
            assertThat(err.toString().strip()).isEqualTo("tierroute cluster down: a 'cluster up' is in progress on "
                    + clusterDir.toAbsolutePath() + " (pid " + child.pid() + "); wait for it or stop it");

            DemoChild.Signal sent = child.ctrlC();
            OptionalInt rc = child.awaitExit(Duration.ofSeconds(60));
            assertThat(rc).as("exited after " + sent + "; log:\n" + child.tail(4000)).isPresent();
            assertThat(child.startedProcessesAlive()).as("processes left running; log:\n" + child.tail(4000)).isEmpty();
            assertThat(child.log()).contains("tierroute cluster up: interrupted; stopping the");
            assertThat(Files.exists(clusterDir.resolve(LocalCluster.STATE_FILE))).as("state file").isFalse();
            ClusterDirLock.acquire(clusterDir, "up").close(); // released with the interrupted JVM
            for (int port : ports) {
                assertThat(LoopbackPorts.listening(port)).as("port " + port + " free for the next 'cluster up'").isFalse();
            }
        }
    }
}
