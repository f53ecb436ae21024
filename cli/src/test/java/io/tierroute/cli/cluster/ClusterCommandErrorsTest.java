package io.tierroute.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.cli.TierrouteCommand;
import io.tierroute.deploy.local.ClusterDirLock;
import io.tierroute.deploy.local.LocalCluster;
import io.tierroute.deploy.local.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/** The errors of {@code cluster} and {@code submit} that need no running cluster: each says what is wrong. */
class ClusterCommandErrorsTest {

    @TempDir
    Path dir;

    @Test
    void aTakenPortIsRefusedNamingItsFlagAndNothingStarts() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String[] r = run("cluster", "up", "--dir", dir.toString(), "--kafka-port", Integer.toString(LoopbackPorts.free()),
                    "--kafka-controller-port", Integer.toString(LoopbackPorts.free()),
                    "--flink-port", Integer.toString(taken.getLocalPort()), "--flink-rpc-port", Integer.toString(LoopbackPorts.free()));
            assertThat(r[0]).isEqualTo("1");
            assertThat(r[2]).contains("port " + taken.getLocalPort() + " (--flink-port) is taken on 127.0.0.1");
        }
        assertThat(Files.exists(dir.resolve(LocalCluster.STATE_FILE))).as("no state: nothing was started").isFalse();
        ClusterDirLock.acquire(dir, "up").close(); // the failed 'up' released its lock
    }

    /** A refused 'up' into a directory it would create leaves none behind (it left one holding its lock file). */
    @Test
    void aRefusedUpLeavesNoDirectoryItMadeBehind() throws Exception {
        Path fresh = dir.resolve("fresh");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String[] r = run("cluster", "up", "--dir", fresh.toString(), "--kafka-port", Integer.toString(taken.getLocalPort()));
            assertThat(r[0]).as(r[2]).isEqualTo("1");
            assertThat(r[2]).contains("(--kafka-port) is taken");
        }
        assertThat(fresh).doesNotExist();
    }

    @Test
    void upAndDownOnADirThatAnotherUpOrDownHoldsAreRefusedAtOnce() throws Exception {
        String held = "a 'cluster up' is in progress on " + dir.toAbsolutePath() + " (pid " + ProcessHandle.current().pid()
                + "); wait for it or stop it";
        try (ClusterDirLock other = ClusterDirLock.acquire(dir, "up")) {
            String[] down = run("cluster", "down", "--dir", dir.toString());
            assertThat(down[0]).isEqualTo("1");
            assertThat(down[2].strip()).isEqualTo("tierroute cluster down: " + held);
            assertThat(down[1]).isEmpty();
            String[] up = run("cluster", "up", "--dir", dir.toString(), "--kafka-port", Integer.toString(LoopbackPorts.free()),
                    "--kafka-controller-port", Integer.toString(LoopbackPorts.free()),
                    "--flink-port", Integer.toString(LoopbackPorts.free()), "--flink-rpc-port", Integer.toString(LoopbackPorts.free()));
            assertThat(up[0]).isEqualTo("1");
            assertThat(up[2].strip()).isEqualTo("tierroute cluster up: " + held);
            assertThat(up[1]).as("nothing started").doesNotContain("starting");
            // status takes no lock
            assertThat(run("cluster", "status", "--dir", dir.toString())[2]).contains("no cluster is running from");
        }
        String[] down = run("cluster", "down", "--dir", dir.toString());
        assertThat(down[0]).as(down[2]).isEqualTo("0");
        ClusterDirLock.acquire(dir, "up").close(); // and 'down' released its own
    }

    @Test
    void statusOfAClusterWhoseJobManagerIsGoneDoesNotSendTheReaderToStatus() throws Exception {
        int flinkPort = LoopbackPorts.free();
        Files.writeString(dir.resolve(LocalCluster.STATE_FILE), "marker=tierroute-test\nkafka.bootstrap=127.0.0.1:"
                + LoopbackPorts.free() + "\nflink.rest=http\\://127.0.0.1\\:" + flinkPort + "\nroles=\n");
        String[] status = run("cluster", "status", "--dir", dir.toString());
        assertThat(status[0]).isEqualTo("1");
        assertThat(status[1]).contains("Flink http://127.0.0.1:" + flinkPort + ": DOES NOT ANSWER (cannot reach the Flink "
                + "cluster at http://127.0.0.1:" + flinkPort + " (GET /overview): connection refused)")
                .doesNotContain("cluster status");
    }

    @Test
    void aDirThatIsAFileIsRefusedBeforeAnythingStarts() throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
        String[] r = run("cluster", "up", "--dir", file.toString());
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[2]).contains("--dir " + file + " is a file, not a directory");
        assertThat(r[1]).doesNotContain("starting Kafka");
    }

    @Test
    void aTaskManagerTooSmallForTheJobOrTooLargeToParseIsRefusedBeforeAnythingStarts() {
        for (String size : new String[] {"0m", "800m", "99999999999999999999g", "2t"}) {
            String[] r = run("cluster", "up", "--dir", dir.toString(), "--tm-memory", size);
            assertThat(r[0]).as(size).isEqualTo("2");
            assertThat(r[2]).as(size).contains("--tm-memory must");
        }
        assertThat(run("cluster", "up", "--dir", dir.toString(), "--tm-memory", "800m")[2])
                .contains("--tm-memory must be in [1024m, 1024g], got 800m");
        assertThat(Files.exists(dir.resolve(LocalCluster.STATE_FILE))).as("no state: nothing was started").isFalse();
    }

    /** 500 TaskManagers of 1 GiB on one machine: refused before Kafka and the first of them start. */
    @Test
    void moreTaskManagerMemoryThanTheMachineHasIsRefusedBeforeAnythingStarts() {
        long gib = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getTotalMemorySize() >> 30;
        String n = Long.toString(gib + 2);
        String[] r = run("cluster", "up", "--dir", dir.toString(), "--task-managers", n, "--tm-memory", "1g",
                "--metrics-port", "0");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[2]).contains("--task-managers " + n + " of --tm-memory 1g need " + n + ".0 GiB, more than this "
                + "machine's ");
        assertThat(r[1]).doesNotContain("starting Kafka");
        assertThat(Files.exists(dir.resolve(LocalCluster.STATE_FILE))).as("no state: nothing was started").isFalse();
    }

    @Test
    void portsMustDiffer() {
        String[] r = run("cluster", "up", "--dir", dir.toString(), "--kafka-port", "19999", "--flink-port", "19999");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[2]).contains("the ports must all differ: --kafka-port and --flink-port are both 19999 (all: ");
    }

    @Test
    void theReportersPortsMustBeFreeAndDifferFromTheOthers() throws Exception {
        // --metrics-port N takes N (JobManager) and N + 1 (the one TaskManager)
        String[] overlap = run("cluster", "up", "--dir", dir.toString(), "--kafka-port", "19998", "--metrics-port", "19997");
        assertThat(overlap[0]).isEqualTo("2");
        assertThat(overlap[2]).contains("the ports must all differ: --kafka-port and --metrics-port + 1 are both 19998");
        String[] range = run("cluster", "up", "--dir", dir.toString(), "--metrics-port", "65535");
        assertThat(range[0]).isEqualTo("2");
        assertThat(range[2]).contains("--metrics-port must be 0 (no reporter) or in [1, 65534]");
        try (ServerSocket taken = takenAboveAFreePort()) {
            // Four free ports, distinct from each other and from the reporter's two: the OS may hand one out twice,
            // and "the ports must all differ" (exit 2) would then answer before the taken port is found.
            java.util.Set<Integer> ports = new java.util.LinkedHashSet<>();
            while (ports.size() < 4) {
                int p = LoopbackPorts.free();
                if (p != taken.getLocalPort() && p != taken.getLocalPort() - 1) {
                    ports.add(p);
                }
            }
            Integer[] free = ports.toArray(Integer[]::new);
            String[] r = run("cluster", "up", "--dir", dir.toString(), "--kafka-port", free[0].toString(),
                    "--kafka-controller-port", free[1].toString(), "--flink-port", free[2].toString(),
                    "--flink-rpc-port", free[3].toString(), "--metrics-port", Integer.toString(taken.getLocalPort() - 1));
            assertThat(r[0]).isEqualTo("1");
            assertThat(r[2]).contains("port " + taken.getLocalPort() + " (--metrics-port range " + (taken.getLocalPort() - 1)
                    + "-" + taken.getLocalPort() + ") is taken on 127.0.0.1");
        }
        assertThat(Files.exists(dir.resolve(LocalCluster.STATE_FILE))).as("no state: nothing was started").isFalse();
    }

    /**
     * A listening socket on port p + 1 where p was free a moment before: the reporter range p..p + 1 is then refused
     * for p + 1. Both below the kernel's ephemeral range ({@link LoopbackPorts#free}): a bind(0) port's neighbour
     * could be any process's outgoing connection, and the refusal then named it instead (a CI run saw 40480).
     */
    private static ServerSocket takenAboveAFreePort() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int free = LoopbackPorts.free();
            try {
                return new ServerSocket(free + 1, 1, InetAddress.getLoopbackAddress());
            } catch (java.io.IOException inUse) {
                // free + 1 is someone else's: another pair
            }
        }
        throw new IllegalStateException("no free pair of adjacent ports on 127.0.0.1 in 50 attempts");
    }

    @Test
    void everyUpOptionIsCheckedBeforeAnythingStarts() {
        // Ports first: before the fix these were refused only after "starting ...", the timeouts after a broker started.
        String[][] cases = {
                {"--kafka-port", "-1", "--kafka-port must be in [1, 65535], got -1"},
                {"--kafka-controller-port", "70000", "--kafka-controller-port must be in [1, 65535], got 70000"},
                {"--flink-port", "0", "--flink-port must be in [1, 65535], got 0"},
                {"--flink-rpc-port", "-3", "--flink-rpc-port must be in [1, 65535], got -3"},
                {"--timeout", "-5s", "--timeout must be > 0, got -5s"},
                {"--timeout", "0s", "--timeout must be > 0, got 0s"},
        };
        for (String[] c : cases) {
            String[] r = run("cluster", "up", "--dir", dir.toString(), c[0], c[1]);
            assertThat(r[0]).as(c[0] + " " + c[1] + "\n" + r[2]).isEqualTo("2");
            assertThat(r[2].lines().findFirst().orElse("")).isEqualTo(c[2]);
            assertThat(r[1]).as("nothing started").doesNotContain("starting");
        }
        assertThat(Files.exists(dir.resolve(LocalCluster.STATE_FILE))).as("no state: nothing was started").isFalse();
    }

    @Test
    void submitRefusesANonPositiveWait() {
        for (String w : new String[] {"-5s", "0s"}) {
            String[] r = run("submit", "--flink", "http://127.0.0.1:" + LoopbackPorts.free(), "--bootstrap", "h:1", "--wait", w);
            assertThat(r[0]).isEqualTo("2");
            assertThat(r[2].lines().findFirst().orElse("")).isEqualTo("--wait must be > 0, got " + w);
        }
    }

    @Test
    void submitRefusesOptionsItWouldIgnoreAndAJarThatIsADirectory() {
        String flink = "http://127.0.0.1:" + LoopbackPorts.free();
        String[] jobId = run("submit", "--flink", flink, "--bootstrap", "127.0.0.1:9092", "--job-id", "abc");
        assertThat(jobId[0]).isEqualTo("2");
        assertThat(jobId[2]).contains("--job-id names the job --savepoint stops");
        for (String[] extra : new String[][] {{"--jar", "x.jar"}, {"--allow-non-restored-state"}}) {
            java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("submit", "--flink", flink,
                    "--savepoint", dir.toString()));
            args.addAll(java.util.List.of(extra));
            String[] r = run(args.toArray(String[]::new));
            assertThat(r[0]).as(extra[0]).isEqualTo("2");
            assertThat(r[2]).as(extra[0]).contains("--savepoint stops a job; it takes no");
        }
        String[] directory = run("submit", "--flink", flink, "--bootstrap", "127.0.0.1:9092", "--jar", dir.toString());
        assertThat(directory[0]).isEqualTo("1");
        assertThat(directory[2]).contains("the job jar " + dir + " is a directory, not a jar");
        String[] port = run("submit", "--flink", "http://127.0.0.1:99999", "--bootstrap", "127.0.0.1:9092");
        assertThat(port[0]).isEqualTo("2");
        assertThat(port[2]).contains("port must be in [1, 65535], got 99999").doesNotContain("\tat ");
    }

    @Test
    void downAndStatusWithoutAClusterSaySo() {
        String[] status = run("cluster", "status", "--dir", dir.toString());
        assertThat(status[0]).as("nothing is up").isEqualTo("1");
        assertThat(status[2]).contains("no cluster is running from " + dir.toAbsolutePath());
        for (int attempt = 0; attempt < 2; attempt++) {
            String[] down = run("cluster", "down", "--dir", dir.toString());
            assertThat(down[0]).as("nothing to stop is not an error").isEqualTo("0");
            assertThat(down[1]).contains("nothing to stop under " + dir.toAbsolutePath());
        }
    }

    @Test
    void submitNamesAMissingJarAndAnUnreachableCluster() throws Exception {
        String flink = "http://127.0.0.1:" + LoopbackPorts.free();
        String[] missing = run("submit", "--flink", flink, "--bootstrap", "127.0.0.1:9092", "--jar", dir.resolve("no.jar").toString());
        assertThat(missing[0]).isEqualTo("1");
        assertThat(missing[2]).contains("the job jar " + dir.resolve("no.jar") + " does not exist");

        Path jar = Files.write(dir.resolve("job.jar"), new byte[] {1, 2, 3});
        String[] unreachable = run("submit", "--flink", flink, "--bootstrap", "127.0.0.1:9092", "--jar", jar.toString(),
                "--no-kafka-check");
        assertThat(unreachable[0]).isEqualTo("1");
        assertThat(unreachable[2]).contains("cannot reach the Flink cluster at " + flink, "connection refused");

        String[] savepoint = run("submit", "--flink", flink, "--savepoint", dir.toString());
        assertThat(savepoint[0]).isEqualTo("1");
        assertThat(savepoint[2]).contains("cannot reach the Flink cluster at " + flink);
    }

    @Test
    void submitToAKafkaThatDoesNotAnswerIsRefusedAtOnceNamingItBeforeFlinkIsAsked() throws Exception {
        String bootstrap = "127.0.0.1:" + LoopbackPorts.free();
        Path jar = Files.write(dir.resolve("job.jar"), new byte[] {1, 2, 3});
        long begin = System.nanoTime();
        // Flink's port is closed too: a refusal about Kafka means no HTTP call was made, so nothing was uploaded
        String[] r = run("submit", "--flink", "http://127.0.0.1:" + LoopbackPorts.free(), "--bootstrap", bootstrap,
                "--jar", jar.toString());
        double secs = (System.nanoTime() - begin) / 1e9;
        assertThat(r[0]).isEqualTo("1");
        assertThat(r[2].strip()).isEqualTo("tierroute submit: Kafka at " + bootstrap + " does not answer; is it running? "
                + "(e.g. 'tierroute cluster status'); --no-kafka-check skips this check");
        assertThat(r[1]).isEmpty();
        assertThat(secs).as("refused at once, not after the clients' metadata timeout").isLessThan(10);
    }

    @Test
    void submitToABootstrapHostThatDoesNotResolveIsRefusedNamingTheHost() throws Exception {
        Path jar = Files.write(dir.resolve("job.jar"), new byte[] {1, 2, 3});
        String[] r = run("submit", "--flink", "http://127.0.0.1:" + LoopbackPorts.free(), "--bootstrap",
                "no-such-host.invalid:9092", "--jar", jar.toString());
        assertThat(r[0]).isEqualTo("1");
        assertThat(r[2].strip()).isEqualTo("tierroute submit: the host of --bootstrap no-such-host.invalid:9092 does not "
                + "resolve (unknown host no-such-host.invalid); --no-kafka-check skips this check");
        assertThat(r[1]).isEmpty();
    }

    @Test
    void submitValidatesItsArguments() {
        String[] noBootstrap = run("submit", "--flink", "http://127.0.0.1:8081");
        assertThat(noBootstrap[0]).isEqualTo("2");
        assertThat(noBootstrap[2]).contains("--bootstrap HOST:PORT is required");

        String[] badBootstrap = run("submit", "--flink", "http://127.0.0.1:8081", "--bootstrap", "localhost");
        assertThat(badBootstrap[2]).contains("got 'localhost'");

        String[] twice = run("submit", "--flink", "http://127.0.0.1:8081", "--bootstrap", "h:1", "--", "--bootstrap-servers", "x:1");
        assertThat(twice[2]).contains("not as a job argument --bootstrap-servers");

        String[] badUrl = run("submit", "--flink", "ftp://x", "--bootstrap", "h:1");
        assertThat(badUrl[0]).isEqualTo("2");
        assertThat(badUrl[2]).contains("must be http://HOST:PORT or https://HOST:PORT, e.g. http://HOST:8081, got ftp://x");
    }

    /** rc, stdout, stderr. */
    private static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = TierrouteCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new String[] {Integer.toString(rc), out.toString(), err.toString()};
    }
}
