package io.tierroute.cli;

import io.tierroute.deploy.local.ClusterDirLock;
import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.LocalClasspath;
import io.tierroute.deploy.local.LocalCluster;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.WriterIdentity;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code tierroute cluster up|down|status}: a Kafka broker process and a standalone Flink session
 * cluster on loopback, but for Flink's Prometheus reporter, which binds every interface ({@link LocalCluster}), for running the fitting job as users do once one machine
 * is not enough: submitted with {@code tierroute submit}, upgraded through savepoints.
 */
@Command(name = "cluster",
        mixinStandardHelpOptions = true,
        versionProvider = TierrouteCommand.Version.class,
        description = {"Start, stop and inspect a local Kafka broker process and Flink session cluster. Kafka's "
                + "ports and Flink's REST and RPC ports listen on loopback only; Flink's Prometheus metrics ports "
                + "listen on every interface (see 'cluster up --help', --metrics-port).",
                "The processes run on the Maven-resolved jars this command was built with (no Flink or Kafka "
                        + "distribution needed) and keep their pids, ports, logs and data under --dir.", ""},
        subcommands = {ClusterCommand.Up.class, ClusterCommand.Down.class, ClusterCommand.Status.class},
        commandListHeading = "%nCommands:%n",
        synopsisSubcommandLabel = "COMMAND")
