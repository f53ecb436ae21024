package io.tierroute.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.tierroute.deploy.local.LocalCluster;
import io.tierroute.deploy.local.LoopbackPorts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code cluster status} and {@code cluster down} against a loopback server answering as Flink: job A of a name failed
 * with checkpoints, and its resubmission B failed before completing one. Only the newest job of a name counted, so
 * both said there was nothing to resume from (status: "submit it afresh"; down recorded nothing) while A's checkpoint,
 * or the one B was restored from, was still there. And the {@code --dir} of the commands they print is shell-quoted.
 */
class ClusterResumePointTest {

    private static final String A = "a".repeat(32);
    private static final String B = "b".repeat(32);
    private static final String A_CHECKPOINT = "file:/flink/checkpoints/" + A + "/chk-3";

    @TempDir
    Path tmp;

    private HttpServer server;
    private Process live;
    /** Job id → its {@code GET /jobs/<id>/checkpoints} answer. */
    private final Map<String, String> checkpoints = new ConcurrentHashMap<>();
    /** Job id → its state (default FAILED), and the Kafka and parallelism it was submitted with (default: as B). */
    private final Map<String, String> states = new ConcurrentHashMap<>();
    private final Map<String, String> bootstraps = new ConcurrentHashMap<>();
    private final Map<String, Integer> parallelisms = new ConcurrentHashMap<>();

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.stop(0);
        }
        if (live != null) {
            live.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aResubmissionThatFailedBeforeItsFirstCheckpointResumesFromTheEarlierJobsLastOne() throws Exception {
        checkpoints.put(A, completed(A_CHECKPOINT));
        checkpoints.put(B, none());
        Path dir = clusterDir();

        CliRun status = CliRun.of("cluster", "status", "--dir", dir.toString());
        assertThat(status.rc).as(status.all()).isEqualTo(1);
        assertThat(status.out).contains("job " + A + " fit: FAILED (a later job of that name was submitted)",
                "job " + B + " fit: FAILED", "to resume it from the last checkpoint of job " + A + " (FAILED), an earlier "
                        + "job of that name and settings; this one completed none: 'tierroute cluster down', 'cluster up'",
                "--from-savepoint " + A_CHECKPOINT).doesNotContain("submit it afresh");

        CliRun down = CliRun.of("cluster", "down", "--dir", dir.toString());
        assertThat(down.rc).as(down.all()).isZero();
        assertThat(down.out).contains("job " + B + " fit is FAILED: it stops with the cluster",
                "to resume fit after 'cluster up' from the last checkpoint of job " + A, "--from-savepoint " + A_CHECKPOINT)
                .doesNotContain("no completed checkpoint");
        java.util.Properties recorded = new java.util.Properties();
        try (var r = Files.newBufferedReader(dir.resolve("stopped-jobs.properties"))) {
            recorded.load(r);
        }
        assertThat(recorded.values()).as("recorded for the next 'up'").contains(A_CHECKPOINT);
        assertThat(down.out).as("the --dir of a printed command, quoted").contains("tierroute cluster up --dir '" + dir + "'");
    }

    /**
     * Every fitting job has the default name unless told otherwise: an earlier job of the name that wrote another
     * Kafka, or ran with other arguments, or still runs, is another writer, and its checkpoint (its version counter and
     * pins) is not this job's to resume from.
     */
    @Test
    void anEarlierJobOfTheNameWithOtherSettingsOrStillRunningIsNotOffered() throws Exception {
        checkpoints.put(A, completed(A_CHECKPOINT));
        checkpoints.put(B, none());
        Path dir = clusterDir();

        bootstraps.put(A, "127.0.0.1:29092"); // kafka1's job; B writes kafka2
        assertNotOffered(dir);
        bootstraps.remove(A);

        parallelisms.put(A, 2);
        assertNotOffered(dir);
        parallelisms.remove(A);

        states.put(A, "RUNNING");
        assertNotOffered(dir);
        CliRun down = CliRun.of("cluster", "down", "--dir", dir.toString());
        assertThat(down.out).as(down.all()).contains("fit has no completed checkpoint to resume from")
                .doesNotContain("from the last checkpoint of job " + A);
    }

    @Test
    void anEarlierCanceledJobOfTheSameSettingsIsOffered() throws Exception {
        checkpoints.put(A, completed(A_CHECKPOINT));
        checkpoints.put(B, none());
        states.put(A, "CANCELED");
        Path dir = clusterDir();
        CliRun status = CliRun.of("cluster", "status", "--dir", dir.toString());
        assertThat(status.out).as(status.all()).contains("to resume it from the last checkpoint of job " + A
                + " (CANCELED)", "--from-savepoint " + A_CHECKPOINT);
    }

    private static void assertNotOffered(Path dir) {
        CliRun status = CliRun.of("cluster", "status", "--dir", dir.toString());
        assertThat(status.out).as(status.all()).contains("job " + B + " fit: FAILED",
                "it has no completed checkpoint to resume from: submit it afresh").doesNotContain(A_CHECKPOINT);
    }

    @Test
    void aResubmissionFromASavepointThatFailedBeforeItsFirstCheckpointResumesFromWhereItWasRestored() throws Exception {
        checkpoints.put(A, completed(A_CHECKPOINT));
        String savepoint = "file:/flink/savepoints/savepoint-aaaaaa-0123456789ab";
        checkpoints.put(B, "{\"counts\":{\"completed\":0,\"restored\":1},\"latest\":{\"completed\":null,\"savepoint\":null,"
                + "\"failed\":null,\"restored\":{\"id\":7,\"restore_timestamp\":1700000000000,\"is_savepoint\":true,"
                + "\"external_path\":\"" + savepoint + "\"}}}");
        Path dir = clusterDir();

        CliRun status = CliRun.of("cluster", "status", "--dir", dir.toString());
        assertThat(status.out).contains("to resume it from the checkpoint it was restored from; it completed none: "
                + "'tierroute cluster down'", "--from-savepoint " + savepoint);
    }

    @Test
    void withNoCheckpointAnywhereItSaysSo() throws Exception {
        checkpoints.put(A, none());
        checkpoints.put(B, none());
        Path dir = clusterDir();
        assertThat(CliRun.of("cluster", "status", "--dir", dir.toString()).out)
                .contains("it has no completed checkpoint to resume from: submit it afresh");
        CliRun down = CliRun.of("cluster", "down", "--dir", dir.toString());
        assertThat(down.out).contains("fit has no completed checkpoint to resume from");
        assertThat(dir.resolve("stopped-jobs.properties")).doesNotExist();
    }

    /** The commands printed with a {@code --dir} paste as they are: a directory with a space in it is one shell word. */
    @Test
    void theDirOfEveryPrintedCommandIsShellQuoted() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("my cluster"));
        assertThat(CliRun.of("cluster", "status", "--dir", dir.toString()).err)
                .contains("start one with: tierroute cluster up --dir '" + dir + "'");

        // a process 'up' started that is gone: status says how to restart the cluster
        Files.writeString(dir.resolve(LocalCluster.STATE_FILE), "marker=tierroute-test-" + System.nanoTime()
                + "\nkafka.bootstrap=127.0.0.1:" + LoopbackPorts.free() + "\nflink.rest=http\\://127.0.0.1\\:"
                + LoopbackPorts.free() + "\nroles=kafka\nkafka.pid=" + ProcessHandle.current().pid()
                + "\nkafka.log=/dev/null\n");
        CliRun gone = CliRun.of("cluster", "status", "--dir", dir.toString());
        assertThat(gone.out).contains("GONE", "restarts the cluster (data kept): tierroute cluster down --dir '" + dir + "'");

        // a cluster from that directory still runs: 'up' refuses, naming the 'down' to run
        String marker = "tierroute-test-" + System.nanoTime();
        live = new ProcessBuilder("bash", "-c", "sleep 60; :", "-Dtierroute.cluster.marker=" + marker).start();
        Files.writeString(dir.resolve(LocalCluster.STATE_FILE), "marker=" + marker + "\nkafka.bootstrap=127.0.0.1:"
                + LoopbackPorts.free() + "\nflink.rest=http\\://127.0.0.1\\:" + LoopbackPorts.free()
                + "\nroles=kafka\nkafka.pid=" + live.pid() + "\nkafka.log=/dev/null\n");
        CliRun up = CliRun.of("cluster", "up", "--dir", dir.toString());
        assertThat(up.rc).as(up.all()).isEqualTo(1);
        assertThat(up.err).contains("is running (1 processes, e.g. kafka pid " + live.pid()
                + "); stop it first: tierroute cluster down --dir '" + dir + "'");
    }

    /** A cluster directory (with a space in its name) whose state file points at the loopback Flink, no process. */
    private Path clusterDir() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
        Path dir = Files.createDirectories(tmp.resolve("my cluster"));
        Files.writeString(dir.resolve(LocalCluster.STATE_FILE), "marker=tierroute-test\nkafka.bootstrap=127.0.0.1:"
                + LoopbackPorts.free() + "\nflink.rest=http\\://127.0.0.1\\:" + server.getAddress().getPort() + "\nroles=\n");
        return dir;
    }

    private static String completed(String path) {
        return "{\"counts\":{\"completed\":3},\"latest\":{\"completed\":{\"id\":3,\"external_path\":\"" + path
                + "\"},\"savepoint\":null,\"failed\":null,\"restored\":null}}";
    }

    private static String none() {
        return "{\"counts\":{\"completed\":0},\"latest\":{\"completed\":null,\"savepoint\":null,\"failed\":null,"
                + "\"restored\":null}}";
    }

    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        List<String> parts = List.of(path.split("/")); // "", "jobs", id, ...
        try (ex) {
            if (path.equals("/overview")) {
                reply(ex, 200, "{\"taskmanagers\":1,\"slots-total\":2,\"slots-available\":2,\"jobs-running\":0,"
                        + "\"flink-version\":\"2.2.1\"}");
            } else if (path.equals("/jobs/overview")) {
                reply(ex, 200, "{\"jobs\":[" + job(A, 1_000) + "," + job(B, 2_000) + "]}");
            } else if (parts.size() == 3 && parts.get(1).equals("jobs")) {
                reply(ex, 200, "{\"jid\":\"" + parts.get(2) + "\",\"name\":\"fit\",\"state\":\"" + state(parts.get(2))
                        + "\",\"vertices\":[{"
                        + "\"id\":\"v1\",\"name\":\"Source\",\"status\":\"FAILED\",\"parallelism\":1,\"tasks\":{\"FAILED\":1}}]}");
            } else if (parts.size() == 4 && parts.get(3).equals("exceptions")) {
                reply(ex, 200, "{\"exceptionHistory\":{\"entries\":[{\"exceptionName\":\"java.lang.IllegalStateException\","
                        + "\"stacktrace\":\"java.lang.IllegalStateException: boom\\n\\tat x.Y.z(Y.java:1)\\n\"}]}}");
            } else if (parts.size() == 4 && parts.get(3).equals("config")) {
                reply(ex, 200, "{\"jid\":\"" + parts.get(2) + "\",\"name\":\"fit\",\"execution-config\":{\"job-parallelism\":"
                        + parallelisms.getOrDefault(parts.get(2), 1) + ",\"user-config\":{\"tierroute.role\":\"fitting-job\","
                        + "\"tierroute.params-topic\":\"tierroute.params\",\"tierroute.bootstrap-servers\":\""
                        + bootstraps.getOrDefault(parts.get(2), "127.0.0.1:19092") + "\",\"tierroute.job-name\":\"fit\"}}}");
            } else if (parts.size() == 4 && parts.get(3).equals("checkpoints")) {
                reply(ex, 200, checkpoints.get(parts.get(2)));
            } else if (parts.size() == 5 && parts.get(4).equals("config")) {
                reply(ex, 200, "{\"interval\":500,\"state_backend\":\"HashMapStateBackend\"}");
            } else {
                reply(ex, 404, "{\"errors\":[\"Not found: " + path + "\"]}");
            }
        }
    }

    private String job(String id, long start) {
        return "{\"jid\":\"" + id + "\",\"name\":\"fit\",\"state\":\"" + state(id) + "\",\"start-time\":" + start + "}";
    }

    private String state(String id) {
        return states.getOrDefault(id, "FAILED");
    }

    private static void reply(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }
}
