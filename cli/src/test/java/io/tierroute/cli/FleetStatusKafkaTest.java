package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.kafka.ParameterLoader;
import io.tierroute.selector.kafka.SnapshotConverter;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.WorkerRegistry;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The fleet's status line says when its selector's parameter loader has lost Kafka (QA F3: the line kept printing the
 * same numbers and nothing said the fleet was blocked on Kafka).
 */
class FleetStatusKafkaTest {

    @Test
    void theStatusLineSaysHowLongKafkaHasBeenUnreachable() throws Exception {
        // Nothing listens there: a port below the OS's ephemeral range, where servers that bind port 0 get theirs.
        int port = LoopbackPorts.free();
        ParameterLoader loader = new ParameterLoader(KafkaSettings.defaults("127.0.0.1:" + port),
                new ParameterStore(ParameterSet.defaults(2)),
                new SnapshotConverter(new WorkerRegistry(List.of("w0", "w1")), CostParameters.DEFAULTS, 0.5));
        try (loader) {
            assertThat(FleetRun.kafkaContact(loader)).as("not yet known to be unreachable").isEmpty();
            loader.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(12);
            while (loader.kafkaConnected() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(FleetRun.kafkaContact(loader)).matches(" · Kafka unreachable for \\d+ s");
        }
    }
}
