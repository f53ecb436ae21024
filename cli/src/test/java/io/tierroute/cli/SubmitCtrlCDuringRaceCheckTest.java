package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C while {@code submit} checks for racing submits (in a JVM of its own, as an operator runs it), against a real
 * HTTP server on loopback that answers as Flink's REST API: the job is started, and a job started before it stays
 * INITIALIZING, so the check waits (up to --wait). The hook names the job, which runs on unjudged, and what to check
 * and cancel; before, the JVM exited 130 without a word.
 */
class SubmitCtrlCDuringRaceCheckTest {

    private static final String OWN = "0123456789abcdef0123456789abcdef";
    private static final String RIVAL = "fedcba9876543210fedcba9876543210";

    @TempDir
    Path dir;

    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final AtomicInteger listingsAfterRun = new AtomicInteger();
    private volatile boolean runRequested;
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void ctrlCDuringTheRaceCheckNamesTheJobAndWhatToCheck() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
        String flink = "http://127.0.0.1:" + server.getAddress().getPort();
        Path jar = Files.writeString(dir.resolve("job.jar"), "not really a jar");
        List<String> submit = List.of("submit", "--flink", flink, "--bootstrap", "127.0.0.1:9", "--no-kafka-check",
                "--no-slot-check", "--jar", jar.toString(), "--wait", "120s");
        try (DemoChild child = DemoChild.command(dir.resolve("run"), submit, Map.of())) {
            child.awaitLast(Pattern.compile("job " + OWN + " submitted"), m -> listingsAfterRun.get() >= 2,
                    Duration.ofSeconds(60), "the race check under way");
            DemoChild.Signal sent = child.ctrlC();
            OptionalInt rc = child.awaitExit(Duration.ofSeconds(30));
            assertThat(rc).as("exited after " + sent + "; log:\n" + child.tail(4000)).hasValue(128 + sent.number);
            assertThat(child.log()).contains("tierroute submit: interrupted after job " + OWN + " was started, before the "
                    + "check for racing submits ended: it runs on, perhaps beside another writer of tierroute.params")
                    .contains("flink cancel " + OWN).contains("--savepoint DIR --job-id " + OWN);
        }
        assertThat(requests).as("the job was not cancelled by the hook").noneMatch(r -> r.startsWith("PATCH"));
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            ex.getRequestBody().readAllBytes();
            String method = ex.getRequestMethod();
            String path = ex.getRequestURI().getPath();
            requests.add(method + " " + path);
            if (path.equals("/jobs/overview")) {
                if (runRequested) {
                    listingsAfterRun.incrementAndGet();
                }
                reply(ex, 200, runRequested ? "{\"jobs\":[" + job(OWN, "RUNNING", 2_000) + "," + job(RIVAL, "INITIALIZING",
                        1_000) + "]}" : "{\"jobs\":[]}");
            } else if (path.equals("/jars/upload")) {
                reply(ex, 200, "{\"filename\":\"/tmp/flink-web/upload/abc_job.jar\",\"status\":\"success\"}");
            } else if (path.equals("/jars/abc_job.jar/run")) {
                runRequested = true;
                reply(ex, 200, "{\"jobid\":\"" + OWN + "\"}");
            } else if (method.equals("DELETE")) {
                reply(ex, 200, "{}");
            } else if (path.startsWith("/jobs/") && path.split("/").length == 3) {
                String id = path.split("/")[2];
                reply(ex, 200, "{\"jid\":\"" + id + "\",\"state\":\"" + (id.equals(OWN) ? "RUNNING" : "INITIALIZING")
                        + "\",\"vertices\":[]}");
            } else {
                reply(ex, 404, "{\"errors\":[\"Not found: " + path + "\"]}");
            }
        }
    }

    private static String job(String id, String state, long start) {
        return "{\"jid\":\"" + id + "\",\"name\":\"" + (id.equals(OWN) ? SingleWriterGuard.DEFAULT_JOB_NAME : "other")
                + "\",\"state\":\"" + state + "\",\"start-time\":" + start + "}";
    }

    private static void reply(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }
}
