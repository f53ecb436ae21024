package io.tierroute.selector.server;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Topics;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import org.apache.kafka.common.acl.AclOperation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.Writer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The selector's three Kafka clients against a broker that requires SASL and ACLs, with their client
 * settings from {@code kafka.propertiesFile}: with the right credentials the loader catches up and
 * decisions are acknowledged; without them, or with a wrong password, the start fails and says so.
 */
class SelectorKafkaSaslTest {

    private static final String PASSWORD = "selector-secret-41";
    private static EmbeddedKafka kafka;

    @TempDir
    Path dir;

    @BeforeAll
    static void broker() {
        kafka = EmbeddedKafka.startWithSasl(new EmbeddedKafka.Sasl("admin", "admin-secret",
                Map.of("selector", PASSWORD)), Map.of());
        for (Topics.Spec s : Topics.specs()) {
            kafka.createTopic(s.name(), s.partitions(), s.configs());
        }
        for (String t : new String[] {Topics.PARAMS, Topics.CONTROL, Topics.KV_EVENTS}) {
            kafka.grant("selector", t, AclOperation.READ, AclOperation.DESCRIBE);
        }
        kafka.grant("selector", Topics.DECISIONS, AclOperation.WRITE, AclOperation.DESCRIBE);
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    private SelectorConfig config(Properties client, String timeout) throws Exception {
        String propsLine = "";
        if (client != null) {
            Path file = dir.resolve("kafka-client.properties");
            try (Writer w = Files.newBufferedWriter(file)) {
                client.store(w, "selector client settings");
            }
            propsLine = "  propertiesFile: kafka-client.properties\n";
        }
        SelectorConfig c = ConfigLoader.parse("workers: {count: 2}\nkafka:\n  bootstrapServers: \""
                + kafka.bootstrapServers() + "\"\n" + propsLine
                + "  params: {requireOnStart: true, startupTimeout: " + timeout + "}\n", dir);
        return c.withServer(c.server().withPort(0));
    }

    @Test
    void connectsWithTheCredentialsOfThePropertiesFile() throws Exception {
        SelectorConfig c = config(kafka.clientProperties("selector", PASSWORD), "30s");
        assertThat(c.kafka().properties()).containsEntry("security.protocol", "SASL_PLAINTEXT")
                .containsEntry("sasl.mechanism", "PLAIN");
        try (SelectorServer s = SelectorServer.startWith(c, Map.<String, String>of()::get, false)) {
            assertThat(s.kafka().status()).extractingByKey("params").asString().contains("ready=true");
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(s.uri().resolve("/v1/route"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"text\":\"hello\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            String decisions = "";
            while (System.nanoTime() < deadline) {
                decisions = String.valueOf(s.kafka().status().get("decisions"));
                if (decisions.contains("acknowledged=1")) {
                    break;
                }
                Thread.sleep(50);
            }
            assertThat(decisions).as("the broker acknowledged the decision").contains("acknowledged=1")
                    .contains("send_failed=0");
            assertThat(String.valueOf(s.kafka().status().get("kv_events"))).contains("restarts=0");
        }
    }

    @Test
    void failsClearlyWithoutCredentialsOrWithAWrongPassword() throws Exception {
        assertThatThrownBy(() -> SelectorServer.startWith(config(null, "3s"), Map.<String, String>of()::get, false))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot start the Kafka parts")
                .hasMessageContaining(kafka.bootstrapServers()).hasMessageContaining("did not catch up");
        Properties wrong = kafka.clientProperties("selector", "not-the-password");
        assertThatThrownBy(() -> SelectorServer.startWith(config(wrong, "10s"), Map.<String, String>of()::get, false))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot start the Kafka parts")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("not-the-password"));
    }
}
