package io.tierroute.deploy.local;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What {@code tierroute cluster up|down|status} manages: a {@link KafkaBrokerProcess} with the project's
 * topics and a {@link FlinkSessionCluster}, their files under one state directory, and
 * {@value #STATE_FILE} there recording the pids and ports, so that {@link #down} (in another JVM, later)
 * stops exactly the processes {@link #up} started and nothing else.
 */
public final class LocalCluster {

    /** Flink's Prometheus reporter (flink-metrics-prometheus). */
    public static final String PROMETHEUS_REPORTER_FACTORY = "org.apache.flink.metrics.prometheus.PrometheusReporterFactory";

    /** The state file under the cluster directory. */
    public static final String STATE_FILE = "cluster.properties";

    /**
     * What to start. {@code metricsPort}: the first port of Flink's Prometheus reporter (the JobManager
     * takes it, the TaskManagers the next ones, as deploy/prometheus/prometheus.yml scrapes), 0 for none.
     */
    public record Settings(Path dir, int kafkaPort, int kafkaControllerPort, int flinkRestPort, int flinkRpcPort,
                           int taskManagers, int slotsPerTaskManager, String taskManagerMemory, List<Path> classpath,
                           int metricsPort) {
        public Settings {
            dir = dir.toAbsolutePath().normalize();
            if (dir.toString().contains(",") || dir.toString().contains(java.io.File.pathSeparator)) {
                // Kafka's log.dirs and Flink's io.tmp.dirs are lists split there: its data would land beside --dir
                throw new IllegalArgumentException("--dir must not contain ',' or '" + java.io.File.pathSeparator
                        + "' (Kafka's log.dirs and Flink's io.tmp.dirs are lists split on them), got " + dir);
            }
            if (Files.exists(dir) && !Files.isDirectory(dir)) {
                throw new IllegalArgumentException("--dir " + dir + " is a file, not a directory (a missing one is created)");
            }
            Map<String, Integer> ports = new LinkedHashMap<>();
            ports.put("--kafka-port", kafkaPort);
            ports.put("--kafka-controller-port", kafkaControllerPort);
            ports.put("--flink-port", flinkRestPort);
            ports.put("--flink-rpc-port", flinkRpcPort);
            // Checked here, before anything starts: LoopbackPorts.requireFree would reject them only in up().
            ports.forEach((flag, port) -> {
                if (port < 1 || port > 65535) {
                    throw new IllegalArgumentException(flag + " must be in [1, 65535], got " + port);
                }
            });
            if (taskManagers < 1) {
                throw new IllegalArgumentException("--task-managers must be >= 1, got " + taskManagers);
            }
            if (metricsPort != 0) {
                if (metricsPort < 1 || metricsPort + taskManagers > 65535) {
                    throw new IllegalArgumentException("--metrics-port must be 0 (no reporter) or in [1, "
                            + (65535 - taskManagers) + "] (it and the next " + taskManagers + " ports), got " + metricsPort);
                }
                for (int i = 0; i <= taskManagers; i++) {
                    ports.put("--metrics-port" + (i == 0 ? "" : " + " + i), metricsPort + i);
                }
            }
            Map<Integer, String> firstWith = new HashMap<>();
            for (Map.Entry<String, Integer> e : ports.entrySet()) {
                String other = firstWith.putIfAbsent(e.getValue(), e.getKey());
                if (other != null) {
                    throw new IllegalArgumentException("the ports must all differ: " + other + " and " + e.getKey()
                            + " are both " + e.getValue() + " (all: " + ports + ")");
                }
            }
        }

        /** The Prometheus reporter's ports: the JobManager's first, then one per TaskManager; empty without one. */
        public List<Integer> metricsPorts() {
            return metricsPort == 0 ? List.of()
                    : java.util.stream.IntStream.rangeClosed(metricsPort, metricsPort + taskManagers).boxed().toList();
        }

        /**
         * config.yaml entries of Flink's Prometheus reporter (flink-metrics-prometheus on the classpath):
         * each JVM binds the first free port of the range, and the JobManager starts first.
         */
        Map<String, String> flinkConfig() {
            if (metricsPort == 0) {
                return Map.of();
            }
            return Map.of("metrics.reporter.prom.factory.class", PROMETHEUS_REPORTER_FACTORY,
                    "metrics.reporter.prom.port", metricsPort + "-" + (metricsPort + taskManagers));
        }

        String marker() {
            return markerOf(dir);
        }
    }

    /** What every process of the cluster under {@code dir} carries on its command line ({@link ChildJvm#MARKER_PROPERTY}). */
    static String markerOf(Path dir) {
        return MARKER_PREFIX + dir.toAbsolutePath().normalize();
    }

    private static final String MARKER_PREFIX = "tierroute-cluster:";
    /** {@link Member#role} of a process that carries the cluster's marker but that its state file does not name. */
    public static final String UNRECORDED = "unrecorded";

    /**
     * One process of a running cluster, as recorded in the state file; or {@link #UNRECORDED}: one that carries the
     * cluster's marker and that the state file does not name (a {@code cluster up} killed with SIGKILL before it wrote
     * it), with the cluster's directory as its log.
     */
    public record Member(String role, long pid, boolean alive, Path log) {
        public boolean recorded() {
            return !role.equals(UNRECORDED);
        }
    }

    /** What {@link #status} finds. */
    public record Status(Path dir, List<Member> members, String bootstrap, String kafkaError, String flinkRest,
                         FlinkRestClient.Overview flink, String flinkError, List<Integer> metricsPorts) {
        /** Whether an Admin client described the cluster ({@code kafkaError} says why not). */
        public boolean kafkaAnswers() {
            return kafkaError == null;
        }
    }

    /** How long {@link #status} gives Kafka and Flink to answer: a loaded machine took over 2 s to describe the cluster. */
    static final Duration STATUS_BUDGET = Duration.ofSeconds(10);

    private LocalCluster() {}

    /**
     * A running cluster started by {@link #up}: its parts, for callers (tests) that keep using them, the bytes of
     * earlier runs' Flink scratch files it deleted first, and what existing topics lack ({@link
     * ProjectTopics#recordLimitsBelowSpec}).
     */
    public record Running(KafkaBrokerProcess kafka, FlinkSessionCluster flink, List<String> topicsCreated,
                          long scratchBytesCleared, List<String> topicWarnings) {}

    /**
     * Empties Flink's scratch directories (what earlier runs' JVMs left: none of them runs, as checked first), starts
     * Kafka, creates the topics, starts Flink and writes the state file; on any failure, stops what had started. Fails
     * when the state file names live processes (a cluster is up there already) or a port is taken.
     */
    public static Running up(Settings s, Duration timeout) {
        Path state = s.dir().resolve(STATE_FILE);
        List<Member> alive = Files.exists(state) ? members(s.dir()).stream().filter(Member::alive).toList()
                : withoutState(s.dir());
        if (!alive.isEmpty()) {
            throw new IllegalStateException("a cluster started from " + s.dir() + " is running (" + alive.size()
                    + " processes, e.g. " + alive.get(0).role() + " pid " + alive.get(0).pid()
                    + "); stop it first: tierroute cluster down --dir " + ShellWords.quote(s.dir().toString()));
        }
        for (var p : List.of(Map.entry(s.kafkaPort(), "--kafka-port"),
                Map.entry(s.kafkaControllerPort(), "--kafka-controller-port"),
                Map.entry(s.flinkRestPort(), "--flink-port"),
                Map.entry(s.flinkRpcPort(), "--flink-rpc-port"))) {
            LoopbackPorts.requireFree(p.getKey(), p.getValue());
        }
        for (int port : s.metricsPorts()) { // the reporter binds every interface, not just 127.0.0.1
            LoopbackPorts.requireFreeEverywhere(port, "--metrics-port range " + s.metricsPort() + "-"
                    + (s.metricsPort() + s.taskManagers()));
        }
        long scratchCleared = FlinkScratch.clear(FlinkSessionCluster.scratchDirs(flinkDir(s.dir())));
        KafkaBrokerProcess kafka = new KafkaBrokerProcess(new KafkaBrokerProcess.Settings(s.dir().resolve("kafka"),
                s.kafkaPort(), s.kafkaControllerPort(), s.classpath(), s.marker(), Map.of()));
        FlinkSessionCluster flink = new FlinkSessionCluster(new FlinkSessionCluster.Settings(flinkDir(s.dir()),
                s.flinkRestPort(), s.flinkRpcPort(), s.taskManagers(), s.slotsPerTaskManager(), s.taskManagerMemory(),
                s.classpath(), s.marker(), s.flinkConfig()));
        // Ctrl-C (or SIGTERM) while starting: nothing else would stop the processes started so far, and a state file
        // written only once they are ready would not even name them for 'cluster down'.
        // The start goes on beside the hook: once the hook has begun, it writes no state file (the hook deletes it).
        AtomicBoolean stopping = new AtomicBoolean();
        Thread interrupted = new Thread(() -> {
            synchronized (stopping) {
                stopping.set(true);
            }
            stopInterruptedStart(s);
        }, "tierroute-cluster-up-interrupted");
        Runtime.getRuntime().addShutdownHook(interrupted);
        try {
            kafka.start(timeout);
            writeStateUnless(stopping, s, kafka, null);
            List<String> created = ProjectTopics.create(kafka.bootstrapServers(), (short) 1);
            List<String> topicWarnings = ProjectTopics.recordLimitsBelowSpec(kafka.bootstrapServers());
            flink.start(timeout);
            writeStateUnless(stopping, s, kafka, flink);
            return new Running(kafka, flink, created, scratchCleared, topicWarnings);
        } catch (RuntimeException e) {
            flink.close();
            kafka.close();
            try {
                deleteState(s.dir());
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(interrupted);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs (or ran): it stops what this start left
            }
        }
    }

    /** Where the Flink session cluster of the cluster under {@code dir} keeps its configuration, logs and data. */
    public static Path flinkDir(Path dir) {
        return dir.resolve("flink");
    }

    private static void writeStateUnless(AtomicBoolean stopping, Settings s, KafkaBrokerProcess kafka,
                                         FlinkSessionCluster flink) {
        synchronized (stopping) {
            if (!stopping.get()) {
                writeState(s, kafka, flink);
            }
        }
    }

    /**
     * Stops every process this JVM started for the cluster under {@code s.dir()} (found by the cluster's marker on
     * its command line, so a process whose start had not returned yet is found too) and removes the state file.
     */
    private static void stopInterruptedStart(Settings s) {
        // Twice: the start may have spawned one more between the first look and the JVM refusing new ones.
        for (int pass = 0; pass < 2; pass++) {
            List<ProcessHandle> ours = ProcessHandle.current().descendants()
                    .filter(h -> ChildJvm.isOurs(h.pid(), s.marker())).toList();
            if (!ours.isEmpty()) {
                System.err.println("tierroute cluster up: interrupted; stopping the " + ours.size()
                        + " process(es) it had started under " + s.dir());
            }
            for (ProcessHandle h : ours) {
                try {
                    ChildJvm.stopPid(h.pid(), s.marker(), Duration.ofSeconds(10));
                } catch (RuntimeException e) { // survived kill -9: say so, stop the others
                    System.err.println("tierroute cluster up: " + e.getMessage());
                }
            }
        }
        try {
            deleteState(s.dir());
        } catch (RuntimeException e) {
            System.err.println("tierroute cluster up: " + e.getMessage());
        }
    }

    /** Writes the state file that {@code cluster status / down} read: the processes {@link #up} started. */
    private static void writeState(Settings s, KafkaBrokerProcess kafka, FlinkSessionCluster flink) {
        Properties p = new Properties();
        p.setProperty("marker", s.marker());
        p.setProperty("kafka.bootstrap", kafka.bootstrapServers());
        p.setProperty("kafka.controller.port", Integer.toString(s.kafkaControllerPort()));
        p.setProperty("flink.rest", "http://127.0.0.1:" + s.flinkRestPort());
        p.setProperty("flink.rpc.port", Integer.toString(s.flinkRpcPort()));
        p.setProperty("metrics.ports", String.join(",", s.metricsPorts().stream().map(String::valueOf).toList()));
        List<String> roles = new ArrayList<>();
        if (kafka.jvm() != null) {
            put(p, roles, "kafka", kafka.jvm());
        }
        if (flink != null) {
            put(p, roles, "jobmanager", flink.jobManager());
            for (ChildJvm tm : flink.taskManagers()) {
                put(p, roles, tm.name(), tm);
            }
        }
        p.setProperty("roles", String.join(",", roles));
        Path file = s.dir().resolve(STATE_FILE);
        try {
            Files.createDirectories(s.dir());
            try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                p.store(w, "tierroute cluster: the processes 'cluster up' started; 'cluster down' stops them");
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not write " + file + ": " + ClusterDirLock.reason(e), e);
        }
    }

    private static void put(Properties p, List<String> roles, String role, ChildJvm jvm) {
        roles.add(role);
        p.setProperty(role + ".pid", Long.toString(jvm.pid()));
        p.setProperty(role + ".log", jvm.logFile().toString());
    }

    /**
     * The processes recorded under {@code dir}, TaskManagers first, Kafka last (the order {@link #down} stops them),
     * then those that carry the cluster's marker unrecorded ({@link #UNRECORDED}).
     */
    public static List<Member> members(Path dir) {
        return members(readState(dir), dir);
    }

    private static List<Member> members(Properties p, Path dir) {
        String marker = p.getProperty("marker");
        List<Member> out = new ArrayList<>();
        String roles = p.getProperty("roles", "");
        List<String> order = new ArrayList<>(List.of(roles.isEmpty() ? new String[0] : roles.split(",")));
        order.sort((a, b) -> Integer.compare(rank(a), rank(b)));
        Set<Long> recorded = new HashSet<>();
        for (String role : order) {
            long pid = Long.parseLong(p.getProperty(role + ".pid"));
            recorded.add(pid);
            out.add(new Member(role, pid, ChildJvm.isOurs(pid, marker), Path.of(p.getProperty(role + ".log"))));
        }
        out.addAll(0, unrecorded(marker, recorded)); // first: Flink's, mostly (Kafka is recorded once it is ready)
        return out;
    }

    /**
     * The live processes on this machine that carry {@code marker} and are not among {@code recorded}: what a
     * {@code cluster up} killed before it wrote them into the state file left running (its shutdown hook stops them
     * on SIGTERM or Ctrl-C, but nothing runs on SIGKILL).
     */
    private static List<Member> unrecorded(String marker, Set<Long> recorded) {
        String dir = marker.startsWith(MARKER_PREFIX) ? marker.substring(MARKER_PREFIX.length()) : "";
        long self = ProcessHandle.current().pid();
        return ProcessHandle.allProcesses().filter(h -> !recorded.contains(h.pid()) && h.pid() != self && h.isAlive())
                .filter(h -> ChildJvm.markerOf(h).map(m -> sameCluster(m, marker)).orElse(false))
                .map(h -> new Member(UNRECORDED, h.pid(), true, Path.of(dir))).toList();
    }

    /** Whether two markers name the same cluster: equal, or two directories that are one (a symbolic link and its target). */
    private static boolean sameCluster(String a, String b) {
        if (a.equals(b)) {
            return true;
        }
        return a.startsWith(MARKER_PREFIX) && b.startsWith(MARKER_PREFIX)
                && sameDirectory(Path.of(a.substring(MARKER_PREFIX.length())), Path.of(b.substring(MARKER_PREFIX.length())));
    }

    /** {@link #unrecorded} of the cluster under {@code dir} when no state file is there: all of its live processes. */
    public static List<Member> withoutState(Path dir) {
        return unrecorded(markerOf(dir), Set.of());
    }

    private static int rank(String role) {
        return role.startsWith("taskmanager") ? 0 : role.equals("jobmanager") ? 1 : 2;
    }

    /**
     * Stops every process the state file under {@code dir} records (TaskManagers, JobManager, Kafka; each
     * only if it is still the process {@code up} started) and removes the state file. Data stays.
     * Returns the members it found. Without a state file, it stops the processes that carry the cluster's marker (an
     * {@code up} killed before it wrote one) and returns them: none, when nothing of the cluster runs.
     */
    public static List<Member> down(Path dir) {
        if (!Files.exists(dir.resolve(STATE_FILE))) {
            List<Member> left = withoutState(dir);
            for (Member m : left) {
                ChildJvm.stopPid(m.pid(), ownMarker(m, markerOf(dir)), Duration.ofSeconds(30));
            }
            return left;
        }
        Properties p = readState(dir);
        List<Member> members = members(p, dir);
        for (Member m : members) {
            if (m.alive()) {
                ChildJvm.stopPid(m.pid(), ownMarker(m, p.getProperty("marker")), Duration.ofSeconds(30));
            }
        }
        deleteState(dir);
        return members;
    }

    /** The Flink REST address the state file under {@code dir} records. */
    public static java.net.URI flinkRest(Path dir) {
        return java.net.URI.create(readState(dir).getProperty("flink.rest"));
    }

    /** The Kafka bootstrap address the state file under {@code dir} records. */
    public static String kafkaBootstrap(Path dir) {
        return readState(dir).getProperty("kafka.bootstrap");
    }

    /** The recorded processes and whether Kafka and the Flink REST API answer. */
    public static Status status(Path dir) {
        Properties p = readState(dir);
        String bootstrap = p.getProperty("kafka.bootstrap");
        String flinkRest = p.getProperty("flink.rest");
        FlinkRestClient.Overview overview = null;
        String flinkError = null;
        try {
            // no "is it running? (cluster status)": this is the status, and its lines above say which process is GONE
            overview = new FlinkRestClient(java.net.URI.create(flinkRest), STATUS_BUDGET).withUnreachableHint("").overview();
        } catch (RuntimeException e) {
            flinkError = e.getMessage();
        }
        String ports = p.getProperty("metrics.ports", "");
        List<Integer> metricsPorts = ports.isEmpty() ? List.of()
                : java.util.Arrays.stream(ports.split(",")).map(Integer::valueOf).toList();
        return new Status(dir, members(p, dir), bootstrap, KafkaBrokerProcess.whyNotDescribed(bootstrap, STATUS_BUDGET), flinkRest, overview,
                flinkError, metricsPorts);
    }

    private static Properties readState(Path dir) {
        Path file = dir.resolve(STATE_FILE);
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            throw new IllegalStateException(file + " is not a file: 'cluster up' writes the state of what it started "
                    + "there; move it away");
        }
        if (Files.isRegularFile(dir)) {
            throw new IllegalStateException("--dir " + dir.toAbsolutePath() + " is a file, not a cluster's directory");
        }
        if (!Files.isRegularFile(file)) {
            List<Member> left = withoutState(dir);
            java.util.Optional<String> starting = ClusterDirLock.inProgress(dir);
            if (!left.isEmpty() && starting.isPresent()) {
                throw new IllegalStateException(starting.get() + ": " + left.size() + " process(es) started, not "
                        + "recorded yet in " + STATE_FILE + "; look again once it is done");
            }
            if (!left.isEmpty()) {
                throw new IllegalStateException(STATE_FILE + " is not under " + dir.toAbsolutePath() + ", but "
                        + left.size() + " process(es) of a cluster started from it still run (pid "
                        + String.join(", ", left.stream().map(m -> Long.toString(m.pid())).toList())
                        + ": a 'cluster up' killed before it recorded them); stop them: tierroute cluster down --dir "
                        + ShellWords.quote(dir.toString()));
            }
            throw new IllegalStateException("no cluster is running from " + dir.toAbsolutePath() + " (" + STATE_FILE
                    + ", which 'cluster up' writes and 'cluster down' removes, is not there); start one with: "
                    + "tierroute cluster up --dir " + ShellWords.quote(dir.toString()));
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException("could not read " + file + ": " + e.getMessage(), e);
        }
        requireWellFormed(p, file);
        requireThisDirectory(p, file, dir);
        return p;
    }

    /**
     * What {@link #members} and {@link #status} read must be there and parse: a state file edited or cut short by hand
     * is named as damaged, not answered with a NumberFormatException.
     */
    private static void requireWellFormed(Properties p, Path file) {
        for (String key : List.of("marker", "kafka.bootstrap", "flink.rest")) {
            if (p.getProperty(key, "").isBlank()) {
                throw damaged(file, key + " is missing");
            }
        }
        String roles = p.getProperty("roles", "");
        for (String role : roles.isEmpty() ? new String[0] : roles.split(",")) {
            String pid = p.getProperty(role + ".pid", "");
            if (!pid.matches("\\d{1,18}")) {
                throw damaged(file, role + ".pid is not a process id (" + (pid.isEmpty() ? "missing" : pid) + ")");
            }
            if (p.getProperty(role + ".log", "").isBlank()) {
                throw damaged(file, role + ".log is missing");
            }
        }
        String ports = p.getProperty("metrics.ports", "");
        if (!ports.isEmpty() && !ports.matches("\\d{1,5}(,\\d{1,5})*")) {
            throw damaged(file, "metrics.ports is not a list of ports (" + ports + ")");
        }
    }

    /**
     * A state file copied with its directory names the processes of the cluster started from the original: acting on
     * them from the copy would stop (or report) that cluster.
     */
    private static void requireThisDirectory(Properties p, Path file, Path dir) {
        String marker = p.getProperty("marker");
        if (!marker.startsWith(MARKER_PREFIX)) {
            return; // not one 'up' writes (a file written by hand): its processes are still checked by their marker
        }
        Path started = Path.of(marker.substring(MARKER_PREFIX.length()));
        if (!started.equals(dir.toAbsolutePath().normalize()) && !sameDirectory(started, dir)
                && members(p, dir).stream().anyMatch(Member::alive)) { // a stale copy is stale state: 'up' overwrites it
            throw new IllegalStateException(file + " records a cluster started from " + started + ", not from "
                    + dir.toAbsolutePath().normalize() + " (a copy of its directory?); its processes are that "
                    + "cluster's: use --dir " + ShellWords.quote(started.toString()));
        }
    }

    /**
     * The marker {@code m} carries: {@code recorded} for a recorded member; an unrecorded one may carry the marker of
     * the same directory by another path (a symbolic link), which {@link ChildJvm#stopPid} must be given as it is.
     */
    private static String ownMarker(Member m, String recorded) {
        return m.recorded() ? recorded : ProcessHandle.of(m.pid()).flatMap(ChildJvm::markerOf).orElse(recorded);
    }


    private static boolean sameDirectory(Path a, Path b) {
        try {
            return Files.isSameFile(a, b);
        } catch (IOException e) {
            return false;
        }
    }

    private static IllegalStateException damaged(Path file, String what) {
        return new IllegalStateException(file + " is damaged: " + what + "; the processes it recorded may still run: "
                + "stop them, then remove the file");
    }

    private static void deleteState(Path dir) {
        try {
            Files.deleteIfExists(dir.resolve(STATE_FILE));
        } catch (IOException e) {
            throw new IllegalStateException("could not delete " + dir.resolve(STATE_FILE) + ": " + e.getMessage(), e);
        }
    }
}
