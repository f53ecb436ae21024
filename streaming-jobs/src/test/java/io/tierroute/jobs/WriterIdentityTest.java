package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.flink.api.common.ArchivedExecutionConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The job's writer identity reaches what Flink's REST API serves as {@code execution-config.user-config}
 * (the archived execution config of the job's environment), and nothing else rides along.
 */
class WriterIdentityTest {

    @Test
    void theExecutionConfigCarriesExactlyTheNonSecretWriterFields() {
        JobSettings s = JobSettings.parse("--bootstrap-servers", "kafka-a:9092,kafka-b:9092", "--job-name", "fit-b",
                "--group-id", "g-b", "--transactional-id-prefix", "tx-b");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(KafkaWiring.configuration(s));

        Map<String, String> served = new ArchivedExecutionConfig(env.getConfig()).getGlobalJobParameters();

        // exact: a field added here is read by anyone who reaches the Flink REST port, so it must be a decision
        assertThat(served).containsExactlyInAnyOrderEntriesOf(Map.of(
                "tierroute.role", "fitting-job",
                "tierroute.params-topic", "tierroute.params",
                "tierroute.bootstrap-servers", "kafka-a:9092,kafka-b:9092",
                "tierroute.job-name", "fit-b",
                "tierroute.group-id", "g-b",
                "tierroute.transactional-id-prefix", "tx-b"));

        // The client settings' file is named (a resumed job needs it), its contents never leave it.
        JobSettings secured = s.toBuilder().set("kafka-properties", "/etc/tierroute-kafka/client.properties").build();
        Map<String, String> securedServed = new ArchivedExecutionConfig(StreamExecutionEnvironment
                .getExecutionEnvironment(KafkaWiring.configuration(secured)).getConfig()).getGlobalJobParameters();
        assertThat(securedServed).hasSize(7).containsEntry("tierroute.kafka-properties",
                "/etc/tierroute-kafka/client.properties");
    }
}
