package io.tierroute.selector.server;

import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
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
            awaitQueued(s);
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

    /** A Kafka host that does not resolve stops the start with the reason, not only "Failed to construct kafka producer". */
    @Test
    void aKafkaHostThatDoesNotResolveIsNamedWithTheReason() throws Exception {
        // parameters required at start: it fails, naming the host and why
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> start("workers: {count: 1}\nkafka: {bootstrapServers: "
                        + "\"nonexistent.invalid:9092\", params: {requireOnStart: true, startupTimeout: 2s}}\n"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("nonexistent.invalid:9092").hasMessageContaining("resolvable");
        // not required (the default): it serves its configured parameters (the decisions producer, which could not be
        // built, failed the start before), and its status says why nothing comes from Kafka
        try (SelectorServer s = start("workers: {count: 1}\nkafka: {bootstrapServers: \"nonexistent.invalid:9092\", "
                + "params: {startupTimeout: 2s}}\n")) {
            HttpResponse<String> params = client.send(HttpRequest.newBuilder(s.uri().resolve("/v1/params")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(params.statusCode()).isEqualTo(200);
            assertThat(params.body()).contains("not built: the bootstrap host does not resolve")
                    .contains("resolvable");
        }
    }

    /** A stop answers the routes waiting in the queue with 503 and Retry-After instead of cutting their connections. */
    @Test
    void aStopAnswersTheQueuedRoutesWith503() throws Exception {
        SelectorServer s = startWithItsOnlySlotTaken();
        CompletableFuture<HttpResponse<String>> queued = client.sendAsync(
                post(s, "/v1/route", "{\"request_id\":\"b\",\"text\":\"x\"}"), HttpResponse.BodyHandlers.ofString());
        awaitQueued(s);
        assertThat(s.selector().queueLength()).isEqualTo(1);
        long t0 = System.nanoTime();
        s.close();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).as("no wait for the queue's 30 s")
                .isLessThan(SelectorServer.STOP_GRACE_MILLIS + 5_000); // slack for a busy machine, far below 30 s
        HttpResponse<String> r = queued.get(5, TimeUnit.SECONDS);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
        assertThat(r.body()).contains("the selector is stopping");
        assertThat(r.headers().firstValue("retry-after")).hasValue("1");
    }

    /**
     * A client that hangs up while its route waits in the queue takes the route with it: it leaves the queue, and
     * when capacity frees it is not admitted (a worker would otherwise carry a request nobody sends until it expires).
     */
    @Test
    void aQueuedRouteWhoseClientHangsUpLeavesTheQueueAndIsNeverAdmitted() throws Exception {
        try (SelectorServer s = startWithItsOnlySlotTaken()) {
            String body = "{\"request_id\":\"gone\",\"text\":\"x\"}";
            String chunkedBody = "{\"request_id\":\"gone-chunked\",\"text\":\"x\"}";
            // A body of known length is read straight from the channel, a chunked one through Undertow's receiver.
            for (String request : List.of(
                    "Content-Length: " + body.length() + "\r\n\r\n" + body,
                    "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(chunkedBody.length()) + "\r\n"
                            + chunkedBody + "\r\n0\r\n\r\n")) {
                try (Socket socket = new Socket(s.uri().getHost(), s.uri().getPort())) {
                    socket.getOutputStream().write(("POST /v1/route HTTP/1.1\r\nHost: selector\r\n"
                            + "Content-Type: application/json\r\n" + request).getBytes(StandardCharsets.US_ASCII));
                    socket.getOutputStream().flush();
                    QueueLength.await(s, 1);
                }
                QueueLength.await(s, 0);
            }
            assertThat(client.send(post(s, "/v1/requests/events", "{\"request_id\":\"a\",\"type\":\"finished\"}"),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            // The freed slot goes to the next caller, not to the request whose client left.
            HttpResponse<String> next = client.send(post(s, "/v1/route", "{\"request_id\":\"c\",\"text\":\"x\"}"),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(next.statusCode()).as(next.body()).isEqualTo(200);
            assertThat(s.selector().queuedCount()).as("routes that waited: the two that were withdrawn").isEqualTo(2);
            assertThat(client.send(post(s, "/v1/requests/events", "{\"request_id\":\"gone\",\"type\":\"finished\"}"),
                    HttpResponse.BodyHandlers.ofString()).body()).contains("unknown");
            String metrics = client.send(HttpRequest.newBuilder(s.uri().resolve("/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(metrics).contains("tierroute_routes_total{outcome=\"abandoned\"} 2.0")
                    .contains("tierroute_routes_total{outcome=\"error\"} 0.0");
        }
    }

    /**
     * While a route waits, the hang-up watch reads the connection; a client that pipelines its next request
     * meanwhile gets both answers, in order (the watch hands the bytes it read back to Undertow).
     */
    @Test
    void aPipelinedRequestBehindAQueuedRouteIsAnsweredAfterIt() throws Exception {
        try (SelectorServer s = startWithItsOnlySlotTaken()) {
            String body = "{\"request_id\":\"b\",\"text\":\"x\"}";
            try (Socket socket = new Socket(s.uri().getHost(), s.uri().getPort())) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write(("POST /v1/route HTTP/1.1\r\nHost: selector\r\n"
                        + "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                QueueLength.await(s, 1);
                socket.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: selector\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                Thread.sleep(200); // the watch reads the pipelined bytes while b still waits
                assertThat(s.selector().queueLength()).as("b still waits").isEqualTo(1);
                assertThat(client.send(post(s, "/v1/requests/events", "{\"request_id\":\"a\",\"type\":\"finished\"}"),
                        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
                String answers = readUntil(socket, t -> t.endsWith("ok"));
                assertThat(answers).contains("\"request_id\":\"b\"");
                assertThat(answers.indexOf("\"request_id\":\"b\"")).isLessThan(answers.lastIndexOf("ok"));
                assertThat(answers.split("HTTP/1.1 200", -1)).hasSize(3);
            }
        }
    }

    /**
     * A client that sends its next request together with the queued route's (one write: Undertow buffers it) and a
     * third one later gets the three answers in order: the watch does not read past bytes Undertow already holds.
     */
    @Test
    void requestsPipelinedWithAQueuedRouteInOneWriteAreAnsweredInOrder() throws Exception {
        try (SelectorServer s = startWithItsOnlySlotTaken()) {
            String body = "{\"request_id\":\"b\",\"text\":\"x\"}";
            try (Socket socket = new Socket(s.uri().getHost(), s.uri().getPort())) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write(("POST /v1/route HTTP/1.1\r\nHost: selector\r\nContent-Length: "
                        + body.length() + "\r\n\r\n" + body + "GET /healthz HTTP/1.1\r\nHost: selector\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                QueueLength.await(s, 1);
                socket.getOutputStream().write("GET /v1/workers HTTP/1.1\r\nHost: selector\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                Thread.sleep(200);
                assertThat(client.send(post(s, "/v1/requests/events", "{\"request_id\":\"a\",\"type\":\"finished\"}"),
                        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
                String answers = readUntil(socket, t -> t.contains("\"name\":\"only\"") && t.endsWith("]}"));
                int route = answers.indexOf("\"request_id\":\"b\"");
                int health = answers.indexOf("\r\n\r\nok");
                int workers = answers.indexOf("\"name\":\"only\"");
                assertThat(route).as(answers).isNotNegative();
                assertThat(health).as(answers).isGreaterThan(route);
                assertThat(workers).as(answers).isGreaterThan(health);
            }
        }
    }

    /** A server whose one worker takes one request, which route "a" holds: the next route waits (up to 30 s). */
    /** Waits (at most 5 s) until a route waits in {@code s}'s admission queue. */
    private static void awaitQueued(SelectorServer s) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (s.selector().queueLength() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    private SelectorServer startWithItsOnlySlotTaken() throws Exception {
        SelectorServer s = start("workers: [{name: only, maxInFlight: 1}]\nrouting: {maxQueueWait: 30s}\n");
        try {
            assertThat(client.send(post(s, "/v1/route", "{\"request_id\":\"a\",\"text\":\"x\"}"),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            return s;
        } catch (Exception | AssertionError e) {
            s.close();
            throw e;
        }
    }

    /** What the server sends on {@code socket} until {@code done} holds for all of it. */
    private static String readUntil(Socket socket, Predicate<String> done) throws IOException {
        StringBuilder out = new StringBuilder();
        byte[] buf = new byte[4096];
        InputStream in = socket.getInputStream();
        while (!done.test(out.toString())) {
            int n = in.read(buf);
            if (n < 0) {
                break;
            }
            out.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        }
        return out.toString();
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
