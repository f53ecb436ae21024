package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.FlinkRestClient.FlinkRestException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code submit} after a run request that got no answer, against a real HTTP server on loopback that answers
 * {@code GET /jobs/overview} as Flink does (and, for the classification, one that never answers): the job it may have
 * started is found among the jobs listed since, or the operator is told a job may be starting.
 */
class UnansweredRunTest {

    /** The jobs {@code GET /jobs/overview} lists, as Flink's JSON. */
    private final List<String> jobs = new CopyOnWriteArrayList<>();
    private HttpServer server;
    private FlinkRestClient rest;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/jobs/overview", ex -> {
            byte[] body = ("{\"jobs\":[" + String.join(",", jobs) + "]}").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.createContext("/slow", ex -> {
            try {
                Thread.sleep(3_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ex.close();
        });
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool()); // a slow answer holds no other
        server.start();
        rest = new FlinkRestClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort()), Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private static String job(String id, String name, String state) {
        return "{\"jid\":\"" + id + "\",\"name\":\"" + name + "\",\"state\":\"" + state + "\",\"start-time\":1}";
    }

    private static final String OLD = "0".repeat(31) + "1";
    private static final String NEW = "0".repeat(31) + "2";
    private static final String RACER = "0".repeat(31) + "3";

    private static FlinkRestException timedOut() {
        return new FlinkRestException("cannot reach the Flink cluster at X (run the job jar): "
                + "java.net.http.HttpTimeoutException: request timed out",
                new java.net.http.HttpTimeoutException("request timed out"));
    }

    @Test
    void theOneNewJobOfItsNameIsTheOneTheRequestStarted() {
        jobs.add(job(OLD, "tierroute-fitting", "FINISHED"));
        jobs.add(job(RACER, "another-app", "RUNNING"));
        Set<String> before = UnansweredRun.ids(rest.jobs());
        jobs.add(job(NEW, "tierroute-fitting", "INITIALIZING"));
        assertThat(UnansweredRun.startedJob(rest, "tierroute-fitting", before, timedOut(), Duration.ofSeconds(1)))
                .isEqualTo(NEW);
    }

    @Test
    void noNewJobSaysOneMayBeStartingAndWhatToCheck() {
        Set<String> before = UnansweredRun.ids(rest.jobs());
        assertThatThrownBy(() -> UnansweredRun.startedJob(rest, "tierroute-fitting", before, timedOut(),
                Duration.ofMillis(600)))
                .isInstanceOf(FlinkRestException.class)
                .hasMessageContaining("request timed out; the run request was sent, so the job may be starting on the "
                        + "cluster; it lists no new job named tierroute-fitting after 0 s")
                .hasMessageContaining("check 'tierroute cluster status' (or the web UI) before submitting again");
    }

    @Test
    void twoNewJobsOfItsNameAreARaceNotAGuess() {
        Set<String> before = UnansweredRun.ids(rest.jobs());
        jobs.add(job(NEW, "tierroute-fitting", "RUNNING"));
        jobs.add(job(RACER, "tierroute-fitting", "RUNNING"));
        assertThatThrownBy(() -> UnansweredRun.startedJob(rest, "tierroute-fitting", before, timedOut(),
                Duration.ofSeconds(1)))
                .hasMessageContaining("it lists 2 new jobs named tierroute-fitting (")
                .hasMessageContaining("another submit raced this one");
    }

    @Test
    void onlyARequestThatMayHaveReachedTheClusterIsUnanswered() throws IOException {
        FlinkRestClient impatient = new FlinkRestClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort()
                + "/slow"), Duration.ofSeconds(1));
        assertThatThrownBy(impatient::jobs).isInstanceOfSatisfying(FlinkRestException.class,
                e -> assertThat(e.unanswered()).as(e.getMessage()).isTrue());
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        FlinkRestClient nobody = new FlinkRestClient(URI.create("http://127.0.0.1:" + closed), Duration.ofSeconds(1));
        assertThatThrownBy(nobody::jobs).isInstanceOfSatisfying(FlinkRestException.class,
                e -> assertThat(e.unanswered()).as("refused: never sent").isFalse());
        server.createContext("/jobs/error", ex -> {
            ex.sendResponseHeaders(500, 2);
            ex.getResponseBody().write("{}".getBytes(StandardCharsets.UTF_8));
            ex.close();
        });
        FlinkRestClient failing = new FlinkRestClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort()
                + "/jobs/error"), Duration.ofSeconds(1));
        assertThatThrownBy(failing::overview).isInstanceOfSatisfying(FlinkRestException.class,
                e -> assertThat(e.unanswered()).as("answered: " + e.getMessage()).isFalse());
        server.createContext("/proxy", ex -> { // a proxy's login page: an answer, though not Flink's
            byte[] page = "<html>sign in</html>".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(401, page.length);
            ex.getResponseBody().write(page);
            ex.close();
        });
        FlinkRestClient proxied = new FlinkRestClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort()
                + "/proxy"), Duration.ofSeconds(1));
        assertThatThrownBy(proxied::overview).isInstanceOfSatisfying(FlinkRestException.class,
                e -> assertThat(e.unanswered()).as("answered, not JSON: " + e.getMessage()).isFalse());
    }
}
