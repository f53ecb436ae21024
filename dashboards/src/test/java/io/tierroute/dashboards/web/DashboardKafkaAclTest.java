package io.tierroute.dashboards.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.Dashboard;
import io.tierroute.dashboards.Snapshots;
import io.tierroute.dashboards.control.ControlFence;
import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.SnapshotControl;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard on a broker that requires SASL/PLAIN and authorises with ACLs (Kafka's StandardAuthorizer, the
 * recipe of deploy/README.md), its Kafka principal granted everything a write needs but the transactional ids
 * ({@value ControlFence#TRANSACTIONAL_ID_PREFIX}...) that fence a scope's writers: a pin over HTTP answers an error
 * that names the missing ACL, writes nothing, and the same pin succeeds once that ACL is granted.
 */
class DashboardKafkaAclTest {

    private static final String TOKEN = "t0ken";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static EmbeddedKafka kafka;
    private static Properties admin;

    @BeforeAll
    static void startSecuredBroker() throws Exception {
        kafka = EmbeddedKafka.startWithSasl(new EmbeddedKafka.Sasl("admin", "admin-secret",
                Map.of("dashboard", "dashboard-secret")), Map.of());
        admin = kafka.clientProperties("admin", "admin-secret");
        for (Topics.Spec s : Topics.specs()) {
            kafka.createTopic(s.name(), s.partitions(), s.configs());
        }
        for (String topic : new String[] {Topics.PARAMS, Topics.CONTROL}) {
            kafka.grant("dashboard", topic, AclOperation.READ, AclOperation.DESCRIBE);
        }
        kafka.grant("dashboard", Topics.CONTROL, AclOperation.WRITE);
        Properties p = new Properties();
        p.putAll(admin);
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("linger.ms", "0");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            Broker.publish(producer, Snapshots.accepted("default", 1).build());
            Broker.publish(producer, Snapshots.accepted("default", 2).build());
        }
    }

    @AfterAll
    static void stopSecuredBroker() {
        if (kafka != null) {
            kafka.close();
        }
    }

    private static HttpResponse<String> pin(HttpClient http, Dashboard d) throws Exception {
        return http.send(HttpRequest.newBuilder(d.uri().resolve("api/v1/scopes/default/pin"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + TOKEN)
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString("{\"version\": 1, \"reason\": \"acl test\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The broker refuses the scope's transactional id: the pin answers 503 with an error naming the ACL the
     * dashboard's principal lacks (WRITE, DESCRIBE on transactional ids with the prefix) and saying nothing was
     * written; nothing is on the control topic. Granted that ACL, the same pin is written.
     */
    @Test
    void aPinWithoutTheTransactionalIdAclIsAnErrorThatNamesItAndWritesNothing() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        try (Dashboard d = Dashboard.start(new Dashboard.Settings(kafka.bootstrapServers(), "127.0.0.1", 0, TOKEN,
                "TEST_TOKEN", "default", kafka.clientProperties("dashboard", "dashboard-secret")))) {
            assertThat(d.reader().awaitReady(Duration.ofSeconds(60))).as("the principal may read the history").isTrue();

            HttpResponse<String> r = pin(http, d);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
            assertThat(JSON.readTree(r.body()).get("error").asText())
                    .contains("did not authorise the dashboard's Kafka client to write " + Topics.CONTROL)
                    .as("the broker's refusal, which names the resource").contains("Transactional Id authorization failed")
                    .contains("WRITE, DESCRIBE on transactional ids with the prefix "
                            + ControlFence.TRANSACTIONAL_ID_PREFIX)
                    .contains("nothing was written");
            assertThat(Broker.controlRecords(kafka.bootstrapServers(), admin)).as("nothing on the control topic")
                    .isEmpty();
            assertThat(d.history().activeVersion("default")).hasValue(2);

            kafka.grantTransactionalIds("dashboard", ControlFence.TRANSACTIONAL_ID_PREFIX, AclOperation.WRITE,
                    AclOperation.DESCRIBE);
            // An ACL reaches the broker's authorizer through the metadata log, a moment after createAcls returns.
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            do {
                r = pin(http, d);
            } while (r.statusCode() == 503 && System.nanoTime() < deadline);
            assertThat(r.statusCode()).as("granted the transactional ids: " + r.body()).isEqualTo(200);
            assertThat(Broker.controlRecords(kafka.bootstrapServers(), admin)).singleElement()
                    .extracting(SnapshotControl::getVersion).isEqualTo(1L);
            assertThat(d.history().activeVersion("default")).hasValue(1);
        }
    }
}
