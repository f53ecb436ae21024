package io.tierroute.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.tierroute.deploy.local.LocalCluster;
import io.tierroute.deploy.local.LoopbackPorts;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Processes of a local cluster its state file does not name, and a state file that is not the directory's own. A
 * {@code cluster up} killed with SIGKILL (no shutdown hook runs) after it had started Flink's JobManager but before it
 * recorded it left that JVM running: {@code status} said nothing of it and exited 0, {@code down} said "down" and left
 * it, and the next {@code up} failed on its port. A copy of a cluster's directory made {@code down} stop the original
 * cluster. Each process here is a {@code bash} carrying the cluster's marker, as the cluster's JVMs do.
 */
class UnrecordedClusterProcessTest {

    @TempDir
    Path tmp;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A process carrying the marker of the cluster under {@code dir}, as 'cluster up' starts them. */
    private Process ofCluster(Path dir) throws Exception {
        Process p = new ProcessBuilder("bash", "-c", "sleep 120; :",
                "-Dtierroute.cluster.marker=tierroute-cluster:" + dir.toAbsolutePath().normalize()).start();
        started.add(p);
        return p;
    }

    private static void state(Path dir, String marker, long kafkaPid) throws Exception {
        Files.writeString(dir.resolve(LocalCluster.STATE_FILE), "marker=" + marker + "\nkafka.bootstrap=127.0.0.1:"
                + LoopbackPorts.free() + "\nflink.rest=http\\://127.0.0.1\\:" + LoopbackPorts.free()
                + "\nroles=kafka\nkafka.pid=" + kafkaPid + "\nkafka.log=/dev/null\n");
    }

