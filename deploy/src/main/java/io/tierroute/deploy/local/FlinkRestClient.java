package io.tierroute.deploy.local;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * A client of the Flink REST API (the calls {@code flink run} and the web UI make), over
 * {@code java.net.http} and Jackson: cluster overview and who holds its task slots, jar upload and run, job state,
 * config (parameters, parallelism, checkpoint settings) and root cause, stop with a savepoint. Every failure is a
 * {@link FlinkRestException} that says which call failed and quotes Flink's own error text.
 *
 * <p>This class is the entry point and holds the types its answers come in; the calls are made by package-private
 * pieces sharing one {@link FlinkRestTransport} (the address, HTTP, timeouts, failed calls as exceptions): {@link FlinkClusterView} (overview,
 * TaskManagers), {@link FlinkJars} (upload, run, delete), {@link FlinkJobs} (list, state, await running, exceptions,
 * cancel), {@link FlinkConfigQueries} (job and checkpoint config, checkpoints) and {@link FlinkSavepoints} (stop with
 * a savepoint).
 */
public final class FlinkRestClient {

    /** The refusal of {@code given} as a Flink REST address, as the constructor refuses one: one line with an example. */
    public static String notAnAddress(String given) {
        return FlinkRestTransport.notAnAddress(given);
    }

    /** What a refused connection suggests by default: a command that shows whether the local cluster runs. */
    public static final String DEFAULT_UNREACHABLE_HINT = "is it running? (bin/tierroute cluster status)";

    private final FlinkRestTransport transport;
    private final FlinkClusterView cluster;
    private final FlinkJars jars;
    private final FlinkJobs jobs;
    private final FlinkConfigQueries configs;
    private final FlinkSavepoints savepoints;

    /** @param base e.g. {@code http://127.0.0.1:8081} */
    public FlinkRestClient(URI base, Duration timeout) {
        this(base, timeout, DEFAULT_UNREACHABLE_HINT);
    }

    private FlinkRestClient(URI base, Duration timeout, String unreachableHint) {
        this.transport = new FlinkRestTransport(base, timeout, unreachableHint);
        this.cluster = new FlinkClusterView(transport);
        this.jars = new FlinkJars(transport);
        this.jobs = new FlinkJobs(transport);
        this.configs = new FlinkConfigQueries(transport);
        this.savepoints = new FlinkSavepoints(transport, jobs);
    }

    /**
     * This client, suggesting {@code hint} (empty: nothing) when the connection is refused, instead of
     * {@value #DEFAULT_UNREACHABLE_HINT}: a caller that is that command, or knows better, says so.
     */
    public FlinkRestClient withUnreachableHint(String hint) {
        return new FlinkRestClient(transport.base(), transport.timeout(), hint);
    }

    /** {@code path} (from "/") under the base: see {@link FlinkRestTransport#at}. */
    URI at(String path) {
        return transport.at(path);
    }

    public URI base() {
        return transport.base();
    }

    /** A failed REST call: unreachable cluster, an HTTP error with Flink's messages, or an unexpected answer. */
    public static class FlinkRestException extends RuntimeException {
        private final boolean unanswered;
        private final int httpStatus;

        public FlinkRestException(String message, Throwable cause) {
            this(message, cause, false, -1);
        }

        /**
         * @param unanswered the request may have reached the cluster, and no answer came back ({@link #unanswered})
         * @param httpStatus the cluster's answer, or -1 when none came
         */
        public FlinkRestException(String message, Throwable cause, boolean unanswered, int httpStatus) {
            super(message, cause);
            this.unanswered = unanswered;
            this.httpStatus = httpStatus;
        }

        /**
         * Whether the request may have reached the cluster without an answer coming back: it timed out or the
         * connection dropped once made. Not when the connection was refused or never made (the request was not sent),
         * nor when the cluster answered, whatever it answered.
         */
        public boolean unanswered() {
            return unanswered;
        }

        /** The HTTP status the cluster answered with, or -1 when no answer came. */
        public int httpStatus() {
            return httpStatus;
        }
    }

    /**
     * What {@link #awaitRunning} throws for a job that ended or did not run in time: the answers its message was made
     * from, so that a caller can tell why (e.g. tasks waiting for a slot, a NoResourceAvailableException) without
     * parsing it.
     */
    public static final class JobNotRunningException extends FlinkRestException {
        private final transient JobDetails details;
        private final transient RootCause rootCause;

