package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.KafkaBrokerProcess;
import io.tierroute.jobs.FittingJobMain;
import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.KafkaWiring;
import io.tierroute.schemas.Topics;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.CharacterCodingException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * {@code tierroute submit}: runs the fitting job's jar on a Flink session cluster through its REST API
 * ({@link FlinkRestClient}: upload, run, wait until every task runs), or stops a running job with a
 * savepoint ({@code --savepoint DIR}); {@code --from-savepoint PATH} starts the jar from one, which is
 * how the job is upgraded.
 */
@Command(name = "submit",
        mixinStandardHelpOptions = true,
        versionProvider = TierrouteCommand.Version.class,
        description = {"Submit the fitting job to a Flink session cluster, or stop it with a savepoint.",
                "Submit: uploads the job jar, runs " + SubmitCommand.ENTRY_CLASS + " with --bootstrap-servers and the "
                        + "JOB_ARGs (after --; 'submit --job-help' lists them), waits until every task runs and prints the job id.",
                "Upgrade: 'submit --savepoint DIR' stops the running job with a savepoint and prints its path; "
                        + "'submit --from-savepoint PATH ...' starts the (new) jar from it.",
                "Resume lines: the submit --from-savepoint line that 'submit --savepoint' prints ('cluster down' and "
                        + "'cluster status' print one for a checkpoint) carries after -- what Flink shows of the job: its "
                        + "name, group id, transactional-id prefix and --kafka-properties as the job publishes them (GET "
                        + "/jobs/ID/config; group and prefix when not the defaults), its --parallelism (job-parallelism "
                        + "there), and --state-backend and --checkpoint-interval (GET /jobs/ID/checkpoints/config) when "
                        + "not the defaults. Flink's REST API shows no other job argument, and what it does not show is "
                        + "left out: add the ones the job ran with.",
                "Single writer: " + Topics.PARAMS + " must have one, so submit refuses while a live job on the cluster "
                        + "has the same name (--job-name, default " + SingleWriterGuard.DEFAULT_JOB_NAME + "), or is a "
                        + "fitting job of any name writing that topic on the same Kafka (a broker in common). The job "
                        + "publishes its topic, bootstrap, name, group id and transactional-id prefix, nothing secret, as "
                        + "Flink job parameters (GET /jobs/ID/config); other applications' jobs of other names do not count.",
                "A live job it cannot judge is a refusal too, naming it: one whose settings cannot be read (INITIALIZING, "
                        + "shown without vertices, a REST error), a fitting job from before they were published (it has a "
                        + "'params sink'), or a fitting job writing that topic on a bootstrap with no broker in common "
                        + "(kafka-0 and kafka-1 may be one cluster); --ignore-job ID lets such a job pass once you know it "
                        + "does not write that topic on this Kafka.",
                "Kafka: before anything is uploaded, submit checks that --bootstrap answers (an Admin client, at most "
                        + "10 s, with the client settings of the job argument --kafka-properties FILE when there is one) "
                        + "and refuses naming it when it does not (--no-kafka-check skips the check, for a Kafka only the "
                        + "TaskManagers reach). That FILE is the JobManager's: when it, or a trust or key store it names, "
                        + "cannot be read here (a remote cluster, a resume line's path), the check is made without client "
                        + "settings and says so in a note; a FILE that sets what the job sets itself (bootstrap.servers, "
                        + "group.id, transactional.id, isolation.level, ...) is a usage error, as the job would refuse it.",
                "Job arguments are checked as the job checks them, before anything is asked or uploaded: a bad one is a "
                        + "usage error naming the job flag (exit 2).",
                "Task slots: the job needs as many as its --parallelism (its operators share slots; default "
                        + SubmitCommand.JOB_PARALLELISM + "). Before the upload, submit compares that with the cluster's "
                        + "GET /overview and refuses when the cluster has fewer slots in total (lower --parallelism or "
                        + "start more TaskManagers) or fewer free, naming the jobs that hold them (--wait-for-slots submits "
                        + "anyway and waits). A check that cannot read the cluster is a warning, and the submit goes on; "
                        + "--no-slot-check skips it, for a cluster that starts TaskManagers on demand (Flink's native "
                        + "Kubernetes, a YARN session: no slots until a job asks). A job that does not run within --wait, "
                        + "or fails, is reported with its root cause from Flink (GET /jobs/ID/exceptions).",
                "Ctrl-C during the upload or the run request deletes the uploaded jar from the cluster and says whether "
                        + "a job may have started; during the check for racing submits, it names the job, which runs on "
                        + "unjudged, and what to check and cancel.",
                "Racing submits: that check cannot be atomic, so once its job is listed submit looks again and, if a job "
                        + "it would refuse started before its own (Flink's start-time; on a tie, the smaller job id), "
                        + "cancels its own job and fails naming that job: of submits that race, the first job stays. A job "
                        + "started before it whose settings cannot be read yet, or a REST error, is waited out up to --wait, then "
                        + "refused (its own job cancelled; if the cancel fails, it says so naming the job). It keeps its "
                        + "job only once a second listing, a poll later, agrees.",
                ""},
        footer = {"", "Example: tierroute submit --flink http://127.0.0.1:8081 --bootstrap 127.0.0.1:9092 -- --parallelism 1"})