    @Test
    void processesLeftWithoutAStateFileAreNamedRefusedToStartBesideAndStopped() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("c1"));
        Process orphan = ofCluster(dir);

        CliRun status = CliRun.of("cluster", "status", "--dir", dir.toString());
        assertThat(status.rc).as(status.all()).isEqualTo(1);
        assertThat(status.err).contains("cluster.properties is not under " + dir + ", but 1 process(es) of a cluster "
                + "started from it still run (pid " + orphan.pid() + ": a 'cluster up' killed before it recorded them)");

        CliRun up = CliRun.of("cluster", "up", "--dir", dir.toString());
        assertThat(up.rc).as(up.all()).isEqualTo(1);
        assertThat(up.err).contains("is running (1 processes, e.g. unrecorded pid " + orphan.pid() + "); stop it first");

        CliRun down = CliRun.of("cluster", "down", "--dir", dir.toString());
        assertThat(down.rc).as(down.all()).isZero();
        assertThat(down.out).containsPattern("unrecorded +pid " + orphan.pid()).contains("stopped (not recorded: left by a 'cluster "
                + "up' that was killed)", "tierroute cluster: down");
        assertThat(orphan.waitFor(10, TimeUnit.SECONDS)).as("stopped").isTrue();

        assertThat(CliRun.of("cluster", "down", "--dir", dir.toString()).out).contains("nothing to stop");
    }

    @Test
    void aProcessBesideTheRecordedOnesIsListedAndStoppedWithThem() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("c2"));
        Process kafka = ofCluster(dir);
        Process jobManager = ofCluster(dir);
        state(dir, "tierroute-cluster:" + dir.toAbsolutePath().normalize(), kafka.pid());

        CliRun status = CliRun.of("cluster", "status", "--dir", dir.toString());
        assertThat(status.rc).as(status.all()).isEqualTo(1);
        assertThat(status.out).containsPattern("kafka +pid " + kafka.pid() + " +running")
                .containsPattern("unrecorded +pid " + jobManager.pid() + " +running, not in cluster.properties");

        CliRun down = CliRun.of("cluster", "down", "--dir", dir.toString());
        assertThat(down.rc).as(down.all()).isZero();
        assertThat(down.out).containsPattern("kafka +pid " + kafka.pid() + " +stopped")
                .containsPattern("unrecorded +pid " + jobManager.pid() + " +stopped \\(not recorded");
        assertThat(kafka.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(jobManager.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aCopyOfAClustersDirectoryDoesNotActOnTheOriginal() throws Exception {
        Path original = Files.createDirectories(tmp.resolve("original"));
        Process kafka = ofCluster(original);
        Path copy = Files.createDirectories(tmp.resolve("copy"));
        state(copy, "tierroute-cluster:" + original.toAbsolutePath().normalize(), kafka.pid());

        for (String command : List.of("status", "down", "up")) {
            CliRun run = CliRun.of("cluster", command, "--dir", copy.toString());
            assertThat(run.rc).as(command + ": " + run.all()).isEqualTo(1);
            assertThat(run.err).as(command).contains("records a cluster started from " + original + ", not from "
                    + copy + " (a copy of its directory?); its processes are that cluster's: use --dir " + original);
        }
        assertThat(kafka.isAlive()).as("the original's process is left alone").isTrue();
    }

    /**
     * A TaskManager process that runs but is not registered with Flink (it lost its JobManager, or stopped answering
     * its heartbeat): every process ran, so 'status' printed "0 TaskManager(s), 0/0 slots free" and nothing else.
     */
    @Test
    void aTaskManagerFlinkDoesNotCountIsNamed() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("c3"));
        Process taskManager = ofCluster(dir);
        HttpServer flink = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        flink.createContext("/", ex -> {
            byte[] body = (ex.getRequestURI().getPath().equals("/overview")
                    ? "{\"taskmanagers\":0,\"slots-total\":0,\"slots-available\":0,\"jobs-running\":0,"
                            + "\"flink-version\":\"2.2.1\"}"
                    : "{\"jobs\":[]}").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            try (ex) {
                ex.getResponseBody().write(body);
            }
        });
        flink.start();
        try {
            Files.writeString(dir.resolve(LocalCluster.STATE_FILE), "marker=tierroute-cluster:"
                    + dir.toAbsolutePath().normalize() + "\nkafka.bootstrap=127.0.0.1:" + LoopbackPorts.free()
                    + "\nflink.rest=http\\://127.0.0.1\\:" + flink.getAddress().getPort()
                    + "\nroles=taskmanager-1\ntaskmanager-1.pid=" + taskManager.pid() + "\ntaskmanager-1.log=/dev/null\n");
            CliRun status = CliRun.of("cluster", "status", "--dir", dir.toString());
            assertThat(status.rc).as(status.all()).isEqualTo(1);
            assertThat(status.out).containsPattern("taskmanager-1 +pid " + taskManager.pid() + " +running")
                    .contains("0 TaskManager(s), 0/0 slots free")
                    .contains("0 of the 1 TaskManager(s) 'cluster up' started are registered with Flink: no job can "
                            + "run on a missing one");
        } finally {
            flink.stop(0);
        }
    }

    /** A stale copy (nothing of the original runs) is stale state, not another cluster: 'down' clears it. */
    @Test
    void aCopyOfAStoppedClustersDirectoryIsStaleStateDownClears() throws Exception {
        Path original = tmp.resolve("stopped");
        Path copy = Files.createDirectories(tmp.resolve("stale-copy"));
        state(copy, "tierroute-cluster:" + original.toAbsolutePath().normalize(), ProcessHandle.current().pid());
        CliRun status = CliRun.of("cluster", "status", "--dir", copy.toString());
        assertThat(status.rc).isEqualTo(1);
        assertThat(status.out).contains("GONE");
        CliRun down = CliRun.of("cluster", "down", "--dir", copy.toString());
        assertThat(down.rc).as(down.all()).isZero();
        assertThat(copy.resolve(LocalCluster.STATE_FILE)).doesNotExist();
    }

    /** Started through a symbolic link, found through the directory it names (and the other way round). */
    @Test
    void processesOfAClusterStartedThroughALinkAreFoundThroughItsTarget() throws Exception {
        Path real = Files.createDirectories(tmp.resolve("real"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
        Process orphan = ofCluster(link);
        CliRun down = CliRun.of("cluster", "down", "--dir", real.toString());
        assertThat(down.rc).as(down.all()).isZero();
        assertThat(down.out).containsPattern("unrecorded +pid " + orphan.pid());
        assertThat(orphan.waitFor(10, TimeUnit.SECONDS)).as("stopped").isTrue();
    }

    /** While an 'up' is still starting, its processes are not yet recorded: 'status' says so, not that one was killed. */
    @Test
    void processesOfAnUpInProgressAreSaidToBeNotRecordedYet() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("starting"));
        Process up = new ProcessBuilder("sleep", "120").start();
        started.add(up);
        Files.writeString(dir.resolve(".cluster.lock"), "up " + up.pid() + "\n");
        Process kafka = ofCluster(dir);
        CliRun status = CliRun.of("cluster", "status", "--dir", dir.toString());
        assertThat(status.rc).isEqualTo(1);
        assertThat(status.err).contains("a 'cluster up' is in progress on " + dir.toAbsolutePath().normalize() + " (pid "
                + up.pid() + "): 1 process(es) started, not recorded yet in cluster.properties; look again once it is "
                + "done");
        assertThat(kafka.isAlive()).isTrue();
    }

    @Test
    void aFileGivenAsTheDirectoryIsSaidToBeOne() throws Exception {
        Path file = Files.writeString(tmp.resolve("afile"), "x");
        CliRun status = CliRun.of("cluster", "status", "--dir", file.toString());
        assertThat(status.rc).isEqualTo(1);
        assertThat(status.err).contains("--dir " + file + " is a file, not a cluster's directory");
        CliRun down = CliRun.of("cluster", "down", "--dir", file.toString());
        assertThat(down.rc).isEqualTo(1);
        assertThat(down.err).contains("--dir " + file + " is a file, not a cluster's directory");
    }

    @Test
    void aDirectoryWithAListSeparatorIsRefused() {
        CliRun up = CliRun.of("cluster", "up", "--dir", tmp.resolve("x,y").toString());
        assertThat(up.rc).as(up.all()).isEqualTo(2);
        assertThat(up.err).contains("--dir must not contain ',' or ':' (Kafka's log.dirs and Flink's io.tmp.dirs are "
                + "lists split on them), got " + tmp.resolve("x,y"));
        assertThat(tmp.resolve("x")).doesNotExist();
    }
}
