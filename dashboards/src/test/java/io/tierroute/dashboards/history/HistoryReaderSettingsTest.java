package io.tierroute.dashboards.history;

import org.junit.jupiter.api.Test;

import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Client settings Kafka refuses stop the reader before it starts, instead of an outage retried forever. */
class HistoryReaderSettingsTest {

    @Test
    void settingsKafkaRefusesAreRefusedAtConstruction() {
        Properties bogus = new Properties();
        bogus.setProperty("security.protocol", "BOGUS");
        assertThatThrownBy(() -> new HistoryReader("127.0.0.1:1", new SnapshotHistory(), bogus))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Kafka refuses the client settings").hasMessageContaining("security.protocol");
        Properties notANumber = new Properties();
        notANumber.setProperty("request.timeout.ms", "soon");
        assertThatThrownBy(() -> new HistoryReader("127.0.0.1:1", new SnapshotHistory(), notANumber))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'request.timeout.ms'")
                .hasMessageNotContaining("soon");
        Properties producerOnly = new Properties(); // the control writer's: its pins would all fail
        producerOnly.setProperty("acks", "most");
        assertThatThrownBy(() -> new HistoryReader("127.0.0.1:1", new SnapshotHistory(), producerOnly))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'acks'").hasMessageNotContaining("most");
    }

    @Test
    void validSettingsAndAnUnresolvableBrokerAreAccepted() {
        Properties sasl = new Properties();
        sasl.setProperty("security.protocol", "SASL_PLAINTEXT");
        sasl.setProperty("sasl.mechanism", "PLAIN");
        sasl.setProperty("config.providers", "env"); // a placeholder is the client's to resolve
        sasl.setProperty("config.providers.env.class", "org.apache.kafka.common.config.provider.EnvVarConfigProvider");
        sasl.setProperty("request.timeout.ms", "${env:KAFKA_TIMEOUT}");
        // Nothing is resolved or contacted: a broker not up yet is an outage the reader waits out.
        assertThatCode(() -> new HistoryReader("kafka.not-resolvable.invalid:9092", new SnapshotHistory(), sasl).close())
                .doesNotThrowAnyException();
    }
}
