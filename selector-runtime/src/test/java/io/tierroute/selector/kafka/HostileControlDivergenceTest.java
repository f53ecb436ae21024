package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.WorkerRegistry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.tierroute.selector.kafka.KafkaFixture.await;
import static io.tierroute.selector.kafka.KafkaFixture.control;
import static io.tierroute.selector.kafka.KafkaFixture.publish;
import static io.tierroute.selector.kafka.KafkaFixture.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

/** A control record the fitting job dead-letters is not applied by the selector either (ControlRecordCheck). */
class HostileControlDivergenceTest {
    @Test
    void aControlRecordTheJobRefusesDoesNotUnpinTheSelector() throws Exception {
        KafkaFixture.resetTopics();
        try (KafkaProducer<byte[], byte[]> producer = KafkaFixture.producer()) {
            publish(producer, snapshot("default", 1).build());
            publish(producer, snapshot("default", 2).build());
            control(producer, "default", ControlAction.PIN, 1L, 1);
            ParameterStore store = new ParameterStore(ParameterSet.defaults(3));
            ParameterLoader l = new ParameterLoader(KafkaFixture.settings(), store,
                    new SnapshotConverter(new WorkerRegistry(List.of("w0", "w1", "w2")), CostParameters.DEFAULTS, 0.5)).start();
            try {
                assertThat(l.awaitReady(Duration.ofSeconds(20))).isTrue();
                assertThat(store.current().version()).isEqualTo(1);
                // RecordValidator.control dead-letters this ("version must be >= 1 or null, got -5"): the job keeps the pin.
                SnapshotControl bad = SnapshotControl.newBuilder().setScope("default").setAction(ControlAction.UNPIN)
                        .setVersion(-5L).setReason("x").setActor("x").setTimestampMs(1).setSequence(7).build();
                KafkaFixture.send(producer, Topics.CONTROL, "default", Codecs.SNAPSHOT_CONTROL.encode(bad));
                await(Duration.ofSeconds(20), () -> l.controlRecordsRead() == 2, "read");
                Thread.sleep(500);
                assertThat(store.current().version()).as("the job still holds the pin on 1").isEqualTo(1);
            } finally {
                l.close();
            }
        }
    }
}
