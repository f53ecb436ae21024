package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A stop with a savepoint against a real HTTP server on loopback that answers {@code POST /jobs/<id>/stop} and the
 * trigger's polls as Flink 2.2 does: a failed poll is tried again, and a stop that outlasts the wait says how to
 * follow it to its savepoint (the stop goes on on the cluster).
 */
class FlinkSavepointsTest {
    private static final String JOB = "0123456789abcdef0123456789abcdef";

    private HttpServer server;
    private FlinkRestClient rest;
    private final AtomicInteger polls = new AtomicInteger();
    /** Polls answered IN_PROGRESS before COMPLETED (after a 500 on the first); a large number: never completes. */
    private volatile int inProgressPolls;
    /** The first poll's answer: a server error, tried again, or a lasting one. */
    private volatile int firstPollStatus = 500;
    /** The completed savepoint's failure cause (a stack trace as Flink gives it), or null for a savepoint written. */
    private volatile String failureCause;
    /** Whether GET /jobs/JOB answers (a 500 otherwise). */
    private volatile boolean jobStateAnswered = true;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/jobs/" + JOB + "/stop", ex -> answer(ex, 202, "{\"request-id\":\"trig-1\"}"));
        server.createContext("/jobs/" + JOB + "/savepoints/trig-1", ex -> {
            int n = polls.incrementAndGet();
            if (n == 1) {
                answer(ex, firstPollStatus, "{\"errors\":[\"Internal server error.\"]}");
            } else if (n <= 1 + inProgressPolls) {
                answer(ex, 200, "{\"status\":{\"id\":\"IN_PROGRESS\"},\"operation\":null}");
            } else if (failureCause != null) {
                answer(ex, 200, "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"failure-cause\":{\"class\":"
                        + "\"java.util.concurrent.CompletionException\",\"stack-trace\":\"" + failureCause + "\"}}}");
            } else {
                answer(ex, 200, "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"location\":\"file:/sp/savepoint-1\"}}");
            }
        });
        server.createContext("/jobs/" + JOB, ex -> {
            if (jobStateAnswered) {
                answer(ex, 200, "{\"jid\":\"" + JOB + "\",\"state\":\"RUNNING\"}");
            } else {
                answer(ex, 500, "{\"errors\":[\"Internal server error.\"]}");
            }
        });
        server.start();
        rest = new FlinkRestClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort()), Duration.ofSeconds(5));
    }

    private static void answer(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
        ex.close();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void aFailedPollIsTriedAgainUntilTheSavepointCompletes() {
        inProgressPolls = 2;
        assertThat(rest.stopWithSavepoint(JOB, null, Duration.ofSeconds(20))).isEqualTo("file:/sp/savepoint-1");
        assertThat(polls).hasValue(4);
    }

    @Test
    void aLastingAnswerToAPollEndsTheWaitAtOnce() {
        firstPollStatus = 404; // e.g. a trigger the JobManager lost in a failover
        assertThatThrownBy(() -> rest.stopWithSavepoint(JOB, null, Duration.ofSeconds(20)))
                .isInstanceOf(FlinkRestClient.FlinkRestException.class).hasMessageContaining("HTTP 404");
        assertThat(polls).as("not polled again").hasValue(1);
    }

    /**
     * Flink keeps a job running when its stop's savepoint fails; the failure cause alone ("Failed to create savepoint
     * directory") left the operator to guess whether the job was stopped.
     */
    @Test
    void aFailedSavepointSaysWhyAndThatTheJobRunsOn() {
        inProgressPolls = 0;
        failureCause = "java.util.concurrent.CompletionException: java.io.IOException: Failed to create savepoint "
                + "directory at /proc/nope/sp\\n\\tat org.apache.flink.Foo.bar(Foo.java:1)";
        assertThatThrownBy(() -> rest.stopWithSavepoint(JOB, "/proc/nope/sp", Duration.ofSeconds(20)))
                .isInstanceOf(FlinkRestClient.FlinkRestException.class)
                .hasMessageContaining("the savepoint of job " + JOB + " failed: ")
                .hasMessageContaining("Failed to create savepoint directory at /proc/nope/sp")
                .hasMessageEndingWith(". The job was not stopped: it is still RUNNING");

        // The state unreadable: the failure alone, as before.
        jobStateAnswered = false;
        polls.set(0);
        assertThatThrownBy(() -> rest.stopWithSavepoint(JOB, "/proc/nope/sp", Duration.ofSeconds(20)))
                .isInstanceOf(FlinkRestClient.FlinkRestException.class)
                .hasMessageEndingWith("Failed to create savepoint directory at /proc/nope/sp");
    }

    @Test
    void aStopThatOutlastsTheWaitSaysHowToFollowItToItsSavepoint() {
        inProgressPolls = 1_000_000;
        assertThatThrownBy(() -> rest.stopWithSavepoint(JOB, null, Duration.ofSeconds(1)))
                .isInstanceOf(FlinkRestClient.FlinkRestException.class)
                .hasMessageContaining("the savepoint of job " + JOB + " did not complete within 1 s. The stop goes on "
                        + "on the cluster: the job stops once the savepoint completes")
                .hasMessageContaining("Follow it with GET http://127.0.0.1:" + server.getAddress().getPort() + "/jobs/"
                        + JOB + "/savepoints/trig-1 (trigger trig-1)");
    }
}
