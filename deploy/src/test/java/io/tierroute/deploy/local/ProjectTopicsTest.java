package io.tierroute.deploy.local;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Topics;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The params topic takes the largest record the fitting job's producer sends (4 MiB) on a broker left at its ~1 MB
 * default: a snapshot with a large forest was refused there, and the refusal failed the job in a loop.
 */
class ProjectTopicsTest {

    @Test
    void theParamsTopicTakesARecordOfSeveralMegabytesWhereTheBrokersDefaultWouldRefuseIt() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            ProjectTopics.create(kafka.bootstrapServers(), (short) 1);
            byte[] big = new byte[3 * 1024 * 1024];
            new Random(1).nextBytes(big); // incompressible, and sent uncompressed: the broker sees all of it
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(4 * 1024 * 1024));
            try (var producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                assertThat(producer.send(new ProducerRecord<>(Topics.PARAMS, "k".getBytes(), big)).get(30, TimeUnit.SECONDS).offset())
                        .isZero();
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>(Topics.CONTROL, "k".getBytes(), big)).get(30, TimeUnit.SECONDS))
                        .as("a topic left at the broker's default refuses it")
                        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(RecordTooLargeException.class);
            }
            assertThat(ProjectTopics.recordLimitsBelowSpec(kafka.bootstrapServers())).as("created at the spec").isEmpty();
        }
    }

    @Test
    void aParamsTopicOfAnEarlierReleaseIsLeftAsItIsAndNamedWithTheCommandThatRaisesItsLimit() {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic(Topics.PARAMS, 1, java.util.Map.of("cleanup.policy", "compact")); // no record limit of its own
            assertThat(ProjectTopics.create(kafka.bootstrapServers(), (short) 1)).doesNotContain(Topics.PARAMS);
            assertThat(ProjectTopics.recordLimitsBelowSpec(kafka.bootstrapServers())).singleElement().asString()
                    .startsWith(Topics.PARAMS + " takes records of at most ")
                    .contains("--entity-name " + Topics.PARAMS + " --add-config max.message.bytes="
                            + Topics.PARAMS_MAX_MESSAGE_BYTES);
        }
    }

    /** A host that does not resolve is the client refusing its settings, said as such: not the broker's answer. */
    @Test
    void aHostThatDoesNotResolveIsTheClientsSettingsRefusedNotTheBrokers() {
        assertThatThrownBy(() -> ProjectTopics.missing("no-such-host.invalid:9092", java.util.Map.of(),
                java.util.List.of(Topics.PARAMS)))
                .isInstanceOfSatisfying(ProjectTopics.Unlisted.class, e -> assertThat(e.settingsRefused()).isTrue())
                .hasMessageStartingWith("the Kafka client refused its settings for no-such-host.invalid:9092: ")
                .hasMessageContaining("No resolvable bootstrap urls");
    }
}
