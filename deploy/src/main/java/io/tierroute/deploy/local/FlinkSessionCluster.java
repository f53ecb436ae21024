package io.tierroute.deploy.local;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A standalone Flink session cluster on loopback, from Maven-resolved jars (STACK.md): one JobManager
 * JVM ({@code StandaloneSessionClusterEntrypoint}) and TaskManager JVMs ({@code TaskManagerRunner}),
 * all reading {@code dir/conf/config.yaml}. Memory flags come from Flink's own {@code BashJavaUtils},
 * as the distribution's scripts compute them. TaskManagers can be added, and killed with SIGKILL
 * (fault tests), while the cluster runs.
 */
public final class FlinkSessionCluster implements AutoCloseable {

    /** How long Flink keeps a job that ended in its job list ({@code jobstore.expiration-time}). */
    public static final java.time.Duration JOB_LIST_RETENTION = java.time.Duration.ofDays(30);

    /**
     * Where and how. {@code config} entries are written to config.yaml after (and over) the defaults of
     * {@link #configuration}, e.g. a faster {@code heartbeat.timeout} for a TaskManager-kill test.
     */
    public record Settings(Path dir, int restPort, int rpcPort, int taskManagers, int slotsPerTaskManager,
                           String taskManagerMemory, List<Path> classpath, String marker, Map<String, String> config) {
        public Settings {
            if (restPort == rpcPort) {
                throw new IllegalArgumentException("the Flink REST and RPC ports must differ, both are " + restPort);
            }
            if (taskManagers < 0) {
                throw new IllegalArgumentException("TaskManagers must be >= 0, got " + taskManagers);
            }
            if (slotsPerTaskManager < 1) {
                throw new IllegalArgumentException("slots per TaskManager must be >= 1, got " + slotsPerTaskManager);
            }
            config = Map.copyOf(config);
        }
    }

    static final String JOB_MANAGER_MAIN = "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
    static final String TASK_MANAGER_MAIN = "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";
    static final String BASH_JAVA_UTILS = "org.apache.flink.runtime.util.bash.BashJavaUtils";
    private static final String RESULT_PREFIX = "BASH_JAVA_UTILS_EXEC_RESULT:";

    /** Flink's config key of the TaskManagers' extra JVM flags. */
    static final String TASK_MANAGER_JAVA_OPTS = "env.java.opts.taskmanager";

