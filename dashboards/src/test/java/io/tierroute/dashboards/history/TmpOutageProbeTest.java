package io.tierroute.dashboards.history;

import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.Snapshots;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class TmpOutageProbeTest {
    @Test
    void probe() throws Exception {
        Broker.resetTopics();
        try (KafkaProducer<byte[], byte[]> p = Broker.producer()) {
            Broker.publish(p, Snapshots.accepted("default", 1).build());
        }
        SnapshotHistory h = new SnapshotHistory();
        try (HistoryReader r = new HistoryReader(Broker.bootstrap(), h).start()) {
            assertThat(r.awaitReady(Duration.ofSeconds(30))).isTrue();
            Thread.sleep(6000);
            assertThat(r.kafkaUnreachableSinceMs()).isNull();
            Broker.get().stopBroker();
            Broker.await(Duration.ofSeconds(12), () -> r.kafkaUnreachableSinceMs() != null, "unreachable");
            System.out.println("PROBE lastError " + r.lastError());
            Broker.get().startBroker();
            Broker.await(Duration.ofSeconds(15), () -> r.kafkaUnreachableSinceMs() == null, "back");
            assertThat(r.lastError()).isNull();
            long before = h.revision();
            try (KafkaProducer<byte[], byte[]> p = Broker.producer()) {
                Broker.publish(p, Snapshots.accepted("default", 2).build());
            }
            Broker.await(Duration.ofSeconds(15), () -> h.revision() != before, "v2 read");
            System.out.println("PROBE ok, records " + r.recordsRead());
        }
    }
}
