package io.tierroute.selector.http;

import io.tierroute.selector.config.ConfigException;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.ServerSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.StringJoiner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The bounds added for issue 8: header bytes and count, events per batch; each refused just past its limit. */
class RequestBoundsTest {

    @TempDir
    Path dir;

    private static final String CONFIG = """
            workers: {count: 2}
            server: {maxHeaderBytes: 8192, maxHeaders: 20, maxBatchEvents: 5}
            """;

    @Test
    void defaultsAreNamedAndConfigured() {
        ServerSettings d = ConfigLoader.parse("workers: {count: 1}\n", dir).server();
        assertThat(d.maxHeaderBytes()).isEqualTo(ServerSettings.DEFAULT_MAX_HEADER_BYTES).isEqualTo(64 * 1024);
        assertThat(d.maxHeaders()).isEqualTo(ServerSettings.DEFAULT_MAX_HEADERS);
        assertThat(d.maxBatchEvents()).isEqualTo(ServerSettings.DEFAULT_MAX_BATCH_EVENTS);
        assertThat(d.bodyTimeoutMs()).isEqualTo(ServerSettings.DEFAULT_BODY_TIMEOUT_MS).isEqualTo(30_000);
        ServerSettings s = ConfigLoader.parse(CONFIG, dir).server();
        assertThat(s.maxHeaderBytes()).isEqualTo(8192);
        assertThat(s.maxHeaders()).isEqualTo(20);
        assertThat(s.maxBatchEvents()).isEqualTo(5);
        assertThatThrownBy(() -> ConfigLoader.parse("workers: {count: 1}\nserver: {maxHeaders: 2}\n", dir))
                .isInstanceOf(ConfigException.class).hasMessageContaining("server.maxHeaders");
        assertThatThrownBy(() -> ConfigLoader.parse("workers: {count: 1}\nserver: {maxBatchEvents: 0}\n", dir))
                .isInstanceOf(ConfigException.class).hasMessageContaining("server.maxBatchEvents");
    }

    /**
     * A body that stops arriving is answered 408 once server.bodyTimeoutMs has passed since its headers, and the
     * connection closed: read straight from the channel (known length) and through Undertow's receiver (chunked).
     * Before, such a connection stayed open for the idle timeout (2 h) with its part of the body held.
     */
    @Test
    void aBodyThatStopsArrivingIsAnswered408AndItsConnectionClosed() throws Exception {
        try (ApiTestServer api = new ApiTestServer("workers: {count: 2}\nserver: {bodyTimeoutMs: 300}\n", dir, null)) {
            for (String partial : new String[] {
                    "Content-Length: 1000\r\n\r\n{\"text\":\"",
                    "Transfer-Encoding: chunked\r\n\r\nb\r\n{\"text\":\"ab\r\n"}) {
                try (java.net.Socket socket = new java.net.Socket(api.uri("/").getHost(), api.uri("/").getPort())) {
                    socket.setSoTimeout(10_000);
                    long t0 = System.nanoTime();
                    socket.getOutputStream().write(("POST /v1/route HTTP/1.1\r\nHost: s\r\nContent-Type: application/json\r\n"
                            + partial).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    socket.getOutputStream().flush();
                    String answer = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    assertThat(answer).as(partial).startsWith("HTTP/1.1 408").contains("server.bodyTimeoutMs");
                    assertThat(ms).as("answered after the timeout, and the connection closed (read to its end)")
                            .isBetween(250L, 5_000L);
                }
            }
            assertThat(api.post("/v1/route", "{\"text\":\"whole\"}").statusCode()).as("a whole body still routes")
                    .isEqualTo(200);
        }
    }

    @Test
    void kvAndRequestEventBatchesAreBounded() throws Exception {
        try (ApiTestServer api = new ApiTestServer(CONFIG, dir, null)) {
            String five = events(5);
            assertThat(api.post("/v1/kv-events", "{\"worker\":\"w0\",\"events\":[" + five + "]}").statusCode())
                    .isEqualTo(202);
            HttpResponse<String> six = api.post("/v1/kv-events", "{\"worker\":\"w0\",\"events\":[" + events(6) + "]}");
            assertThat(six.statusCode()).isEqualTo(413);
            assertThat(six.body()).contains("6 events").contains("server.maxBatchEvents");

            StringJoiner req = new StringJoiner(",", "[", "]");
            for (int i = 0; i < 6; i++) {
                req.add("{\"request_id\":\"r" + i + "\",\"type\":\"finished\"}");
            }
            HttpResponse<String> r = api.post("/v1/requests/events", req.toString());
            assertThat(r.statusCode()).isEqualTo(413);
            assertThat(r.body()).contains("server.maxBatchEvents");
        }
    }

    /**
     * The configured body limit is the one that applies: Undertow's own entity cap (2 MiB by default) refused a legal
     * 2.3 MB KV batch under the 4 MiB default with a 413 that named the 4 MiB, and cut a chunked body over it with no
     * answer at all.
     */
    @Test
    void bodiesUpToTheConfiguredLimitAreReadAndLargerOnesAnswered413() throws Exception {
        try (ApiTestServer api = new ApiTestServer("workers: {count: 2}\n", dir, null)) {
            String padded = "{\"worker\":\"w0\",\"events\":[{\"type\":\"cleared\"}]" + " ".repeat(3_000_000) + "}";
            HttpResponse<String> ok = api.post("/v1/kv-events", padded);
            assertThat(ok.statusCode()).as(ok.body()).isEqualTo(202);

            byte[] chunked = ("{\"text\":\"" + "e".repeat(5_000_000) + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            HttpResponse<String> tooBig = api.send(HttpRequest.newBuilder(api.uri("/v1/route"))
                    .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(chunked))));
            assertThat(tooBig.statusCode()).isEqualTo(413);
            assertThat(tooBig.body()).contains("4194304").contains("server.maxBodyBytes");
        }
    }

    private static String events(int n) {
        StringJoiner j = new StringJoiner(",");
        for (int i = 0; i < n; i++) {
            j.add("{\"type\":\"cleared\"}");
        }
        return j.toString();
    }

    @Test
    void headerBytesAndCountAreBounded() throws Exception {
        try (ApiTestServer api = new ApiTestServer(CONFIG, dir, null)) {
            HttpRequest.Builder fine = HttpRequest.newBuilder(api.uri("/healthz")).header("X-Pad", "a".repeat(4000));
            for (int i = 0; i < 10; i++) {
                fine.header("X-H" + i, "v");
            }
            assertThat(api.send(fine).statusCode()).isEqualTo(200);

            assertRefused(api, HttpRequest.newBuilder(api.uri("/healthz")).header("X-Pad", "a".repeat(8193)));
            HttpRequest.Builder many = HttpRequest.newBuilder(api.uri("/healthz"));
            for (int i = 0; i < 21; i++) {
                many.header("X-H" + i, "v");
            }
            assertRefused(api, many);
        }
    }

    /** Undertow answers an oversized header block with 400 and closes, or just closes. */
    private static void assertRefused(ApiTestServer api, HttpRequest.Builder b) throws InterruptedException {
        try {
            HttpResponse<String> r = api.send(b);
            assertThat(r.statusCode()).isGreaterThanOrEqualTo(400);
        } catch (IOException expected) {
            // the connection was closed: refused
        }
    }
}
