package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.tierroute.cli.SingleWriterGuard.Candidate;
import io.tierroute.deploy.local.FlinkRestClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SubmitRaceCheck} against a real HTTP server on loopback that answers as Flink's REST API does, or fails
 * (HTTP 500, an answer later than the client's timeout): the check after the submission never leaves its job running
 * unjudged, and of two jobs with the same start-time the one listed first does not keep on a lone listing.
 */
class SubmitRaceCheckTest {

    private static final String TOPIC = "tierroute.params";
    private static final String KAFKA = "k:9092";

    private final Map<String, String> states = new ConcurrentHashMap<>();
    private final List<String> cancels = new CopyOnWriteArrayList<>();
    private final AtomicInteger overviews = new AtomicInteger();
    private volatile IntFunction<String> overview; // n-th GET /jobs/overview (from 0) -> JSON, or null for HTTP 500
    private volatile boolean cancelFails;
    private volatile int slowOverviews; // the first so many overviews are answered after the client's timeout
    private HttpServer server;
    private ExecutorService pool;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
            pool.shutdownNow();
        }
    }

    @Test
    void aClusterThatKeepsFailingGetsTheJobCancelledAtTheDeadline() throws IOException {
        overview = n -> null;
        FlinkRestClient rest = start();
        states.put("own", "RUNNING");
        assertThatThrownBy(() -> SubmitRaceCheck.keepOrCancel(rest, "own", candidate("fit"), Set.of(), Duration.ofSeconds(3)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job own, just submitted, was cancelled again")
                .hasMessageContaining("could not be told whether another writer started first")
                .hasMessageContaining("REST API failed")
                .hasMessageContaining("HTTP 500");
        assertThat(cancels).contains("own");
        assertThat(overviews.get()).isGreaterThan(1); // polled through the errors, not failed on the first
    }

    @Test
    void aCancelThatFailsTooSaysSoNamingTheJobToCancelByHand() throws IOException {
        overview = n -> null;
        cancelFails = true;
        FlinkRestClient rest = start();
        states.put("own", "RUNNING");
        assertThatThrownBy(() -> SubmitRaceCheck.keepOrCancel(rest, "own", candidate("fit"), Set.of(), Duration.ofSeconds(3)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job own, just submitted, must be cancelled but cancelling it failed")
                .hasMessageContaining("flink cancel own")
                .hasMessageContaining("/#/job/running/own/overview");
        assertThat(cancels).hasSizeGreaterThan(1); // retried within the wait
    }

    @Test
    void errorsAndTimeoutsThatPassAreWaitedOutAndTheJobKept() throws IOException {
        slowOverviews = 1;
        overview = n -> n < 3 ? null : jobs(job("own", "fit", "RUNNING", 10));
        FlinkRestClient rest = start();
        states.put("own", "RUNNING");
        SubmitRaceCheck.keepOrCancel(rest, "own", candidate("fit"), Set.of(), Duration.ofSeconds(10));
        assertThat(cancels).isEmpty();
        assertThat(overviews.get()).isGreaterThanOrEqualTo(5); // 3 failed, then a Keep and its confirmation
    }

    @Test
    void ofTwoJobsWithTheSameStartTimeTheOneListedAloneFirstDoesNotKeepOnThatListing() throws IOException {
        // bb is listed alone first, aa (same start-time, smaller id: ranked first) a moment later
        overview = n -> n == 0 ? jobs(job("bb", "fit-b", "RUNNING", 5_000))
                : jobs(job("bb", "fit-b", "RUNNING", 5_000), job("aa", "fit-a", "RUNNING", 5_000));
        FlinkRestClient rest = start();
        states.put("bb", "RUNNING");
        states.put("aa", "RUNNING");
        assertThatThrownBy(() -> SubmitRaceCheck.keepOrCancel(rest, "bb", candidate("fit-b"), Set.of(), Duration.ofSeconds(10)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job bb, just submitted, was cancelled again, since a job started before it: job aa");
        assertThat(cancels).containsExactly("bb");
        // aa, looking now, sees bb ranked after it and keeps
        SubmitRaceCheck.keepOrCancel(rest, "aa", candidate("fit-a"), Set.of(), Duration.ofSeconds(10));
        assertThat(cancels).containsExactly("bb");
    }

    @Test
    void anEarlierJobBeingCancelledIsNoRival() throws IOException {
        overview = n -> jobs(job("a", "fit-a", "CANCELLING", 1), job("b", "fit-b", "RUNNING", 2));
        FlinkRestClient rest = start();
        states.put("b", "RUNNING");
        SubmitRaceCheck.keepOrCancel(rest, "b", candidate("fit-b"), Set.of(), Duration.ofSeconds(10));
        assertThat(cancels).isEmpty();
    }

    private static Candidate candidate(String name) {
        return new Candidate(name, TOPIC, KAFKA);
    }

    private static String job(String id, String name, String state, long start) {
        return "{\"jid\":\"" + id + "\",\"name\":\"" + name + "\",\"state\":\"" + state + "\",\"start-time\":" + start + "}";
    }

    private static String jobs(String... js) {
        return "{\"jobs\":[" + String.join(",", js) + "]}";
    }

    private FlinkRestClient start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        pool = Executors.newCachedThreadPool();
        server.setExecutor(pool);
        server.createContext("/jobs", this::handle);
        server.start();
        return new FlinkRestClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort()), Duration.ofSeconds(2)); // generous: the stub answers at once unless told to be slow
    }

    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        String[] parts = path.split("/"); // "", "jobs", id, ...
        try (ex) {
            if (path.equals("/jobs/overview")) {
                int n = overviews.getAndIncrement();
                if (n < slowOverviews) {
                    sleep(3_000); // past the client's 2 s timeout
                }
                String body = overview.apply(n);
                reply(ex, body == null ? 500 : 200, body == null ? "{\"errors\":[\"Internal server error.\"]}" : body);
            } else if (ex.getRequestMethod().equals("PATCH") && parts.length == 3) {
                cancels.add(parts[2]);
                if (cancelFails) {
                    reply(ex, 500, "{\"errors\":[\"Internal server error.\"]}");
                } else {
                    states.put(parts[2], "CANCELED");
                    reply(ex, 202, "{}");
                }
            } else if (parts.length == 4 && parts[3].equals("config")) {
                String id = parts[2];
                reply(ex, 200, "{\"jid\":\"" + id + "\",\"execution-config\":{\"user-config\":{"
                        + "\"tierroute.role\":\"fitting-job\",\"tierroute.params-topic\":\"" + TOPIC + "\","
                        + "\"tierroute.bootstrap-servers\":\"" + KAFKA + "\",\"tierroute.job-name\":\"fit-" + id + "\"}}}");
            } else if (parts.length == 3) {
                reply(ex, 200, "{\"jid\":\"" + parts[2] + "\",\"state\":\"" + states.getOrDefault(parts[2], "RUNNING")
                        + "\",\"vertices\":[]}");
            } else {
                reply(ex, 404, "{\"errors\":[\"Not found: " + path + "\"]}");
            }
        }
    }

    private static void reply(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
