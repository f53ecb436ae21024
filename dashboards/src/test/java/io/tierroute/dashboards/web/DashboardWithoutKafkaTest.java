package io.tierroute.dashboards.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.dashboards.Dashboard;
import io.tierroute.deploy.local.LoopbackPorts;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A dashboard whose Kafka does not answer has read no history: a scope it has not seen may well be on the topic, so
 * it says "not ready" (503), not "unknown scope" (404); its status says within seconds that Kafka is unreachable, and a
 * write is then a 503 that says so and that nothing was written.
 */
class DashboardWithoutKafkaTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aScopeIsNotUnknownBeforeTheHistoryIsRead() throws Exception {
        String bootstrap = "127.0.0.1:" + freePort(); // nothing listens there
        try (Dashboard d = Dashboard.start(new Dashboard.Settings(bootstrap, "127.0.0.1", 0, "t0ken-t0ken-t0ken",
                "TEST_TOKEN", "default"))) {
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> status = http.send(HttpRequest.newBuilder(d.uri().resolve("api/v1/status")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(status.body()).contains("\"ready\":false");
            HttpResponse<String> versions = http.send(HttpRequest.newBuilder(d.uri().resolve(
                    "api/v1/scopes/default/versions")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(versions.statusCode()).isEqualTo(503);
            assertThat(versions.body()).contains("has not read the snapshot history yet").doesNotContain("unknown scope");
        }
    }

    @Test
    void theStatusSaysKafkaIsUnreachableWithinSeconds() throws Exception {
        String bootstrap = "127.0.0.1:" + freePort(); // nothing listens there
        long begin = System.currentTimeMillis();
        try (Dashboard d = Dashboard.start(new Dashboard.Settings(bootstrap, "127.0.0.1", 0, "t0ken-t0ken-t0ken",
                "TEST_TOKEN", "default"))) {
            long started = System.currentTimeMillis(); // the reader started between begin and now
            HttpClient http = HttpClient.newHttpClient();
            JsonNode status = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (System.nanoTime() < deadline) {
                status = JSON.readTree(http.send(HttpRequest.newBuilder(d.uri().resolve("api/v1/status")).build(),
                        HttpResponse.BodyHandlers.ofString()).body());
                if (!status.get("kafkaConnected").asBoolean()) {
                    break;
                }
                Thread.sleep(200);
            }
            assertThat(status.get("kafkaConnected").asBoolean()).as("status " + status).isFalse();
            assertThat(status.get("kafkaUnreachableSinceMs").asLong()).as("never in contact: since the reader's start")
                    .isBetween(begin - 1000, started + 1000);
            assertThat(status.get("lastError").asText()).startsWith("no connection to Kafka at " + bootstrap + " since ");
            assertThat(status.get("ready").asBoolean()).isFalse();
        }
    }

    /** A write while Kafka is unreachable is not "still reading, try again" (409) but what a read says: 503, and why. */
    @Test
    void aPinWhileKafkaIsUnreachableIsA503ThatSaysNothingWasWritten() throws Exception {
        String bootstrap = "127.0.0.1:" + freePort(); // nothing listens there
        try (Dashboard d = Dashboard.start(new Dashboard.Settings(bootstrap, "127.0.0.1", 0, "t0ken-t0ken-t0ken",
                "TEST_TOKEN", "default"))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (d.reader().kafkaOutage() == null && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            HttpResponse<String> pin = HttpClient.newHttpClient().send(HttpRequest.newBuilder(d.uri().resolve(
                    "api/v1/scopes/default/pin")).header("Authorization", "Bearer t0ken-t0ken-t0ken")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"version\": 1, \"reason\": \"r\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(pin.statusCode()).as(pin.body()).isEqualTo(503);
            assertThat(JSON.readTree(pin.body()).get("error").asText())
                    .startsWith("Kafka is unreachable (no connection to Kafka at " + bootstrap + " since ")
                    .endsWith("; nothing was written: retry once Kafka answers");
        }
    }

    /** A port nothing listens on, below the OS's ephemeral range, where servers that bind port 0 get theirs. */
    private static int freePort() {
        return LoopbackPorts.free();
    }
}