final class ClusterCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a cluster command is required (up, down, status)");
    }

    @Command(name = "up", mixinStandardHelpOptions = true, versionProvider = TierrouteCommand.Version.class,
            description = {"Start the Kafka broker, create the topics, start the JobManager and the TaskManagers; "
                    + "returns once all of them answer, leaving them running.",
                    "First it empties Flink's scratch directories (DIR/flink/tmp, DIR/flink/web-tmp), where killed or "
                            + "restarted JVMs of earlier runs leave their files; checkpoints, savepoints, logs and "
                            + "Kafka's data stay.",
                    "An 'up' or 'down' on the same --dir at the same time is refused (exit 1): each holds "
                            + "DIR/" + ClusterDirLock.FILE + " while it runs."})
    static final class Up implements Callable<Integer> {
        @CommandLine.Mixin
        DirOptionMixin dir;

        @Option(names = "--kafka-port", defaultValue = "9092", paramLabel = "N", description = "Kafka client port (default ${DEFAULT-VALUE}).")
        int kafkaPort;

        @Option(names = "--kafka-controller-port", defaultValue = "9093", paramLabel = "N",
                description = "Kafka KRaft controller port (default ${DEFAULT-VALUE}).")
        int kafkaControllerPort;

        @Option(names = "--flink-port", defaultValue = "8081", paramLabel = "N",
                description = "Flink REST API and web UI port (default ${DEFAULT-VALUE}).")
        int flinkPort;

        @Option(names = "--flink-rpc-port", defaultValue = "6123", paramLabel = "N",
                description = "Flink JobManager RPC port (default ${DEFAULT-VALUE}).")
        int flinkRpcPort;

        @Option(names = "--metrics-port", defaultValue = "9249", paramLabel = "N",
                description = "First port of Flink's Prometheus reporter: the JobManager serves /metrics on it, the "
                        + "TaskManagers on the next ones (deploy/prometheus/prometheus.yml scrapes 9249 and 9250: add one target per further TaskManager); 0 for no "
                        + "reporter (default ${DEFAULT-VALUE}). Unlike every other port of the cluster these listen on "
                        + "every interface, not only loopback (the reporter has no bind-address setting): on a machine "
                        + "others can reach, block them with a firewall, or give 0.")
        int metricsPort;

        @Option(names = "--task-managers", defaultValue = "1", paramLabel = "N", description = "TaskManager JVMs (default ${DEFAULT-VALUE}).")
        int taskManagers;

        @Option(names = "--slots", defaultValue = "2", paramLabel = "N", description = "Slots per TaskManager (default ${DEFAULT-VALUE}).")
        int slots;

        /**
         * Flink's fixed parts (metaspace, JVM overhead, framework and network memory) take 800 MB of a TaskManager
         * with this cluster's 32 MB of managed memory: 1024m leaves 224 MB of task heap for the job's heap-kept state,
         * 832m 32 MB, 800m none (Flink's TaskExecutorProcessUtils).
         */
        static final long MIN_TM_MEMORY_MB = 1024;
        static final long MAX_TM_MEMORY_MB = 1024 * 1024;

        @Option(names = "--tm-memory", defaultValue = "1024m", paramLabel = "SIZE",
                description = "taskmanager.memory.process.size of each TaskManager, 1024m to 1024g (default ${DEFAULT-VALUE}).")
        String tmMemory;

        @Option(names = "--timeout", defaultValue = "120s", paramLabel = "D", converter = DemoCommand.DurationConverter.class,
                description = "How long each process may take to become ready (default ${DEFAULT-VALUE}).")
        Duration timeout;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            if (timeout.isNegative() || timeout.isZero()) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--timeout must be > 0, got "
                        + spec.findOption("--timeout").originalStringValues().get(0));
            }
            if (slots < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--slots must be >= 1, got " + slots);
            }
            if (!tmMemory.matches("\\d{1,7}[mMgG]")) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--tm-memory must look like 1024m or 2g, got " + tmMemory);
            }
            long mb = Long.parseLong(tmMemory.substring(0, tmMemory.length() - 1))
                    * (Character.toLowerCase(tmMemory.charAt(tmMemory.length() - 1)) == 'g' ? 1024 : 1);
            if (mb < MIN_TM_MEMORY_MB || mb > MAX_TM_MEMORY_MB) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--tm-memory must be in [" + MIN_TM_MEMORY_MB
                        + "m, " + MAX_TM_MEMORY_MB / 1024 + "g], got " + tmMemory + " (Flink's fixed parts take 800 MB of it, "
                        + "and the job keeps its state on the task heap)");
            }
            long machineMb = machineMemoryMb();
            if (machineMb > 0 && taskManagers > 0 && (double) taskManagers * mb > machineMb) {
                throw new CommandLine.ParameterException(spec.commandLine(), String.format(java.util.Locale.ROOT,
                        "--task-managers %d of --tm-memory %s need %.1f GiB, more than this machine's %.1f GiB of "
                                + "memory", taskManagers, tmMemory, (double) taskManagers * mb / 1024, machineMb / 1024.0));
            }
            List<Path> classpath;
            try {
                classpath = LocalClasspath.fromResource(ClusterCommand.class);
            } catch (IllegalStateException e) { // the list of jars is missing or stale: a broken build, not a usage error
                err.println("tierroute cluster up: " + e.getMessage());
                return 1;
            }
            LocalCluster.Settings s;
            try {
                s = new LocalCluster.Settings(dir.dir, kafkaPort, kafkaControllerPort, flinkPort, flinkRpcPort, taskManagers,
                        slots, tmMemory, classpath, metricsPort);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            boolean dirExisted = Files.exists(s.dir());
            ClusterDirLock lock;
            try {
                lock = ClusterDirLock.acquire(s.dir(), "up");
            } catch (IllegalStateException e) { // another 'up' or 'down' runs there, or the lock file cannot be written
                err.println("tierroute cluster up: " + e.getMessage());
                return 1;
            }
            int rc;
            // Held until the end, or, after Ctrl-C, until the JVM has stopped what it started and exits.
            try (lock) {
                rc = up(s, out, err);
                if (rc != 0 && !dirExisted) {
                    // A refused 'up' (a port taken) leaves no directory it made behind. Deleted while still locked: an
                    // 'up' that opened the same lock file meanwhile is refused by the lock, not left holding a lock on
                    // a file deleted under it, which a later 'up' or 'down' would not see.
                    removeIfOnlyTheLock(s.dir());
                }
            }
            return rc;
        }

        /** Deletes {@code dir} when it holds nothing but the lock file; else leaves it (logs, state to look at). */
        private static void removeIfOnlyTheLock(Path dir) {
            try (var entries = Files.list(dir)) {
                if (entries.allMatch(p -> p.getFileName().toString().equals(ClusterDirLock.FILE))) {
                    Files.deleteIfExists(dir.resolve(ClusterDirLock.FILE));
                    Files.deleteIfExists(dir);
                }
            } catch (java.io.IOException e) {
                // left as it is: the next 'up' uses it
            }
        }

        /** This machine's physical memory in MB; 0 where the JVM cannot tell. */
        static long machineMemoryMb() {
            if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                    instanceof com.sun.management.OperatingSystemMXBean os) {
                return os.getTotalMemorySize() / (1024 * 1024);
            }
            return 0;
        }

        private int up(LocalCluster.Settings s, PrintWriter out, PrintWriter err) {
            out.println("tierroute cluster: starting Kafka and Flink under " + s.dir() + " ...");
            out.flush();
            long begin = System.nanoTime();
            LocalCluster.Running r;
            try {
                r = LocalCluster.up(s, timeout);
            } catch (LoopbackPorts.PortTakenException e) {
                err.println("tierroute cluster up: " + e.getMessage() + "; pick another port with the flag named");
                return 1;
            } catch (RuntimeException e) {
                err.println("tierroute cluster up: " + e.getMessage());
                return 1;
            }
            if (r.scratchBytesCleared() > 0) {
                out.printf(Locale.ROOT, "  cleared %.1f MB of Flink scratch files that earlier runs left under %s%n",
                        r.scratchBytesCleared() / 1e6, LocalCluster.flinkDir(s.dir()));
            }
            out.printf(Locale.ROOT, "  Kafka:  %s (pid %d, ready in %.1f s; topics created: %s)%n", r.kafka().bootstrapServers(),
                    r.kafka().jvm().pid(), secs(r.kafka().lastStartTime()),
                    r.topicsCreated().isEmpty() ? "none, all existed" : String.join(", ", r.topicsCreated()));
            r.topicWarnings().forEach(w -> out.println("  warning: " + w));
            out.printf(Locale.ROOT, "  Flink:  %s (JobManager pid %d, up in %.1f s; %d TaskManager(s) x %d slots registered "
                            + "after %.1f s)%n", r.flink().restUri(), r.flink().jobManager().pid(),
                    secs(r.flink().jobManagerUpTime()), taskManagers, slots, secs(r.flink().taskManagersRegisteredTime()));
            if (!s.metricsPorts().isEmpty()) {
                out.printf(Locale.ROOT, "  metrics: %s%n", metricsUrls(s.metricsPorts()));
            }
            out.printf(Locale.ROOT, "  logs:   %s/kafka/kafka.log, %s/flink/log/%n", s.dir(), s.dir());
            List<StoppedJobs.Job> stopped = StoppedJobs.read(s.dir());
            if (stopped.isEmpty()) {
                out.printf(Locale.ROOT, "up in %.1f s. Next: %s; stop with: tierroute cluster down --dir %s%n",
                        (System.nanoTime() - begin) / 1e9, nextStep(r.flink().restUri(), r.kafka().bootstrapServers(),
                                JobJarFlag.forPaste(), taskManagers * slots), ShellWords.quote(s.dir().toString()));
            } else {
                out.printf(Locale.ROOT, "up in %.1f s; stop with: tierroute cluster down --dir %s%n",
                        (System.nanoTime() - begin) / 1e9, ShellWords.quote(s.dir().toString()));
                boolean many = stopped.size() > 1;
                out.println("  'cluster down' here stopped the fitting job" + (many ? "s" : "") + " below, and nothing has "
                        + "resumed " + (many ? "them" : "it") + " since; to resume from " + (many ? "each one's" : "its")
                        + " last checkpoint (and keep what it fitted):");
                for (StoppedJobs.Job j : stopped) {
                    out.println("    " + StoppedJobs.resumeLine(j, r.flink().restUri(), r.kafka().bootstrapServers()));
                }
            }
            return 0;
        }
    }

    /** The submit line {@code up} prints last; {@code jarFlag} from {@link JobJarFlag}. */
    static String nextStep(URI flink, String bootstrap, String jarFlag) {
        return "tierroute submit --flink " + flink + " --bootstrap " + bootstrap + jarFlag;
    }

    /**
     * As above, with the job's {@code --parallelism} lowered to the cluster's {@code slots} when they are fewer than its
     * default: submit would refuse the default on such a cluster.
     */
    static String nextStep(URI flink, String bootstrap, String jarFlag, int slots) {
        return nextStep(flink, bootstrap, jarFlag)
                + (slots < JobSettings.builder().build().parallelism() ? " -- --parallelism " + slots : "");
    }

    @Command(name = "down", mixinStandardHelpOptions = true, versionProvider = TierrouteCommand.Version.class,
            description = {"Stop the processes 'cluster up' started from --dir (SIGTERM, SIGKILL after 30 s); data stays.",
                    "A job still running stops with the cluster, without a savepoint: each is named first, and for a "
                            + "fitting job the submit line that resumes it from its last checkpoint after 'cluster up' is "
                            + "printed last, with the job arguments Flink shows of it, its --parallelism among them "
                            + "('submit --help', Resume lines).",
                    "Refused (exit 1) while a 'cluster up' or another 'down' runs on the same --dir."})
    static final class Down implements Callable<Integer> {
        @CommandLine.Mixin
        DirOptionMixin dir;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            ClusterDirLock lock;
            try {
                // a missing --dir: no 'up' got as far as creating it, nothing to lock or stop
                lock = Files.isDirectory(dir.dir) ? ClusterDirLock.acquire(dir.dir, "down") : null;
            } catch (IllegalStateException e) { // a 'cluster up' (or 'down') runs there
                spec.commandLine().getErr().println("tierroute cluster down: " + e.getMessage());
                return 1;
            }
            try (lock) {
                return down(out);
            }
        }

        private int down(PrintWriter out) {
            if (Files.isRegularFile(dir.dir)) {
                spec.commandLine().getErr().println("tierroute cluster down: --dir " + dir.dir.toAbsolutePath()
                        + " is a file, not a cluster's directory");
                return 1;
            }
            if (!Files.exists(dir.dir.resolve(LocalCluster.STATE_FILE))) {
                // what a 'cluster up' killed before it recorded them left: they carry the cluster's marker all the same
                List<LocalCluster.Member> left;
                try {
                    left = LocalCluster.down(dir.dir);
                } catch (IllegalStateException e) {
                    spec.commandLine().getErr().println("tierroute cluster down: " + e.getMessage());
                    return 1;
                }
                if (left.isEmpty()) {
                    // Nothing to stop is what 'down' is for: exit 0, so a clean-up script can run it twice.
                    out.println("tierroute cluster: nothing to stop under " + dir.dir.toAbsolutePath()
                            + " (no cluster was started from it, or 'cluster down' stopped it already)");
                    return 0;
                }
                for (LocalCluster.Member m : left) {
                    out.printf(Locale.ROOT, "  %-14s pid %-8d stopped (not recorded: left by a 'cluster up' that "
                            + "was killed)%n", m.role(), m.pid());
                }
                out.println("tierroute cluster: down (data kept under " + dir.dir.toAbsolutePath() + ")");
                return 0;
            }
            try {
                List<StoppedJobs.Writes> ranSince = new ArrayList<>(); // filled by runningJobs
                List<Resumable> running = runningJobs(out, ranSince); // null: Flink did not answer
                List<LocalCluster.Member> members = LocalCluster.down(dir.dir);
                for (LocalCluster.Member m : members) {
                    out.printf(Locale.ROOT, "  %-14s pid %-8d %s%n", m.role(), m.pid(), !m.recorded()
                            ? "stopped (not recorded: left by a 'cluster up' that was killed)"
                            : m.alive() ? "stopped" : "was not running");
                }
                out.println("tierroute cluster: down (data kept under " + dir.dir.toAbsolutePath() + ")");
                // Resolved now that the job is stopped: the checkpoint Flink named while it ran may be discarded since.
                List<StoppedJobs.Job> stopped = new ArrayList<>();
                for (Resumable r : running == null ? List.<Resumable>of() : running) {
                    if (r.line() != null) {
                        out.println(r.line());
                        continue;
                    }
                    String checkpoint = NewestCheckpoint.after(r.checkpoint());
                    stopped.add(new StoppedJobs.Job(r.identity(), r.arguments(), checkpoint, r.onTheClustersKafka()));
                    out.println("  to resume " + r.name() + " after 'cluster up'" + (r.checkpointSource() == null ? ""
                            : " from " + r.checkpointSource()) + ": " + ResumeCommand.of(r.flink(), r.identity(),
                            r.arguments(), checkpoint) + " (and its other flags)");
                }
                try {
                    if (running != null) { // Flink not asked (it did not answer): an earlier record stays whole
                        List<StoppedJobs.Job> earlier = StoppedJobs.read(dir.dir);
                        List<StoppedJobs.Job> kept = StoppedJobs.afterDown(stopped, earlier, ranSince);
                        for (StoppedJobs.Job j : earlier) {
                            if (!kept.contains(j)) {
                                out.println("  the earlier record of the job writing " + j.writes().paramsTopic()
                                        + " is dropped: a job that writes it has checkpointed since");
                            }
                        }
                        StoppedJobs.write(dir.dir, kept);
                    }
                    if (!stopped.isEmpty()) {
                        out.println("  (the next 'cluster up' prints the resume line again, with its ports: tierroute cluster "
                                + "up --dir " + ShellWords.quote(dir.dir.toString()) + ")");
                    }
                } catch (java.io.IOException e) {
                    spec.commandLine().getErr().println("tierroute cluster down: could not record where the jobs can "
                            + "resume from (" + IoErrors.describe(e) + "): keep the lines above");
                }
                return 0;
            } catch (IllegalStateException e) {
                spec.commandLine().getErr().println("tierroute cluster down: " + e.getMessage());
                return 1;
            }
        }

        /**
         * A fitting job stopped with the cluster: where it can resume from, as Flink named it while it ran
         * ({@code checkpoint}), or a finished {@code line} to print (no checkpoint, or Flink did not say).
         */
        private record Resumable(String name, URI flink, java.util.Map<String, String> identity, List<String> arguments,
                                 String checkpoint, String checkpointSource, boolean onTheClustersKafka, String line) {}

        /**
         * The jobs running on the cluster's Flink, which stop with it and without a savepoint: each is named before the
         * stop; a fitting job also with the checkpoint it can resume from (the cluster keeps checkpoints), returned to
         * print after the stop; null when Flink does not answer (it runs no job anyone can reach then, and what it ran
         * before, an earlier record may say).
         */
        private List<Resumable> runningJobs(PrintWriter out, List<StoppedJobs.Writes> ranSince) {
            List<Resumable> resume = new ArrayList<>();
            FlinkRestClient rest;
            List<FlinkRestClient.JobSummary> jobs;
            String clustersKafka;
            try {
                rest = new FlinkRestClient(LocalCluster.flinkRest(dir.dir), Duration.ofSeconds(5));
                clustersKafka = LocalCluster.kafkaBootstrap(dir.dir);
                jobs = rest.jobs();
            } catch (FlinkRestClient.FlinkRestException | IllegalArgumentException e) {
                return null;
            }
            Set<String> current = JobStates.newestOfTheirName(jobs);
            if (!StoppedJobs.read(dir.dir).isEmpty()) {
                ranSince.addAll(fittingJobsWrites(out, rest, jobs, clustersKafka));
            }
            for (FlinkRestClient.JobSummary j : jobs) {
                if (j.state().equals("RUNNING")) {
                    out.println("  job " + j.id() + " " + ShellWords.quote(j.name()) + " is RUNNING: it stops with the "
                            + "cluster, without a savepoint (for one, stop it first: tierroute submit --flink " + rest.base()
                            + " --savepoint DIR --job-id " + j.id() + ")");
                } else if (current.contains(j.id()) && JobStates.halted(j.state(), 0)) {
                    // a job that lost its TaskManager: not running, but where it can resume from matters all the more
                    out.println("  job " + j.id() + " " + ShellWords.quote(j.name()) + " is " + j.state()
                            + ": it stops with the cluster");
                } else {
                    continue;
                }
                try {
                    FlinkRestClient.JobConfig config = rest.jobConfig(j.id()).orElse(ResumeCommand.UNKNOWN);
                    if (!WriterIdentity.FITTING_JOB.equals(config.userConfig().get(WriterIdentity.ROLE))) {
                        continue; // another application's job: how it resumes is its own
                    }
                    String name = ShellWords.quote(j.name());
                    List<String> arguments = ResumeCommand.jobArguments(rest, j.id(), config);
                    java.util.Optional<ResumePoint> checkpoint = ResumePoint.of(rest, j, config.userConfig(), arguments, jobs);
                    boolean onKafka = java.util.Objects.equals(clustersKafka,
                            config.userConfig().get(WriterIdentity.BOOTSTRAP_SERVERS));
                    resume.add(new Resumable(name, rest.base(), config.userConfig(), arguments,
                            checkpoint.map(ResumePoint::path).orElse(null), checkpoint.map(ResumePoint::source).orElse(null),
                            onKafka, checkpoint.isPresent() ? null : "  " + name + " has no completed checkpoint to resume from"));
                } catch (FlinkRestClient.FlinkRestException e) {
                    resume.add(new Resumable(null, null, null, null, null, null, false, "  where " + ShellWords.quote(j.name())
                            + " could resume from is unknown: " + e.getMessage()));
                }
            }
            return resume;
        }

        /**
         * What each fitting job in Flink's job list that completed a checkpoint writes, whatever its state now
         * (StoppedJobs.afterDown): resumed from a recorded line, or started afresh, such a job has a newer resume point
         * than the record. One without a checkpoint yet (still starting, or failed restoring) does not: the record is
         * still where its writer resumes from. When Flink does not give a job's configuration or checkpoints, none: the
         * earlier records stay, as when Flink does not answer at all, and the operator is told.
         */
        private static List<StoppedJobs.Writes> fittingJobsWrites(PrintWriter out, FlinkRestClient rest,
                                                                  List<FlinkRestClient.JobSummary> jobs,
                                                                  String clustersKafka) {
            List<StoppedJobs.Writes> writes = new ArrayList<>();
            for (FlinkRestClient.JobSummary j : jobs) {
                try {
                    java.util.Map<String, String> config = rest.jobConfig(j.id()).orElse(ResumeCommand.UNKNOWN).userConfig();
                    if (WriterIdentity.FITTING_JOB.equals(config.get(WriterIdentity.ROLE))
                            && rest.completedCheckpoints(j.id()) > 0) {
                        writes.add(StoppedJobs.Writes.of(config, java.util.Objects.equals(clustersKafka,
                                config.get(WriterIdentity.BOOTSTRAP_SERVERS))));
                    }
                } catch (FlinkRestClient.FlinkRestException e) {
                    out.println("  the jobs an earlier 'cluster down' recorded stay recorded: whether job " + j.id()
                            + " resumed one of them is unknown (" + e.getMessage() + ")");
                    return List.of();
                }
            }
            return writes;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, versionProvider = TierrouteCommand.Version.class,
            description = {"Each process of the cluster under --dir, whether Kafka answers an Admin client and what "
                    + "Flink's REST API reports. Exit code 0 only when everything is up.",
                    "A fitting job that is halted (failed, suspended, or without a task slot to run on) is shown with the "
                            + "submit line that resumes it from its last checkpoint, with the job arguments Flink shows "
                            + "of it, its --parallelism among them ('submit --help', Resume lines)."})
    static final class Status implements Callable<Integer> {
        @CommandLine.Mixin
        DirOptionMixin dir;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            LocalCluster.Status s;
            try {
                s = LocalCluster.status(dir.dir);
            } catch (IllegalStateException e) {
                spec.commandLine().getErr().println("tierroute cluster status: " + e.getMessage());
                return 1;
            }
            boolean allUp = s.kafkaAnswers() && s.flink() != null;
            java.util.Optional<String> starting = ClusterDirLock.inProgress(dir.dir);
            for (LocalCluster.Member m : s.members()) {
                if (!m.recorded()) { // carries the cluster's marker: an 'up' still starting, or one killed before it recorded it
                    out.printf(Locale.ROOT, "  %-14s pid %-8d running, not in %s (%s)%n", m.role(), m.pid(),
                            LocalCluster.STATE_FILE, starting.map(w -> w + ": not recorded yet")
                                    .orElse("left by a 'cluster up' that was killed: 'cluster down' stops it"));
                    allUp = false;
                    continue;
                }
                out.printf(Locale.ROOT, "  %-14s pid %-8d %-8s log %s%n", m.role(), m.pid(), m.alive() ? "running" : "GONE", m.log());
                allUp &= m.alive();
            }
            out.printf(Locale.ROOT, "  Kafka %s: %s%n", s.bootstrap(), s.kafkaAnswers() ? "answers"
                    : "DOES NOT ANSWER (" + s.kafkaError() + ")");
            if (s.members().stream().anyMatch(m -> !m.alive())) {
                out.println("  a process that is GONE does not come back by itself: 'cluster down' then 'cluster up' "
                        + "restarts the cluster (data kept): tierroute cluster down --dir " + ShellWords.quote(dir.dir.toString()));
            }
            if (s.flink() != null) {
                out.printf(Locale.ROOT, "  Flink %s: %d TaskManager(s), %d/%d slots free (Flink %s)%n",
                        s.flinkRest(), s.flink().taskManagers(), s.flink().slotsAvailable(), s.flink().slotsTotal(),
                        s.flink().flinkVersion());
                long started = s.members().stream().filter(m -> m.recorded() && m.role().startsWith("taskmanager")).count();
                if (started > 0 && (s.flink().taskManagers() < started || s.flink().slotsTotal() == 0)) {
                    // a TaskManager that runs but lost its JobManager (stopped, or too slow to answer its heartbeat)
                    out.printf(Locale.ROOT, "  %d of the %d TaskManager(s) 'cluster up' started are registered with "
                            + "Flink: no job can run on a missing one%n", s.flink().taskManagers(), started);
                    allUp = false;
                }
                allUp &= printJobs(out, URI.create(s.flinkRest()), s.flink().slotsTotal());
            } else {
                out.printf(Locale.ROOT, "  Flink %s: DOES NOT ANSWER (%s)%n", s.flinkRest(), s.flinkError());
            }
            if (!s.metricsPorts().isEmpty()) {
                out.printf(Locale.ROOT, "  metrics: %s%n", metricsUrls(s.metricsPorts()));
            }
            return allUp ? 0 : 1;
        }
    }

    /**
     * Each job Flink knows, with its state; a fitting job that is not running (it lost its TaskManager, or failed)
     * with where it can resume from. False when a job is halted that way.
     */
    private static boolean printJobs(PrintWriter out, URI flink, int slotsTotal) {
        FlinkRestClient rest = new FlinkRestClient(flink, Duration.ofSeconds(5)).withUnreachableHint("");
        List<FlinkRestClient.JobSummary> jobs;
        try {
            jobs = rest.jobs();
        } catch (FlinkRestClient.FlinkRestException e) {
            out.println("  jobs: unknown (" + e.getMessage() + ")");
            return false;
        }
        if (jobs.isEmpty()) {
            out.println("  jobs: none (tierroute submit starts the fitting job)");
        }
        boolean healthy = true;
        Set<String> current = JobStates.newestOfTheirName(jobs);
        for (FlinkRestClient.JobSummary j : jobs) {
            boolean superseded = !current.contains(j.id());
            out.println("  job " + j.id() + " " + ShellWords.quote(j.name()) + ": " + j.state()
                    + (superseded ? " (a later job of that name was submitted)" : ""));
            if (superseded || !JobStates.halted(j.state(), slotsTotal)) {
                continue;
            }
            healthy = false;
            out.println("    " + explain(rest, j));
            try {
                FlinkRestClient.JobConfig config = rest.jobConfig(j.id()).orElse(ResumeCommand.UNKNOWN);
                if (WriterIdentity.FITTING_JOB.equals(config.userConfig().get(WriterIdentity.ROLE))) {
                    List<String> arguments = ResumeCommand.jobArguments(rest, j.id(), config);
                    out.println(ResumePoint.of(rest, j, config.userConfig(), arguments, jobs)
                            .map(c -> "    to resume it from " + (c.source() == null ? "its last checkpoint" : c.source())
                                    + ": 'tierroute cluster down', 'cluster up' (the new cluster runs no job), then "
                                    + ResumeCommand.of(rest.base(), config.userConfig(), arguments, c.path()))
                            .orElse("    it has no completed checkpoint to resume from: submit it afresh"));
                }
            } catch (FlinkRestClient.FlinkRestException e) {
                out.println("    where it could resume from is unknown: " + e.getMessage());
            }
        }
        return healthy;
    }

    /**
     * {@link JobStates#explain} of a halted job, a failed one with why (its details and exception history); the state
     * alone when Flink does not answer those, as it then cannot say more.
     */
    private static String explain(FlinkRestClient rest, FlinkRestClient.JobSummary j) {
        if (!j.state().equals("FAILED") && !j.state().equals("FAILING")) {
            return JobStates.explain(j.state());
        }
        try {
            return JobStates.explain(j.state(), rest.job(j.id()), rest.rootCause(j.id()));
        } catch (FlinkRestClient.FlinkRestException e) {
            return JobStates.explain(j.state()) + " (why: unknown, " + e.getMessage() + ")";
        }
    }

    /** {@code --dir}, as a picocli mixin. */
    static final class DirOptionMixin {
        @Option(names = "--dir", defaultValue = "tierroute-cluster", paramLabel = "DIR",
                description = "State directory: pids, ports, configuration, logs and data (default ${DEFAULT-VALUE}).")
        Path dir;
    }

    /** The Prometheus endpoints, JobManager first (each JVM binds the first free port of the range). */
    static String metricsUrls(List<Integer> ports) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < ports.size(); i++) {
            b.append(i == 0 ? "" : ", ").append("http://127.0.0.1:").append(ports.get(i)).append("/metrics")
                    .append(i == 0 ? " (JobManager)" : " (a TaskManager)");
        }
        return b.toString();
    }

    private static double secs(Duration d) {
        return d.toMillis() / 1000.0;
    }
}
