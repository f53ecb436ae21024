package io.tierroute.sim.live;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/** The fleet producer's own settings are defaults an operator's client file may change, but for its address and id. */
class FleetPublisherSettingsTest {

    @Test
    void theFleetsBatchingAndAcksAreDefaults() {
        Properties p = FleetPublisher.producerProperties("127.0.0.1:9092", Map.of("security.protocol", "SSL"));
        assertThat(p).containsEntry("linger.ms", "20").containsEntry("batch.size", "262144").containsEntry("acks", "all")
                .containsEntry("security.protocol", "SSL").containsEntry("bootstrap.servers", "127.0.0.1:9092")
                .containsEntry("client.id", "tierroute-live-fleet");
    }

    @Test
    void aClientFileChangesThemButNotTheAddressOrTheClientId() {
        Properties p = FleetPublisher.producerProperties("127.0.0.1:9092", Map.of("acks", "1", "linger.ms", "5",
                "batch.size", "16384", "bootstrap.servers", "elsewhere:9092", "client.id", "mine"));
        assertThat(p).containsEntry("acks", "1").containsEntry("linger.ms", "5").containsEntry("batch.size", "16384")
                .containsEntry("bootstrap.servers", "127.0.0.1:9092").containsEntry("client.id", "tierroute-live-fleet");
    }
}
