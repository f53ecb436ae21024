package io.tierroute.deploy.kafka;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

class EmbeddedKafkaTest {

    @Test
    void startingPrintsNothingOfKafkasStorageFormatterOnStdout() {
        java.io.PrintStream out = System.out;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            assertThat(kafka.bootstrapServers()).isNotEmpty();
        } finally {
            System.setOut(out);
        }
        assertThat(printed.toString(java.nio.charset.StandardCharsets.UTF_8))
                .as("the demo's stdout is for its URLs").doesNotContain("Bootstrap metadata").doesNotContain("Formatting");
    }

    @Test
    void brokerServesTransactionsAndTopicSettingsAndCleansUp() throws Exception {
        java.nio.file.Path dir;
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            dir = kafka.dataDir();
            kafka.createTopic("t.compacted", 2, Map.of("cleanup.policy", "compact"));
            kafka.createTopic("t.compacted", 2, Map.of("cleanup.policy", "compact")); // idempotent

            try (var admin = kafka.admin()) {
                var resource = new ConfigResource(ConfigResource.Type.TOPIC, "t.compacted");
                var config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
                assertThat(config.get("cleanup.policy").value()).isEqualTo("compact");
            }

            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-test");
            try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("t.compacted", 0, "k", "committed"));
                producer.commitTransaction();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("t.compacted", 0, "k", "aborted"));
                producer.abortTransaction();
            }

            Properties c = new Properties();
            c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            try (var consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
                TopicPartition tp = new TopicPartition("t.compacted", 0);
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                List<String> seen = new ArrayList<>();
                long deadline = System.currentTimeMillis() + 15_000;
                while (seen.isEmpty() && System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        seen.add(r.value());
                    }
                }
                assertThat(seen).containsExactly("committed");
            }
        }
        assertThat(dir).doesNotExist();
    }
}