        public JobNotRunningException(String message, JobDetails details, Optional<RootCause> rootCause) {
            super(message, null);
            this.details = details;
            this.rootCause = rootCause.orElse(null);
        }

        /** The job's last answer of {@code GET /jobs/<id>}. */
        public JobDetails details() {
            return details;
        }

        /** The newest entry of its exception history; empty when it has none. */
        public Optional<RootCause> rootCause() {
            return Optional.ofNullable(rootCause);
        }
    }

    /** {@code GET /overview}: TaskManagers, slots, jobs. */
    public record Overview(int taskManagers, int slotsTotal, int slotsAvailable, int jobsRunning, String flinkVersion) {}

    public Overview overview() {
        return cluster.overview();
    }

    /**
     * Every registered TaskManager's slots and the jobs holding them ({@code GET /taskmanagers}, then
     * {@code GET /taskmanagers/<id>} each: only the details name the jobs).
     */
    public List<TaskManagerSlots> taskManagerSlots() {
        return cluster.taskManagerSlots();
    }

    /** The resource ids of the TaskManagers the JobManager counts as registered (a dead one stays until its heartbeat times out). */
    public List<String> taskManagerIds() {
        return cluster.taskManagerIds();
    }

    /**
     * One job of {@code GET /jobs/overview}. {@code startTime}: its {@code start-time}, ms since the epoch, which
     * Flink stamps when the job is submitted (its INITIALIZING timestamp) and keeps as it runs; -1 when not given.
     */
    public record JobSummary(String id, String name, String state, long startTime) {
        public JobSummary(String id, String name, String state) {
            this(id, name, state, -1);
        }
    }

    public List<JobSummary> jobs() {
        return jobs.jobs();
    }

    /**
     * {@code POST /jars/upload}; returns the id the cluster gave the jar.
     *
     * @throws IllegalStateException naming the jar when it is no file or cannot be read here
     */
    public String uploadJar(Path jar) {
        return jars.upload(jar);
    }

    /** What {@code POST /jars/<id>/run} starts. {@code savepointPath} null: a fresh start. */
    public record RunRequest(String entryClass, List<String> args, String savepointPath, boolean allowNonRestoredState,
                             Integer parallelism) {
        public RunRequest {
            args = List.copyOf(args);
        }
    }

    /** {@code POST /jars/<jarId>/run}: runs the jar's main in the JobManager; returns the job id. */
    public String run(String jarId, RunRequest r) {
        return jars.run(jarId, r);
    }

    /** {@code GET /jobs/<id>}: the job's state, e.g. RUNNING, FAILED. */
    public String jobState(String jobId) {
        return jobs.jobState(jobId);
    }

