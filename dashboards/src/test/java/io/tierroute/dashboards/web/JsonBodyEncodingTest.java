package io.tierroute.dashboards.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.dashboards.Dashboard;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A write's body is UTF-8 JSON (RFC 8259 §8.1): one in UTF-16 or UTF-32, which Jackson would guess from its first
 * bytes and read, is a 400 saying so, as the selector's API answers it. The same body in UTF-8 is read (its unknown
 * field is what it is refused for). No Kafka is needed: the body is refused before anything is written.
 */
class JsonBodyEncodingTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "t0ken-t0ken-t0ken";
    private static final String BODY = "{\"version\": 1, \"bogus\": 2}";

    @Test
    void aUtf16OrUtf32BodyIsRefusedAndTheSameInUtf8IsRead() throws Exception {
        try (Dashboard d = Dashboard.start(new Dashboard.Settings("127.0.0.1:" + freePort(), "127.0.0.1", 0, TOKEN,
                "TEST_TOKEN", "default"))) {
            HttpResponse<String> utf8 = pin(d, BODY.getBytes(StandardCharsets.UTF_8));
            assertThat(utf8.statusCode()).isEqualTo(400);
            assertThat(error(utf8)).startsWith("unknown field 'bogus'");

            for (String charset : new String[] {"UTF-16", "UTF-16BE", "UTF-16LE", "UTF-32BE", "UTF-32LE"}) {
                HttpResponse<String> r = pin(d, BODY.getBytes(Charset.forName(charset)));
                assertThat(r.statusCode()).as(charset).isEqualTo(400);
                assertThat(error(r)).as(charset)
                        .isEqualTo("the request body is not UTF-8 JSON (it looks like UTF-16 or UTF-32); send UTF-8");
            }
        }
    }

    private static HttpResponse<String> pin(Dashboard d, byte[] body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(d.uri().resolve("api/v1/scopes/default/pin"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + TOKEN)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String error(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body()).get("error").asText();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        }
    }
}
