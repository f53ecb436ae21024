package io.tierroute.selector.server;

import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Start/stop, the tick thread, and routes that wait in the admission queue (the asynchronous answer path). */
class SelectorServerTest {

    private final HttpClient client = HttpClient.newHttpClient();

    private static SelectorServer start(String yaml) {
        SelectorConfig c = ConfigLoader.parse(yaml, Path.of("."));
        return SelectorServer.start(c.withServer(c.server().withPort(0)), null, true);
    }

    private HttpRequest post(SelectorServer s, String path, String body) {
        return HttpRequest.newBuilder(s.uri().resolve(path)).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    @Test
    void queuedRouteIsAnsweredWhenCapacityFrees() throws Exception {
        try (SelectorServer s = start("workers: [{name: only, maxInFlight: 1}]\nrouting: {maxQueueWait: 10s}\n")) {
            HttpResponse<String> first = client.send(post(s, "/v1/route", "{\"request_id\":\"a\",\"text\":\"x\"}"),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(first.statusCode()).isEqualTo(200);
            CompletableFuture<HttpResponse<String>> second = client.sendAsync(
                    post(s, "/v1/route", "{\"request_id\":\"b\",\"text\":\"x\"}"), HttpResponse.BodyHandlers.ofString());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (s.selector().queueLength() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(second).isNotDone();
            Thread.sleep(20);
            HttpResponse<String> done = client.send(post(s, "/v1/requests/events",
                    "{\"request_id\":\"a\",\"type\":\"finished\"}"), HttpResponse.BodyHandlers.ofString());
            assertThat(done.statusCode()).isEqualTo(200);
            HttpResponse<String> r = second.get(5, TimeUnit.SECONDS);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).contains("\"request_id\":\"b\"").contains("\"worker\":\"only\"");
            assertThat(s.selector().queuedCount()).isEqualTo(1);
        }
    }

    @Test
    void queueWaitLimitGives503ThroughTheTick() throws Exception {
        try (SelectorServer s = start("workers: [{name: only, maxInFlight: 1}]\nrouting: {maxQueueWait: 200ms}\n")) {
            assertThat(client.send(post(s, "/v1/route", "{\"request_id\":\"a\",\"text\":\"x\"}"),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            HttpResponse<String> r = client.send(post(s, "/v1/route", "{\"request_id\":\"b\",\"text\":\"x\"}"),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.headers().firstValue("retry-after")).contains("1");
            assertThat(r.body()).contains("admission queue");
            String metrics = client.send(HttpRequest.newBuilder(s.uri().resolve("/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(metrics).contains("tierroute_routes_total{outcome=\"no_capacity\"} 1.0")
                    .contains("tierroute_routes_rejected_total 1.0")
                    .contains("jvm_memory"); // JVM collectors on this registry
        }
    }

    @Test
    void severalServersInOneJvmAndIdempotentClose() throws Exception {
        SelectorServer a = start("workers: {count: 2}\n");
        SelectorServer b = start("workers: {count: 3}\n");
        try {
            assertThat(a.port()).isNotEqualTo(b.port());
            assertThat(a.metrics().registry()).isNotSameAs(b.metrics().registry());
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(b.uri().resolve("/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).isEqualTo("ok");
        } finally {
            a.close();
            a.close();
            b.close();
        }
        URI gone = a.uri().resolve("/healthz");
        assertThat(client.sendAsync(HttpRequest.newBuilder(gone).timeout(Duration.ofSeconds(2)).build(),
                HttpResponse.BodyHandlers.ofString())).failsWithin(Duration.ofSeconds(5));
    }
}