    /**
     * {@code GET /jobs/<id>}: the job's state, the state of each of its vertices, its tasks per execution state
     * (e.g. SCHEDULED: waiting for a task slot) and the slots it needs: per slot sharing group the largest
     * parallelism of its vertices, since the vertices of a group share slots.
     */
    public record JobDetails(String name, String state, List<String> vertexStates, Map<String, Integer> tasks,
                             int slotsNeeded) {
        public JobDetails {
            vertexStates = List.copyOf(vertexStates);
            tasks = Map.copyOf(tasks);
        }

        /** The job runs and every task of it has been deployed and runs. */
        public boolean fullyRunning() {
            return state.equals("RUNNING") && !vertexStates.isEmpty() && vertexStates.stream().allMatch("RUNNING"::equals);
        }

        /** Its tasks in execution state {@code s}. */
        public int tasks(String s) {
            return tasks.getOrDefault(s, 0);
        }

        /** All its tasks. */
        public int taskCount() {
            return tasks.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    public JobDetails job(String jobId) {
        return jobs.job(jobId);
    }

    /** {@code GET /jobs/<id>}: the names of the job's vertices (each a chain of operator names). */
    public List<String> vertexNames(String jobId) {
        return jobs.vertexNames(jobId);
    }

    /**
     * {@code GET /jobs/<id>/config}: the job's global job parameters ({@code execution-config.user-config});
     * an empty map when the job registered none, empty when the answer has no execution config at all. An
     * INITIALIZING job is answered from a placeholder with a default execution config: an empty map, whatever the
     * job registered (callers must not read that as "no parameters").
     */
    public Optional<Map<String, String>> userConfig(String jobId) {
        return jobConfig(jobId).map(JobConfig::userConfig);
    }

    /**
     * What {@code GET /jobs/<id>/config} shows of a job: its global job parameters ({@code user-config}) and the
     * parallelism its program set ({@code job-parallelism}: the default of its operators, the fitting job's
     * {@code --parallelism}; empty when not a positive number). Flink shows neither the program's arguments nor any
     * other setting of its own there. An INITIALIZING job's placeholder answers no parameters and parallelism 1, whatever
     * the job set: only an answer with the job's own parameters tells its parallelism.
     */
    public record JobConfig(Map<String, String> userConfig, OptionalInt parallelism) {
        public JobConfig {
            userConfig = Collections.unmodifiableMap(new LinkedHashMap<>(userConfig));
        }
    }

    /** {@code GET /jobs/<id>/config}; empty when the answer has no execution config. */
    public Optional<JobConfig> jobConfig(String jobId) {
        return configs.jobConfig(jobId);
    }

    /**
     * What {@code GET /jobs/<id>/checkpoints/config} shows of a job: its checkpoint interval ({@code interval}, ms;
     * -1 when not a positive number) and state backend ({@code state_backend}: the name of its class, e.g.
     * {@code HashMapStateBackend}, {@code EmbeddedRocksDBStateBackend}; "" when not given). Not where checkpoints go:
     * {@code checkpoint_storage} names the storage's class only.
     */
    public record CheckpointConfig(long intervalMs, String stateBackend) {}

    public CheckpointConfig checkpointConfig(String jobId) {
        return configs.checkpointConfig(jobId);
    }

    /**
     * Waits until the job and all its tasks run. Fails with Flink's root exception ({@link RootCause}) when the job ends
     * (FAILED, CANCELED, FINISHED, SUSPENDED) or is not running within {@code timeout}, saying how many of its tasks
     * wait for a task slot: a {@link JobNotRunningException} (any other {@link FlinkRestException} is a failed call).
     */
    public JobDetails awaitRunning(String jobId, Duration timeout) {
        return awaitRunning(jobId, timeout, d -> { });
    }

    /** As {@link #awaitRunning(String, Duration)}, handing {@code progress} each answer that is not yet fully running. */
    public JobDetails awaitRunning(String jobId, Duration timeout, Consumer<JobDetails> progress) {
        return jobs.awaitRunning(jobId, timeout, progress);
    }

    /** The newest entry of the job's exception history ({@code GET /jobs/<id>/exceptions}); empty when it has none. */
    public Optional<RootCause> rootCause(String jobId) {
        return jobs.rootCause(jobId);
    }

    /** The job's root exception ({@code GET /jobs/<id>/exceptions}), or null when it has none. */
    public String rootException(String jobId) {
        return jobs.rootException(jobId);
    }

    /** Where the job's newest completed checkpoint is ({@code GET /jobs/<id>/checkpoints}, {@code latest.completed}). */
    public Optional<String> latestCheckpointPath(String jobId) {
        return configs.latestCheckpointPath(jobId);
    }

    /**
     * Where the checkpoint or savepoint the job was last restored from is ({@code GET /jobs/<id>/checkpoints},
     * {@code latest.restored}): a job started with {@code --from-savepoint} that failed before completing a checkpoint
     * of its own can resume from it still.
     */
    public Optional<String> restoredCheckpointPath(String jobId) {
        return configs.restoredCheckpointPath(jobId);
    }

    /** Completed checkpoints of the job ({@code GET /jobs/<id>/checkpoints}). */
    public long completedCheckpoints(String jobId) {
        return configs.completedCheckpoints(jobId);
    }

    /**
     * {@code POST /jobs/<id>/stop}: takes a savepoint into {@code targetDirectory} (null: the cluster's
     * {@code execution.checkpointing.savepoint-dir}) and stops the job; waits for the savepoint and
     * returns its path.
     */
    public String stopWithSavepoint(String jobId, String targetDirectory, Duration wait) {
        return savepoints.stopWithSavepoint(jobId, targetDirectory, wait);
    }

    /** {@code PATCH /jobs/<id>?mode=cancel}. */
    public void cancel(String jobId) {
        jobs.cancel(jobId);
    }

    /** {@code DELETE /jars/<jarId>}: removes an uploaded jar from the cluster's upload directory. */
    public void deleteJar(String jarId) {
        jars.delete(jarId);
    }
}