    /** Flink's {@code env.java.opts.all} of the distribution's config: the module openings Flink needs on Java 17. */
    static final List<String> JAVA_OPTS = List.of("-XX:+IgnoreUnrecognizedVMOptions",
            "--add-exports=java.base/sun.net.util=ALL-UNNAMED", "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED", "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    private final Settings settings;
    private final List<Path> classpath;
    private final FlinkRestClient rest;
    private ChildJvm jobManager;
    private final List<ChildJvm> taskManagers = new ArrayList<>();
    private int taskManagersStarted;
    private List<String> tmJvmFlags;
    private List<String> tmDynamicArgs;
    private Duration jobManagerUpTime;
    private Duration taskManagersRegisteredTime;

    public FlinkSessionCluster(Settings settings) {
        this.settings = settings;
        this.classpath = LocalClasspath.forFlink(settings.classpath());
        this.rest = new FlinkRestClient(restUri(), Duration.ofSeconds(10));
    }

    public URI restUri() {
        return URI.create("http://127.0.0.1:" + settings.restPort());
    }

    public FlinkRestClient rest() {
        return rest;
    }

    public Path confDir() {
        return settings.dir().resolve("conf");
    }

    /** config.yaml's entries: loopback addresses, the ports, slots, memory, checkpoint and savepoint directories. */
    public Map<String, String> configuration() {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("jobmanager.rpc.address", "127.0.0.1");
        c.put("jobmanager.rpc.port", Integer.toString(settings.rpcPort()));
        c.put("jobmanager.bind-host", "127.0.0.1");
        c.put("jobmanager.memory.process.size", "768m");
        c.put("taskmanager.bind-host", "127.0.0.1");
        c.put("taskmanager.host", "127.0.0.1");
        c.put("taskmanager.numberOfTaskSlots", Integer.toString(settings.slotsPerTaskManager()));
        c.put("taskmanager.memory.process.size", settings.taskManagerMemory());
        // the job keeps its state on the heap (hashmap backend): little managed memory is needed
        c.put("taskmanager.memory.managed.size", "32m");
        // The TaskManagers run the job: with ParallelGC the job's throughput benchmark spent less CPU per record
        // than with G1 in most interleaved pairs, its latency p99 still under 2 s (streaming-jobs README, fourth
        // to sixth rounds). Read back by startTaskManagerAsync as Flink's scripts would; a config entry overrides it.
        c.put(TASK_MANAGER_JAVA_OPTS, "-XX:+UseParallelGC");
        c.put("parallelism.default", "1");
        c.put("rest.address", "127.0.0.1");
        c.put("rest.bind-address", "127.0.0.1");
        c.put("rest.port", Integer.toString(settings.restPort()));
        c.put("execution.checkpointing.dir", settings.dir().resolve("checkpoints").toAbsolutePath().toUri().toString());
        c.put("execution.checkpointing.savepoint-dir", savepointDir().toUri().toString());
        // Restarts never run out: a Kafka outage fails the job about once a minute (its transactional producer's
        // InitProducerId times out), and the fixed-delay strategy's 20 attempts, never counted afresh, ended it for good
        // at its 21st failure over its whole life. The back-off doubles from 2 s to 30 s and starts over once the job has
        // run 10 min without a failure; attempts-before-reset-backoff stays Flink's default, unbounded.
        c.put("restart-strategy.type", "exponential-delay");
        c.put("restart-strategy.exponential-delay.initial-backoff", "2 s");
        c.put("restart-strategy.exponential-delay.max-backoff", "30 s");
        c.put("restart-strategy.exponential-delay.backoff-multiplier", "2.0");
        c.put("restart-strategy.exponential-delay.reset-backoff-threshold", "10 min");
        // a job main that calls System.exit (e.g. on a bad argument) must fail its submission, not end the JobManager
        c.put("cluster.intercept-user-system-exit", "THROW");
        // A finished or cancelled job stays in the job list for 30 days (Flink's default: 1 h): 'cluster down' reads
        // it to tell whether a job an earlier down recorded as stopped was resumed (or replaced) since.
        c.put("jobstore.expiration-time", Long.toString(JOB_LIST_RETENTION.toSeconds()));
        // Flink's 10 s RPC start-up limit killed the JobManager on a loaded 2-core machine (measured in
        // TaskManagerKillTest); a slow start is not a failure here.
        c.put("pekko.startup-timeout", "90 s");
        c.put("pekko.ask.timeout", "30 s");
        List<Path> scratch = scratchDirs(settings.dir());
        c.put("io.tmp.dirs", scratch.get(0).toString());
        c.put("web.upload.dir", settings.dir().resolve("web-upload").toAbsolutePath().toString());
        c.put("web.tmpdir", scratch.get(1).toString());
        c.putAll(settings.config());
        return c;
    }

    /**
     * Flink's scratch space under a cluster's {@code dir}: {@code io.tmp.dirs} (the JVMs' RPC jars, jm_/tm_ working
     * directories, spill and shuffle files) and {@code web.tmpdir}. A JVM deletes its own on a clean stop only, so a
     * killed one leaves them; nothing there is read by a later start. Not {@code web.upload.dir}: Flink lists the jars
     * there ({@code GET /jars}) across restarts.
     */
    public static List<Path> scratchDirs(Path dir) {
        Path d = dir.toAbsolutePath();
        return List.of(d.resolve("tmp"), d.resolve("web-tmp"));
    }

    public Path savepointDir() {
        return settings.dir().resolve("savepoints").toAbsolutePath();
    }

    /** Writes the configuration, starts the JobManager and the TaskManagers, waits until they have registered. */
    public FlinkSessionCluster start(Duration timeout) {
        LoopbackPorts.requireFree(settings.restPort(), "the Flink REST port");
        LoopbackPorts.requireFree(settings.rpcPort(), "the Flink JobManager RPC port");
        writeConfig();
        long begin = System.nanoTime();
        List<String> jm = resourceParams("GET_JM_RESOURCE_PARAMS");
        jobManager = ChildJvm.start(spec("jobmanager", JOB_MANAGER_MAIN, jvmFlags(jm.get(0), "jobmanager"),
                programArgs(jm.get(1)), "jobmanager.log"));
        jobManager.awaitReady("its REST API answers /overview", timeout, this::restAnswers);
        jobManagerUpTime = Duration.ofNanos(System.nanoTime() - begin);
        for (int i = 0; i < settings.taskManagers(); i++) {
            startTaskManagerAsync();
        }
        awaitTaskManagers(settings.taskManagers(), timeout);
        taskManagersRegisteredTime = Duration.ofNanos(System.nanoTime() - begin);
        return this;
    }

    /**
     * Starts one more TaskManager and waits until the JobManager lists it by its resource id (its name):
     * after a kill the JobManager still counts the dead one until its heartbeat times out, so a count
     * would say "registered" too early.
     */
    public ChildJvm startTaskManager(Duration timeout) {
        ChildJvm tm = startTaskManagerAsync();
        jobManager.awaitReady(tm.name() + " registered", timeout, () -> {
            if (!tm.isAlive()) {
                throw new IllegalStateException(tm.name() + " exited; its log " + tm.logFile() + " ends with:\n"
                        + ChildJvm.tail(ChildJvm.readLog(tm.logFile()), 30));
            }
            try {
                return rest.taskManagerIds().contains(tm.name());
            } catch (RuntimeException e) {
                return false;
            }
        });
        return tm;
    }

    /** Kills a TaskManager with SIGKILL, as a crash would. */
    public void killTaskManager(ChildJvm tm) {
        tm.kill9();
        taskManagers.remove(tm);
    }

    public List<ChildJvm> taskManagers() {
        return List.copyOf(taskManagers);
    }

    public ChildJvm jobManager() {
        return jobManager;
    }

    /** From the JobManager's start until its REST API answered. */
    public Duration jobManagerUpTime() {
        return jobManagerUpTime;
    }

    /** From the JobManager's start until every TaskManager had registered. */
    public Duration taskManagersRegisteredTime() {
        return taskManagersRegisteredTime;
    }

    /** Stops the TaskManagers, then the JobManager (SIGTERM, SIGKILL after 20 s). */
    @Override
    public void close() {
        for (ChildJvm tm : taskManagers) {
            tm.stop(Duration.ofSeconds(20));
        }
        taskManagers.clear();
        if (jobManager != null) {
            jobManager.stop(Duration.ofSeconds(20));
        }
    }

    private ChildJvm startTaskManagerAsync() {
        if (tmJvmFlags == null) {
            List<String> tm = resourceParams("GET_TM_RESOURCE_PARAMS");
            tmJvmFlags = Arrays.asList(tm.get(0).trim().split("\\s+"));
            tmDynamicArgs = programArgs(tm.get(1));
        }
        int n = ++taskManagersStarted;
        List<String> flags = new ArrayList<>(tmJvmFlags);
        flags.addAll(commonFlags("taskmanager-" + n));
        String tmOpts = configuration().getOrDefault(TASK_MANAGER_JAVA_OPTS, "").trim();
        if (!tmOpts.isEmpty()) {
            flags.addAll(Arrays.asList(tmOpts.split("\\s+")));
        }
        List<String> args = new ArrayList<>(tmDynamicArgs);
        args.addAll(List.of("-D", "taskmanager.resource-id=taskmanager-" + n)); // how startTaskManager finds it
        ChildJvm tm = ChildJvm.start(spec("taskmanager-" + n, TASK_MANAGER_MAIN, flags, args,
                "taskmanager-" + n + ".log"));
        taskManagers.add(tm);
        return tm;
    }

    private void awaitTaskManagers(int expected, Duration timeout) {
        jobManager.awaitReady(expected + " TaskManager(s) registered", timeout, () -> {
            for (ChildJvm tm : taskManagers) {
                if (!tm.isAlive()) {
                    throw new IllegalStateException(tm.name() + " exited; its log " + tm.logFile() + " ends with:\n"
                            + ChildJvm.tail(ChildJvm.readLog(tm.logFile()), 30));
                }
            }
            try {
                return rest.overview().taskManagers() >= expected;
            } catch (RuntimeException e) {
                return false;
            }
        });
    }

    private boolean restAnswers() {
        try {
            rest.overview();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The two result lines of {@code BashJavaUtils <command> --configDir conf}: JVM flags, dynamic properties. */
    List<String> resourceParams(String command) {
        String out = ChildJvm.runToCompletion(spec("bash-java-utils", BASH_JAVA_UTILS, List.of(AvroTrust.FLAG),
                List.of(command, "--configDir", confDir().toString()), "bash-java-utils.log"), Duration.ofSeconds(60));
        List<String> results = out.lines().filter(l -> l.startsWith(RESULT_PREFIX))
                .map(l -> l.substring(RESULT_PREFIX.length())).toList();
        if (results.size() < 2) {
            throw new IllegalStateException("BashJavaUtils " + command + " printed " + results.size()
                    + " result lines, expected 2:\n" + ChildJvm.tail(out, 30));
        }
        return results.subList(results.size() - 2, results.size());
    }

    private List<String> jvmFlags(String memoryFlags, String role) {
        List<String> flags = new ArrayList<>(Arrays.asList(memoryFlags.trim().split("\\s+")));
        flags.addAll(commonFlags(role));
        return flags;
    }

    private List<String> commonFlags(String role) {
        List<String> f = new ArrayList<>(JAVA_OPTS);
        f.add(AvroTrust.FLAG);
        if (!role.startsWith("taskmanager")) {
            // small JVMs on a shared 2-core machine; the TaskManagers' collector comes from env.java.opts.taskmanager
            f.add("-XX:+UseSerialGC");
        }
        // Flink intercepts System.exit with a security manager (cluster.intercept-user-system-exit); Java 18+ needs this
        f.add("-Djava.security.manager=allow");
        f.add("-Dlog.file=" + settings.dir().resolve("log").resolve(role + ".log").toAbsolutePath());
        f.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
        // Flink's two-phase sinks register one metric twice and warn at every checkpoint
        f.add("-Dorg.slf4j.simpleLogger.log.org.apache.flink.metrics.MetricGroup=error");
        // The job's Kafka clients log at INFO on every rebootstrap: ~500 lines a second into an unrotated log while the
        // broker is down (QA); their warnings and errors still show
        f.add("-Dorg.slf4j.simpleLogger.log.org.apache.kafka=warn");
        return f;
    }

    private List<String> programArgs(String dynamicProperties) {
        List<String> args = new ArrayList<>(List.of("--configDir", confDir().toString()));
        String d = dynamicProperties.trim();
        if (!d.isEmpty()) {
            args.addAll(Arrays.asList(d.split("\\s+")));
        }
        return args;
    }

    private ChildJvm.Spec spec(String name, String main, List<String> flags, List<String> args, String log) {
        return new ChildJvm.Spec(name, classpath, flags, main, args, settings.dir().resolve("log").resolve(log),
                settings.dir(), settings.marker());
    }

    private void writeConfig() {
        Path file = confDir().resolve("config.yaml");
        StringBuilder y = new StringBuilder("# written by tierroute's FlinkSessionCluster\n");
        configuration().forEach((k, v) -> y.append(k).append(": '").append(v.replace("'", "''")).append("'\n"));
        try {
            Files.createDirectories(confDir());
            Files.writeString(file, y.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("could not write " + file + ": " + ClusterDirLock.reason(e), e);
        }
    }
}
