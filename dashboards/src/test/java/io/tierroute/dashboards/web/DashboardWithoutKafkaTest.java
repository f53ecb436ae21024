package io.tierroute.dashboards.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.dashboards.Dashboard;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * A dashboard whose Kafka does not answer has read no history: a scope it has not seen may well be on the topic, so
 * it says "not ready" (503), not "unknown scope" (404).
 */
class DashboardWithoutKafkaTest {

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

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        }
    }
}