final class SubmitCommand implements Callable<Integer> {

    static final String ENTRY_CLASS = "io.tierroute.jobs.FittingJobMain";
    static final String JOB_JAR_GLOB = "tierroute-streaming-jobs-*-job.jar";

    @Option(names = "--flink", required = true, paramLabel = "URL",
            description = "Flink REST address, http:// or https://, e.g. http://127.0.0.1:8081.")
    String flink;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers for the job (required to submit).")
    String bootstrap;

    /** How long the check that --bootstrap answers may take: an Admin client's describeCluster. */
    static final Duration KAFKA_CHECK_BUDGET = Duration.ofSeconds(10);

    @Option(names = "--no-kafka-check",
            description = "Submit without first checking that --bootstrap answers from here (for a Kafka that only the "
                    + "Flink cluster can reach or resolve; the check uses the job argument --kafka-properties FILE when it "
                    + "can read it here, and no client settings, with a note, when it cannot).")
    boolean noKafkaCheck;

    @Option(names = "--jar", paramLabel = "PATH",
            description = "The job jar (default: streaming-jobs/target/" + JOB_JAR_GLOB + " of this checkout). The job "
                    + "arguments are checked against this build's job flags, not the jar's: for a jar of another build "
                    + "that takes other flags the check can be wrong, and no flag skips it.")
    Path jar;

    @Option(names = "--from-savepoint", paramLabel = "PATH", description = "Start the job from this savepoint.")
    String fromSavepoint;

    @Option(names = "--allow-non-restored-state",
            description = "With --from-savepoint: accept savepoint state that no operator of the new job claims.")
    boolean allowNonRestoredState;

    @Option(names = "--savepoint", paramLabel = "DIR",
            description = "Instead of submitting: stop the running job with a savepoint into DIR and print its path "
                    + "and the submit line that restarts the job from it (see Resume lines above).")
    String savepoint;

    @Option(names = "--job-id", paramLabel = "ID", description = "With --savepoint: the job to stop (default: the only running job).")
    String jobId;

    @Option(names = "--wait", defaultValue = "120s", paramLabel = "D", converter = DemoCommand.DurationConverter.class,
            description = "How long to wait for the job to run or the savepoint to complete (default ${DEFAULT-VALUE}). "
                    + "It also bounds the check of racing submits after the submission and the wait for a cancel, each "
                    + "on its own, so a submit can take up to about 3 times D.")
    Duration wait;

    @Option(names = "--ignore-job", paramLabel = "ID",
            description = "A live job whose settings cannot be read that you know does not write the params topic on this "
                    + "Kafka: the single-writer check lets it pass (repeatable). A job of the same name, or one seen "
                    + "writing the topic there, is refused regardless.")
    List<String> ignoreJobs = new ArrayList<>();

