package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import io.tierroute.selector.server.SelectorServer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static io.tierroute.selector.kafka.KafkaFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The server with a kafka section: parameters at start-up, status and metrics, decisions out. */
class SelectorServerKafkaTest {

    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void setUp() throws Exception {
        KafkaFixture.resetTopics();
    }

    private static SelectorServer start(String kafkaSection) {
        SelectorConfig c = ConfigLoader.parse("workers: [{name: w0}, {name: w1}]\n" + kafkaSection, Path.of("."));
        return SelectorServer.start(c.withServer(c.server().withPort(0)), null, false);
    }

    private String get(SelectorServer s, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(s.uri().resolve(path)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void serverAppliesTopicParametersBeforeServingAndPublishesDecisions() throws Exception {
        try (KafkaProducer<byte[], byte[]> p = KafkaFixture.producer()) {
            for (long v = 1; v <= 5; v++) {
                KafkaFixture.publish(p, KafkaFixture.snapshot("default", v).build());
                KafkaFixture.publish(p, KafkaFixture.snapshot("pool-b", v).build());
            }
            KafkaFixture.control(p, "pool-b", ControlAction.PIN, 2L, 1);
        }
        String bootstrap = KafkaFixture.broker().bootstrapServers();
        try (SelectorServer s = start("kafka: {bootstrapServers: \"" + bootstrap + "\", clientId: sel-test, "
                + "params: {requireOnStart: true, startupTimeout: 20s}}\n")) {
            assertThat(s.parameters().current().version()).as("applied before the listener opened").isEqualTo(5);

            String params = get(s, "/v1/params");
            assertThat(params).contains("\"version\":5").contains("\"kafka\"").contains("\"ready\":true")
                    .contains("\"pool-b\":{\"active_version\":2,\"pinned\":true,\"pinned_version\":2");
            String metrics = get(s, "/metrics");
            assertThat(metrics).contains("tierroute_params_active_version{scope=\"default\"} 5.0")
                    .contains("tierroute_params_active_version{scope=\"pool-b\"} 2.0")
                    .contains("tierroute_params_pinned{scope=\"pool-b\"} 1.0")
                    .contains("tierroute_params_served_scope_pinned 0.0") // another scope's pin is not this one's
                    .contains("tierroute_params_ready 1.0")
                    .contains("tierroute_params_bad_records_total{reason=\"corrupt\",topic=\"tierroute.params\"} 0.0")
                    .contains("tierroute_decisions_dropped_total{reason=\"buffer_full\"} 0.0");

            HttpResponse<String> routed = client.send(HttpRequest.newBuilder(s.uri().resolve("/v1/route"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"request_id\":\"http-1\",\"text\":\"hello there\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(routed.statusCode()).isEqualTo(200);
            await(Duration.ofSeconds(20), () -> s.kafka().decisions().acknowledged() == 1, "decision acknowledged");

            try (KafkaProducer<byte[], byte[]> p = KafkaFixture.producer()) {
                KafkaFixture.publish(p, KafkaFixture.snapshot("default", 6).build());
            }
            await(Duration.ofSeconds(20), () -> s.parameters().current().version() == 6, "hot reload to 6");

            try (KafkaProducer<byte[], byte[]> p = KafkaFixture.producer()) { // now the served scope's own pin
                KafkaFixture.control(p, "default", ControlAction.PIN, 6L, 1);
            }
            await(Duration.ofSeconds(20), () -> {
                try {
                    return get(s, "/metrics").contains("tierroute_params_served_scope_pinned 1.0");
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }, "the served scope's pin on its gauge");
        }
        RoutingDecision d = readOne();
        assertThat(d.getRequestId()).isEqualTo("http-1");
        assertThat(d.getSelectorId()).isEqualTo("sel-test");
        assertThat(d.getSnapshotVersion()).isEqualTo(5);
        assertThat(d.getCandidateCount()).isEqualTo(2);
    }

    @Test
    void requireOnStartFailsTheStartWhenTopicsAreMissing() throws Exception {
        // Deleted by name and waited for until the broker no longer lists it: the controller accepts a creation (the
        // reset's) or a deletion before the broker's metadata shows it, and a loader that found the empty topic would
        // catch up at once (EmbeddedKafka.createTopic and deleteTopics wait for the broker).
        KafkaFixture.broker().deleteTopics(List.of(Topics.PARAMS));
        String bootstrap = KafkaFixture.broker().bootstrapServers();
        assertThatThrownBy(() -> start("kafka: {bootstrapServers: \"" + bootstrap + "\", kvEvents: {enabled: false}, "
                + "decisions: {enabled: false}, params: {requireOnStart: true, startupTimeout: 1s}}\n"))
                .hasMessageContaining("did not catch up").hasMessageContaining("requireOnStart");
        // Without requireOnStart the selector serves its configured parameters meanwhile.
        try (SelectorServer s = start("kafka: {bootstrapServers: \"" + bootstrap + "\", kvEvents: {enabled: false}, "
                + "decisions: {enabled: false}, params: {startupTimeout: 1s}}\n")) {
            assertThat(s.parameters().current().version()).isZero();
            assertThat(get(s, "/v1/params")).contains("\"ready\":false");
            assertThat(s.kafka().decisions()).isNull();
        }
    }

    private static RoutingDecision readOne() {
        Properties p = new Properties();
        p.put("bootstrap.servers", KafkaFixture.broker().bootstrapServers());
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            c.partitionsFor(Topics.DECISIONS).forEach(i -> parts.add(new TopicPartition(Topics.DECISIONS, i.partition())));
            c.assign(parts);
            c.seekToBeginning(parts);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    return Codecs.ROUTING_DECISION.decode(r.value());
                }
            }
        }
        throw new AssertionError("no decision on " + Topics.DECISIONS);
    }
}
