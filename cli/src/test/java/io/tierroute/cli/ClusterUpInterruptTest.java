package io.tierroute.cli;

import io.tierroute.deploy.local.LocalCluster;
import io.tierroute.deploy.local.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
 * every port it was given is free again for the next {@code up}.
 */
class ClusterUpInterruptTest {

    @TempDir
    Path dir;

    @Test
    void ctrlCWhileFlinkStartsStopsTheBrokerItHadStarted() throws Exception {
        int kafkaPort = LoopbackPorts.free();
        List<Integer> ports = List.of(kafkaPort, LoopbackPorts.free(), LoopbackPorts.free(), LoopbackPorts.free());
        Path clusterDir = dir.resolve("cluster");
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

            DemoChild.Signal sent = child.ctrlC();
            OptionalInt rc = child.awaitExit(Duration.ofSeconds(60));
            assertThat(rc).as("exited after " + sent + "; log:\n" + child.tail(4000)).isPresent();
            assertThat(child.startedProcessesAlive()).as("processes left running; log:\n" + child.tail(4000)).isEmpty();
            assertThat(child.log()).contains("tierroute cluster up: interrupted; stopping the");
            assertThat(Files.exists(clusterDir.resolve(LocalCluster.STATE_FILE))).as("state file").isFalse();
            for (int port : ports) {
                assertThat(LoopbackPorts.listening(port)).as("port " + port + " free for the next 'cluster up'").isFalse();
            }
        }
    }
}
