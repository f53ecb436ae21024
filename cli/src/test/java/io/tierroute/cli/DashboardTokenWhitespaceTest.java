package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.deploy.local.ProjectTopics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tierroute dashboard} in a JVM of its own with its operator token in the environment as a mounted secret
 * leaves it, with a trailing newline: the token is stripped with one warning that names the variable (never the
 * value), so a pin with the token works; a variable of whitespace only is no token, as an unset one (before: the
 * newline stayed part of the token and every write was refused "wrong", and whitespace only turned the writes on).
 */
class DashboardTokenWhitespaceTest {

    private static final String TOKEN = "dash-" + java.util.UUID.randomUUID();
    private static final String VAR = "TIERROUTE_ADMIN_TOKEN";

    @TempDir
    Path dir;

    private static DemoChild dashboard(Path dir, String bootstrap, String value) throws Exception {
        return DemoChild.command(dir, List.of("dashboard", "--bootstrap", bootstrap, "--port", "0"), Map.of(VAR, value));
    }

    @Test
    void aTrailingNewlineIsStrippedWithAWarningAndWhitespaceOnlyIsNoToken() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            ProjectTopics.create(kafka.bootstrapServers(), (short) 1);
            try (var producer = SnapshotsFixtures.producer(kafka.bootstrapServers(), new Properties())) {
                SnapshotsFixtures.publishHistory(producer, "default"); // v1..v3 accepted, v4 rejected
            }
            try (DemoChild child = dashboard(dir.resolve("newline"), kafka.bootstrapServers(), TOKEN + "\n")) {
                URI uri = URI.create(child.awaitLast(Pattern.compile("tierroute dashboard on (\\S+) reading"), m -> true,
                        Duration.ofSeconds(60), "the dashboard's address").group(1));
                child.awaitLast(Pattern.compile("recorded as the token's operator: operator"), m -> true,
                        Duration.ofSeconds(10), "writes enabled");
                HttpResponse<String> pin = pinWhenReady(uri);
                assertThat(pin.statusCode()).as(pin.body()).isEqualTo(200);
                assertThat(child.log()).containsOnlyOnce(VAR + " has whitespace around its token").contains("WARN")
                        .doesNotContain(TOKEN);
            }
            try (DemoChild child = dashboard(dir.resolve("blank"), kafka.bootstrapServers(), " \n")) {
                child.awaitLast(Pattern.compile("pin / unpin / rollback are disabled: set " + VAR), m -> true,
                        Duration.ofSeconds(60), "writes disabled");
                assertThat(child.log()).containsOnlyOnce(VAR + " holds only whitespace: no token, treated as unset");
            }
        }
    }

    /** Pins version 2 once the dashboard has caught up with the topics (a write before that is a 409). */
    private static HttpResponse<String> pinWhenReady(URI dashboard) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(dashboard.resolve("api/v1/scopes/default/pin"))
                    .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"version\": 2, \"reason\": \"whitespace test\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 409 && r.statusCode() != 404 || System.nanoTime() > deadline) {
                return r;
            }
            Thread.sleep(200);
        }
    }
}