    @Option(names = "--wait-for-slots",
            description = "When other jobs hold the free task slots the job needs (the cluster has enough in total): "
                    + "submit anyway and wait up to --wait for them, printing progress every 5 s, instead of refusing. "
                    + "Flink retries the job's slot requests as its restart strategy allows.")
    boolean waitForSlots;

    @Option(names = "--no-slot-check",
            description = "Submit without first comparing the task slots the job needs with the cluster's (for a "
                    + "cluster that starts TaskManagers on demand, e.g. Flink's native Kubernetes or a YARN session, "
                    + "which shows no free slots until a job asks for them).")
    boolean noSlotCheck;

    @Parameters(paramLabel = "JOB_ARG", arity = "0..*", description = "Arguments of the job (after --), e.g. -- --parallelism 1.")
    List<String> jobArgs = new ArrayList<>();

    @Option(names = "--job-help", help = true,
            description = "List the job's own flags (the JOB_ARGs after --) with their defaults, then exit.")
    boolean jobHelp;

    CommandLine.Model.CommandSpec spec;

    /** Where the description shows the job's default --parallelism (an annotation takes constants only). */
    static final String JOB_PARALLELISM = "<the job's default --parallelism>";

    /** picocli's model of this command, with the job's default --parallelism, from JobSettings, in its description. */
    @CommandLine.Spec
    void spec(CommandLine.Model.CommandSpec s) {
        String parallelism = Integer.toString(JobSettings.builder().build().parallelism());
        s.usageMessage().description(Stream.of(s.usageMessage().description())
                .map(line -> line.replace(JOB_PARALLELISM, parallelism)).toArray(String[]::new));
        spec = s;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (jobHelp) {
            // submit passes the job its Kafka from --bootstrap and refuses the flag among the job's arguments.
            out.print(JobSettings.usage().replaceFirst("(?m)^  --bootstrap-servers .*$",
                    "  --bootstrap-servers          set by submit's --bootstrap (not a job argument here)"));
            out.flush();
            return 0;
        }
        if (wait.isNegative() || wait.isZero()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--wait must be > 0, got "
                    + spec.findOption("--wait").originalStringValues().get(0));
        }
        for (String[] path : new String[][] {{"--savepoint", savepoint}, {"--from-savepoint", fromSavepoint}}) {
            if (path[1] != null && path[1].isBlank()) { // else the caller's working directory would be sent
                throw new CommandLine.ParameterException(spec.commandLine(), path[0] + " needs a path, got '"
                        + path[1] + "'");
            }
        }
        FlinkRestClient rest;
        try {
            rest = new FlinkRestClient(flinkAddress(flink), Duration.ofSeconds(15));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--flink: " + e.getMessage());
        }
        try {
            return savepoint != null ? stopWithSavepoint(rest, out) : submit(rest, out);
        } catch (FlinkRestClient.FlinkRestException | IllegalStateException e) {
            // The job's own flag errors come back through Flink; its --help cannot be reached that way.
            err.println("tierroute submit: " + String.valueOf(e.getMessage()).replace(FittingJobMain.HELP_HINT,
                    JOB_HELP_HINT) + SubmitAdvice.hint(e.getMessage()));
            return 1;
        }
    }

    /** {@code given} as a URI; one that is none (127.0.0.1:8081) is refused as the client refuses other schemes. */
    private static URI flinkAddress(String given) {
        try {
            return new URI(given);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException(FlinkRestClient.notAnAddress(given));
        }
    }

    private int stopWithSavepoint(FlinkRestClient rest, PrintWriter out) {
        // A submit's flags would be ignored: said, naming the flag, rather than silently dropped.
        CommandLine.ParseResult given = spec.commandLine().getParseResult();
        for (String submitOnly : List.of("--bootstrap", "--no-kafka-check", "--jar", "--from-savepoint",
                "--allow-non-restored-state", "--ignore-job", "--wait-for-slots", "--no-slot-check")) {
            if (given.hasMatchedOption(submitOnly)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--savepoint stops a job; it takes no "
                        + submitOnly + " (a flag of a submit)");
            }
        }
        if (!jobArgs.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--savepoint stops a job; it takes no job "
                    + "arguments (got " + String.join(" ", jobArgs) + ")");
        }
        // A savepoint is written into a directory; Flink's answer to a file is a bare FileAlreadyExistsException.
        if (!isUri(savepoint) && Files.exists(Path.of(savepoint)) && !Files.isDirectory(Path.of(savepoint))) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--savepoint " + savepoint
                    + " is an existing file: give a directory to write the savepoint into");
        }
        // Flink answers a malformed id with an HTTP 400 that names no option.
        String id = jobId != null ? jobId(jobId, "--job-id") : onlyRunningJob(rest);
        // Read before the stop (a stopped job's configuration may be gone), for the restart hint only: a failure to
        // read it must not keep the job from stopping, nor hide why the stop failed.
        FlinkRestClient.JobConfig config;
        try {
            config = rest.jobConfig(id).orElse(ResumeCommand.UNKNOWN);
        } catch (FlinkRestClient.FlinkRestException e) {
            config = ResumeCommand.UNKNOWN;
        }
        List<String> resumeArguments = ResumeCommand.jobArguments(rest, id, config);
        String location = rest.stopWithSavepoint(id, onTheClusterSide(savepoint), wait);
        out.println("job " + id + " stopped with a savepoint");
        out.println("savepoint: " + location);
        out.println("restart it with: " + ResumeCommand.of(rest.base(), config.userConfig(), resumeArguments, location));
        out.println("  and every other job argument it ran with (gate settings, intervals): the savepoint keeps the job's "
                + "state, not its flags");
        return 0;
    }

    /** A job id (32 hex digits) in lower case, as Flink lists jobs; anything else is a usage error naming {@code option}. */
    private String jobId(String id, String option) {
        if (!id.matches("[0-9a-fA-F]{32}")) {
            throw new CommandLine.ParameterException(spec.commandLine(), option + " must be a Flink job id, 32 hex "
                    + "digits as Flink's web UI and REST API show it (got '" + id + "')");
        }
        return id.toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * A savepoint path as the JobManager should read it: a relative path without a scheme would be resolved against the
     * JobManager's working directory, not the caller's, so it is made absolute here; a URI (file:, s3:, hdfs:) is kept.
     */
    static String onTheClusterSide(String path) {
        if (path == null || isUri(path)) {
            return path;
        }
        return Path.of(path).toAbsolutePath().normalize().toString();
    }

    /** A path with a scheme (file:, s3:, hdfs:): for the JobManager to resolve. */
    private static boolean isUri(String path) {
        return path.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*");
    }

    private static String onlyRunningJob(FlinkRestClient rest) {
        List<FlinkRestClient.JobSummary> running = rest.jobs().stream()
                .filter(j -> j.state().equals("RUNNING")).toList();
        if (running.size() != 1) {
            throw new IllegalStateException(running.isEmpty() ? "no job is running on " + rest.base()
                    : running.size() + " jobs are running on " + rest.base() + " (" + running.stream()
                    .map(j -> j.id() + " " + j.name()).toList() + "); name one with --job-id");
        }
        return running.get(0).id();
    }

    private int submit(FlinkRestClient rest, PrintWriter out) {
        if (jobId != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--job-id names the job --savepoint stops; "
                    + "a submit starts a new job");
        }
        if (bootstrap == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--bootstrap HOST:PORT is required to submit the job");
        }
        BootstrapAddress.require(bootstrap, "--bootstrap", spec.commandLine());
        if (jobArgs.stream().anyMatch(a -> a.startsWith("--bootstrap-servers"))) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "give the Kafka address with --bootstrap, not as a job argument --bootstrap-servers");
        }
        if (allowNonRestoredState && fromSavepoint == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--allow-non-restored-state needs --from-savepoint");
        }
        ignoreJobs = ignoreJobs.stream().map(id -> jobId(id, "--ignore-job")).toList(); // else it never matches a job
        // The job's own checks, as its main runs them with what submit gives it: a bad job flag came back through Flink
        // only after the 29 MB upload.
        JobSettings settings = jobSettings();
        Path job = jar != null ? jar : defaultJar();
        if (!Files.isRegularFile(job)) {
            throw new IllegalStateException("the job jar " + job + (Files.isDirectory(job) ? " is a directory, not a jar"
                    : " does not exist") + "; build it with 'mvn -pl streaming-jobs -am package -DskipTests' or pass "
                    + "--jar PATH");
        }
        // Read now, not at the upload (after the Kafka and cluster checks), where it was a defect's stack trace.
        String unreadable = IoErrors.unreadable(job);
        if (unreadable != null) {
            if (jar != null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--jar " + job + ": cannot read it ("
                        + unreadable + ")");
            }
            throw new IllegalStateException("the job jar " + job + " cannot be read (" + unreadable + "); pass a "
                    + "readable one with --jar PATH");
        }
        // Else the job's own clients would wait out their metadata timeout (37 s), and Flink answer an HTTP 400 naming no
        // address. Before the single-writer check, which asks Flink: a Kafka that is down is the first thing to fix.
        // The job's --kafka-properties (its SASL / TLS) read here when it can be: one the job's main would refuse is
        // refused before the upload, with or without the check.
        Properties client = kafkaCheckClient(settings, noKafkaCheck ? null : spec.commandLine().getErr());
        if (!noKafkaCheck) {
            KafkaAnswers.refusal(bootstrap, client, KAFKA_CHECK_BUDGET).ifPresent(why -> {
                throw new IllegalStateException(why + "; --no-kafka-check skips this check");
            });
            SubmitAdvice.transactionTimeoutRefusal(jobArgs, KafkaBrokerProcess.maxTransactionTimeoutMs(bootstrap, client,
                            KAFKA_CHECK_BUDGET))
                    .ifPresent(why -> {
                        throw new IllegalStateException(why + "; --no-kafka-check skips this check");
                    });
        }
        // The job has no topic flag: it always writes Topics.PARAMS (KafkaWiring.paramsSink).
        var candidate = new SingleWriterGuard.Candidate(SingleWriterGuard.jobName(jobArgs), Topics.PARAMS, bootstrap);
        List<FlinkRestClient.JobSummary> listed = rest.jobs(); // also what a run request without answer is told from
        SingleWriterGuard.refusal(LiveJobs.read(rest, listed), candidate, Set.copyOf(ignoreJobs), rest.base().toString())
                .ifPresent(why -> {
                    throw new IllegalStateException(why);
                });
        // After the single-writer check: a second writer is refused whatever the slots. Flink would accept a job short of
        // slots and fail it later with an exception that names neither the slots nor who holds them.
        // A failed read is a warning, not a refusal; --no-slot-check skips it (a cluster starting TaskManagers on demand).
        int slots = settings.parallelism();
        if (!noSlotCheck) {
            SubmitSlots.readOrWarn(rest, slots, spec.commandLine().getErr()).ifPresent(s -> {
                if (s.total() || !waitForSlots) {
                    throw new IllegalStateException(s.refusal());
                }
                out.println("tierroute submit: " + s.text() + "; submitting anyway (--wait-for-slots), waiting up to "
                        + wait.toSeconds() + " s for them");
                out.flush();
            });
        }
        long begin = System.nanoTime();
        String id;
        Set<String> listedBefore = UnansweredRun.ids(listed);
        try (SubmitOnCtrlC onCtrlC = new SubmitOnCtrlC(rest, spec.commandLine().getErr())) {
            String jarId = rest.uploadJar(job);
            onCtrlC.uploaded(jarId);
            List<String> args = new ArrayList<>(List.of("--bootstrap-servers", bootstrap));
            args.addAll(jobArgs);
            try {
                onCtrlC.runRequested();
                try {
                    id = rest.run(jarId, new FlinkRestClient.RunRequest(ENTRY_CLASS, args,
                            onTheClusterSide(fromSavepoint), allowNonRestoredState, null));
                } catch (FlinkRestClient.FlinkRestException e) {
                    if (!e.unanswered()) {
                        throw e;
                    }
                    id = UnansweredRun.startedJob(rest, candidate.name(), listedBefore, e, UnansweredRun.LISTING_WAIT);
                    out.println("tierroute submit: the run request got no answer (" + e.getMessage() + "), but the "
                            + "cluster lists job " + id + " (" + candidate.name() + ") started since: carrying on with it");
                }
                onCtrlC.started(id);
            } finally {
                // The cluster has the job's graph and blobs now; the 29 MB upload would otherwise pile up in /jars.
                String failed = onCtrlC.deleteJar(rest);
                if (failed != null) {
                    spec.commandLine().getErr().println("tierroute submit: warning: " + failed);
                }
            }
            out.println("job " + id + " submitted" + (fromSavepoint != null ? " from savepoint " + fromSavepoint : ""));
            out.flush();
            // The check above is not atomic: a submit racing this one may have passed it too. The job started first
            // stays. Inside the hook: a Ctrl-C while it looks (up to --wait) leaves a job perhaps beside another writer.
            SubmitRaceCheck.keepOrCancel(rest, id, candidate, Set.copyOf(ignoreJobs), wait);
        }
        FlinkRestClient.JobDetails d;
        try {
            d = rest.awaitRunning(id, wait, waitForSlots ? progress(rest, out) : x -> { });
        } catch (FlinkRestClient.FlinkRestException e) {
            throw new FlinkRestClient.FlinkRestException(e.getMessage() + SubmitSlots.afterFailure(rest, id, slots, e)
                    + SubmitAdvice.leftOnTheCluster(rest, id), e);
        }
        out.printf(Locale.ROOT, "job %s (%s): %s, %d tasks running, %.1f s after the upload began%n", id, d.name(), d.state(),
                d.vertexStates().size(), (System.nanoTime() - begin) / 1e9);
        out.println("web UI: " + rest.base() + "/#/job/running/" + id + "/overview");
        return 0;
    }

    /**
     * The job's settings from {@code --bootstrap-servers BOOTSTRAP JOB_ARG...}, what its main is run with; a job
     * argument it refuses is a usage error naming the job flag, as the demo's are.
     */
    private JobSettings jobSettings() {
        List<String> args = new ArrayList<>(List.of("--bootstrap-servers", bootstrap));
        args.addAll(jobArgs);
        try {
            return JobSettings.parse(args.toArray(String[]::new));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "job argument: " + e.getMessage()
                    + " " + JOB_HELP_HINT);
        }
    }

    /**
     * The client settings of the check that --bootstrap answers: the job's own, its job argument
     * {@code --kafka-properties FILE} (SASL, TLS) as its main reads it ({@link KafkaWiring#clientProperties}), so that a
     * secured broker the job would get into is not refused for a plain client's failure; none when the job has none. A
     * FILE that sets what the job sets itself is a usage error naming the job argument: the job's main refused it only
     * after the upload. The job reads FILE where its main runs, the JobManager: when it, or a trust or key store it
     * names, cannot be read here (a remote cluster; the path of a resume line, relative to another directory), the
     * check is made without client settings, as before it used them, and a note on {@code err} (null: no check, no
     * note) says so. A FIFO or device is not read here (it would block, or take what the job would read).
     */
    private Properties kafkaCheckClient(JobSettings settings, PrintWriter err) {
        String file = settings.kafkaProperties();
        if (file == null) {
            return new Properties();
        }
        String cannot = unreadableHere(file);
        if (cannot == null) {
            Properties p;
            try {
                p = KafkaWiring.clientProperties(settings);
            } catch (IllegalArgumentException e) { // readable here: what the job would refuse it for
                Throwable c = e.getCause();
                String why = c == null ? e.getMessage() : "--kafka-properties " + file + " is no properties file ("
                        + (c instanceof CharacterCodingException ? "not valid UTF-8 text" : c instanceof IOException io
                        ? IoErrors.describe(io) : c.getMessage()) + ")";
                throw new CommandLine.ParameterException(spec.commandLine(), "job argument: " + why);
            }
            Optional<String> store = KafkaClientConfig.unreadableLocation(p);
            if (store.isEmpty()) {
                return p;
            }
            cannot = "names a store that cannot be read here: " + store.get();
        }
        if (err != null) {
            err.println("tierroute submit: note: the job argument --kafka-properties " + file + " " + cannot + "; the "
                    + "check that --bootstrap answers uses no client settings (the file is the JobManager's)");
            err.flush();
        }
        return new Properties();
    }

    /** Why the job's --kafka-properties {@code file} cannot be read here, e.g. {@code cannot be read here (WHY)}; null when it can. */
    private static String unreadableHere(String file) {
        String why = IoErrors.unreadableNamed(file);
        if (why == null && !Files.isRegularFile(Path.of(file))) {
            why = "not a regular file"; // a FIFO: reading it here would block, or take what the job would read
        }
        return why == null ? null : "cannot be read here (" + why + ")";
    }

    /** Where the job's flags are listed; said in place of the job's own "run with --help", which Flink cannot run. */
    static final String JOB_HELP_HINT = "('tierroute submit --job-help' lists every job flag)";

    /** With --wait-for-slots: a line every 5 s while the job waits, so a long wait is seen to be one. */
    private static Consumer<FlinkRestClient.JobDetails> progress(FlinkRestClient rest, PrintWriter out) {
        long begin = System.nanoTime();
        long[] next = {begin + PROGRESS_EVERY.toNanos()};
        return d -> {
            if (System.nanoTime() < next[0]) {
                return;
            }
            next[0] += PROGRESS_EVERY.toNanos();
            try {
                out.println(SubmitSlots.progress((System.nanoTime() - begin) / 1_000_000_000L, d, rest.overview()));
                out.flush();
            } catch (FlinkRestClient.FlinkRestException e) {
                // a missed progress line is no failure: the wait goes on and reports what it ends with
            }
        };
    }

    static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);

    /** streaming-jobs/target/{@value #JOB_JAR_GLOB}, from the working directory or above the running jar. */
    static Path defaultJar() {
        List<Path> roots = new ArrayList<>(List.of(Path.of("").toAbsolutePath()));
        try {
            Path self = Path.of(SubmitCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            for (Path d = self.getParent(); d != null; d = d.getParent()) {
                roots.add(d);
            }
        } catch (Exception ignored) {
            // no code source: the working directory only
        }
        for (Path root : roots) {
            Path target = root.resolve("streaming-jobs").resolve("target");
            if (Files.isDirectory(target)) {
                var found = jobJarIn(target);
                if (found.isPresent()) {
                    return found.get();
                }
            }
        }
        return Path.of("streaming-jobs", "target", "tierroute-streaming-jobs-<version>-job.jar");
    }

    /**
     * The one job jar in {@code target}, if any.
     *
     * @throws IllegalStateException naming them when there are several (a version bump without {@code mvn clean}
     *                               leaves the old one beside the new: taking either by chance could "upgrade" to it)
     */
    static Optional<Path> jobJarIn(Path target) {
        List<Path> found;
        try (Stream<Path> s = Files.list(target)) {
            found = s.filter(p -> p.getFileName().toString().matches("tierroute-streaming-jobs-.*-job\\.jar")).sorted()
                    .toList();
        } catch (IOException e) {
            return Optional.empty();
        }
        if (found.size() > 1) {
            throw new IllegalStateException("several job jars in " + target + ": " + String.join(", ",
                    found.stream().map(p -> p.getFileName().toString()).toList()) + "; pass the one to submit with "
                    + "--jar PATH, or remove the stale ones (mvn clean)");
        }
        return found.stream().findFirst();
    }
}
