package io.tierroute.deploy.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * A client of the Flink REST API (the calls {@code flink run} and the web UI make), over
 * {@code java.net.http} and Jackson: cluster overview and who holds its task slots, jar upload and run, job state,
 * config (parameters, parallelism, checkpoint settings) and root cause, stop with a savepoint. Every failure is a
 * {@link FlinkRestException} that says which call failed and quotes Flink's own error text.
 */
public final class FlinkRestClient {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a refused connection suggests by default: a command that shows whether the local cluster runs. */
    public static final String DEFAULT_UNREACHABLE_HINT = "is it running? (bin/tierroute cluster status)";

    private final URI base;
    private final HttpClient http;
    private final Duration timeout;
    private final String unreachableHint;

    /** @param base e.g. {@code http://127.0.0.1:8081} */
    public FlinkRestClient(URI base, Duration timeout) {
        this(base, timeout, DEFAULT_UNREACHABLE_HINT);
    }

    private FlinkRestClient(URI base, Duration timeout, String unreachableHint) {
        if (base == null || base.getScheme() == null || !base.getScheme().startsWith("http") || base.getHost() == null) {
            throw new IllegalArgumentException("the Flink REST address must look like http://HOST:PORT, got " + base);
        }
        if (base.getPort() == 0 || base.getPort() > 65_535) { // -1: none given, the scheme's
            throw new IllegalArgumentException("the Flink REST address's port must be in [1, 65535], got " + base.getPort());
        }
        if (base.getRawQuery() != null || base.getRawFragment() != null) {
            throw new IllegalArgumentException("the Flink REST address must be http://HOST:PORT[/PATH], without a query or "
                    + "fragment, got " + base);
        }
        String s = base.toString();
        this.base = URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
        this.unreachableHint = unreachableHint;
    }

    /**
     * This client, suggesting {@code hint} (empty: nothing) when the connection is refused, instead of
     * {@value #DEFAULT_UNREACHABLE_HINT}: a caller that is that command, or knows better, says so.
     */
    public FlinkRestClient withUnreachableHint(String hint) {
        return new FlinkRestClient(base, timeout, hint);
    }

    /** "cannot reach the Flink cluster at URL (WHAT): connection refused[; HINT]". */
    static String refusedMessage(URI base, String what, String hint) {
        return "cannot reach the Flink cluster at " + base + " (" + what + "): connection refused"
                + (hint.isEmpty() ? "" : "; " + hint);
    }

    /**
     * {@code path} (from "/") under the base, keeping the base's own path: a Flink behind a proxy at
     * {@code http://gw/flink} is asked {@code http://gw/flink/jobs}, where {@code URI.resolve} would ask {@code http://gw/jobs}.
     */
    URI at(String path) {
        return URI.create(base + path);
    }

    public URI base() {
        return base;
    }

    /** A failed REST call: unreachable cluster, an HTTP error with Flink's messages, or an unexpected answer. */
    public static class FlinkRestException extends RuntimeException {
        public FlinkRestException(String message, Throwable cause) {
            super(message, cause);
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
        JsonNode n = get("/overview");
        return new Overview(n.path("taskmanagers").asInt(), n.path("slots-total").asInt(),
                n.path("slots-available").asInt(), n.path("jobs-running").asInt(), n.path("flink-version").asText());
    }

    /**
     * Every registered TaskManager's slots and the jobs holding them ({@code GET /taskmanagers}, then
     * {@code GET /taskmanagers/<id>} each: only the details name the jobs).
     */
    public List<TaskManagerSlots> taskManagerSlots() {
        List<TaskManagerSlots> out = new ArrayList<>();
        for (String id : taskManagerIds()) {
            out.add(TaskManagerSlots.of(get("/taskmanagers/" + id)));
        }
        return out;
    }

    /** The resource ids of the TaskManagers the JobManager counts as registered (a dead one stays until its heartbeat times out). */
    public List<String> taskManagerIds() {
        List<String> ids = new java.util.ArrayList<>();
        for (JsonNode tm : get("/taskmanagers").path("taskmanagers")) {
            ids.add(tm.path("id").asText());
        }
        return ids;
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
        List<JobSummary> out = new ArrayList<>();
        for (JsonNode j : get("/jobs/overview").path("jobs")) {
            out.add(jobSummary(j));
        }
        return out;
    }

    static JobSummary jobSummary(JsonNode j) {
        return new JobSummary(j.path("jid").asText(), j.path("name").asText(), j.path("state").asText(),
                j.path("start-time").asLong(-1));
    }

    /** {@code POST /jars/upload}; returns the id the cluster gave the jar. */
    public String uploadJar(Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("the job jar " + jar + " does not exist or is not a file");
        }
        String boundary = "tierroute-" + UUID.randomUUID();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        try {
            body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                    + jar.getFileName() + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            body.write(Files.readAllBytes(jar));
            body.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException("could not read the job jar " + jar + ": " + e.getMessage(), e);
        }
        HttpRequest req = HttpRequest.newBuilder(at("/jars/upload")).timeout(timeout.plusSeconds(60))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build();
        JsonNode n = send(req, "upload " + jar.getFileName());
        String file = n.path("filename").asText();
        if (!n.path("status").asText().equals("success") || file.isEmpty()) {
            throw new FlinkRestException("uploading " + jar + " to " + base + " failed: " + n, null);
        }
        return Path.of(file).getFileName().toString();
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
        ObjectNode body = JSON.createObjectNode();
        if (r.entryClass() != null) {
            body.put("entryClass", r.entryClass());
        }
        body.set("programArgsList", JSON.valueToTree(r.args()));
        if (r.savepointPath() != null) {
            body.put("savepointPath", r.savepointPath());
            body.put("allowNonRestoredState", r.allowNonRestoredState());
        }
        if (r.parallelism() != null) {
            body.put("parallelism", r.parallelism());
        }
        JsonNode n = post("/jars/" + jarId + "/run", body, "run the job jar");
        String id = n.path("jobid").asText();
        if (id.isEmpty()) {
            throw new FlinkRestException("running the job jar gave no job id: " + n, null);
        }
        return id;
    }

    /** {@code GET /jobs/<id>}: the job's state, e.g. RUNNING, FAILED. */
    public String jobState(String jobId) {
        return get("/jobs/" + jobId).path("state").asText();
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
        return jobDetails(get("/jobs/" + jobId));
    }

    static JobDetails jobDetails(JsonNode n) {
        List<String> vertices = new ArrayList<>();
        Map<String, Integer> tasks = new LinkedHashMap<>();
        Map<String, Integer> groupParallelism = new LinkedHashMap<>();
        for (JsonNode v : n.path("vertices")) {
            vertices.add(v.path("status").asText());
            v.path("tasks").fields().forEachRemaining(e -> tasks.merge(e.getKey(), e.getValue().asInt(), Integer::sum));
            groupParallelism.merge(v.path("slotSharingGroupId").asText(v.path("id").asText()),
                    v.path("parallelism").asInt(), Math::max);
        }
        return new JobDetails(n.path("name").asText(), n.path("state").asText(), vertices, tasks,
                groupParallelism.values().stream().mapToInt(Integer::intValue).sum());
    }

    /** {@code GET /jobs/<id>}: the names of the job's vertices (each a chain of operator names). */
    public List<String> vertexNames(String jobId) {
        List<String> names = new ArrayList<>();
        for (JsonNode v : get("/jobs/" + jobId).path("vertices")) {
            names.add(v.path("name").asText());
        }
        return names;
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

    static Optional<Map<String, String>> userConfig(JsonNode jobConfig) {
        return jobConfig(jobConfig).map(JobConfig::userConfig);
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
        return jobConfig(get("/jobs/" + jobId + "/config"));
    }

    static Optional<JobConfig> jobConfig(JsonNode jobConfig) {
        JsonNode executionConfig = jobConfig.path("execution-config");
        if (!executionConfig.isObject()) {
            return Optional.empty();
        }
        Map<String, String> params = new LinkedHashMap<>();
        executionConfig.path("user-config").fields().forEachRemaining(e -> params.put(e.getKey(), e.getValue().asText()));
        JsonNode p = executionConfig.path("job-parallelism");
        OptionalInt parallelism = p.isIntegralNumber() && p.asInt() >= 1 ? OptionalInt.of(p.asInt()) : OptionalInt.empty();
        return Optional.of(new JobConfig(params, parallelism));
    }

    /**
     * What {@code GET /jobs/<id>/checkpoints/config} shows of a job: its checkpoint interval ({@code interval}, ms;
     * -1 when not a positive number) and state backend ({@code state_backend}: the name of its class, e.g.
     * {@code HashMapStateBackend}, {@code EmbeddedRocksDBStateBackend}; "" when not given). Not where checkpoints go:
     * {@code checkpoint_storage} names the storage's class only.
     */
    public record CheckpointConfig(long intervalMs, String stateBackend) {}

    public CheckpointConfig checkpointConfig(String jobId) {
        return checkpointConfig(get("/jobs/" + jobId + "/checkpoints/config"));
    }

    static CheckpointConfig checkpointConfig(JsonNode n) {
        JsonNode interval = n.path("interval");
        return new CheckpointConfig(interval.isIntegralNumber() && interval.asLong() > 0 ? interval.asLong() : -1,
                n.path("state_backend").asText(""));
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
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            JobDetails d = job(jobId);
            if (d.fullyRunning()) {
                return d;
            }
            boolean ended = List.of("FAILED", "CANCELED", "FINISHED", "SUSPENDED").contains(d.state());
            if (ended || System.nanoTime() > deadline) {
                Optional<RootCause> cause = rootCause(jobId);
                throw new JobNotRunningException(notRunning(jobId, d, ended ? null : timeout, cause), d, cause);
            }
            progress.accept(d);
            sleep(200);
        }
    }

    /**
     * "job ID (NAME) is STATE[, not fully running after N s (R of T tasks running, W waiting for a task slot)]; root
     * cause: X: message": {@code waited} null for a job that ended.
     */
    static String notRunning(String jobId, JobDetails d, Duration waited, Optional<RootCause> cause) {
        String tasks = "";
        if (waited != null) {
            int waiting = d.tasks("SCHEDULED");
            tasks = ", not fully running after " + waited.toSeconds() + " s" + (d.taskCount() == 0 ? "" : " ("
                    + d.tasks("RUNNING") + " of " + d.taskCount() + " tasks running"
                    + (waiting == 0 ? "" : ", " + waiting + " waiting for a task slot") + ")");
        }
        return "job " + jobId + " (" + d.name() + ") is " + d.state() + tasks + "; "
                + cause.map(c -> "root cause: " + c).orElse("Flink has recorded no exception for it");
    }

    /** The newest entry of the job's exception history ({@code GET /jobs/<id>/exceptions}); empty when it has none. */
    public Optional<RootCause> rootCause(String jobId) {
        return RootCause.of(get("/jobs/" + jobId + "/exceptions"));
    }

    /** The job's root exception ({@code GET /jobs/<id>/exceptions}), or null when it has none. */
    public String rootException(String jobId) {
        JsonNode n = get("/jobs/" + jobId + "/exceptions");
        JsonNode entries = n.path("exceptionHistory").path("entries");
        if (entries.isArray() && entries.size() > 0) {
            return withoutStackFrames(entries.get(0).path("stacktrace").asText(entries.get(0).path("exceptionName").asText()));
        }
        String root = n.path("root-exception").asText("");
        return root.isEmpty() ? null : root;
    }

    /** Where the job's newest completed checkpoint is ({@code GET /jobs/<id>/checkpoints}, {@code latest.completed}). */
    public Optional<String> latestCheckpointPath(String jobId) {
        String path = get("/jobs/" + jobId + "/checkpoints").path("latest").path("completed").path("external_path").asText("");
        return path.isEmpty() || path.equals("<checkpoint-not-externally-addressable>") ? Optional.empty() : Optional.of(path);
    }

    /** Completed checkpoints of the job ({@code GET /jobs/<id>/checkpoints}). */
    public long completedCheckpoints(String jobId) {
        return get("/jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
    }

    /**
     * {@code POST /jobs/<id>/stop}: takes a savepoint into {@code targetDirectory} (null: the cluster's
     * {@code execution.checkpointing.savepoint-dir}) and stops the job; waits for the savepoint and
     * returns its path.
     */
    public String stopWithSavepoint(String jobId, String targetDirectory, Duration wait) {
        ObjectNode body = JSON.createObjectNode();
        if (targetDirectory != null) {
            body.put("targetDirectory", targetDirectory);
        }
        body.put("drain", false);
        String trigger = post("/jobs/" + jobId + "/stop", body, "stop job " + jobId + " with a savepoint")
                .path("request-id").asText();
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            JsonNode n = get("/jobs/" + jobId + "/savepoints/" + trigger);
            if (n.path("status").path("id").asText().equals("COMPLETED")) {
                JsonNode op = n.path("operation");
                if (op.has("failure-cause")) {
                    throw new FlinkRestException("the savepoint of job " + jobId + " failed: " + rootCause(List.of(
                            op.path("failure-cause").path("stack-trace").asText(op.path("failure-cause").toString()))), null);
                }
                return op.path("location").asText();
            }
            if (System.nanoTime() > deadline) {
                throw new FlinkRestException("the savepoint of job " + jobId + " did not complete within "
                        + wait.toSeconds() + " s", null);
            }
            sleep(200);
        }
    }

    /** {@code PATCH /jobs/<id>?mode=cancel}. */
    public void cancel(String jobId) {
        HttpRequest req = HttpRequest.newBuilder(at("/jobs/" + jobId + "?mode=cancel")).timeout(timeout)
                .method("PATCH", HttpRequest.BodyPublishers.noBody()).build();
        send(req, "cancel job " + jobId);
    }

    private JsonNode get(String path) {
        return send(HttpRequest.newBuilder(at(path)).timeout(timeout).GET().build(), "GET " + path);
    }

    private JsonNode post(String path, JsonNode body, String what) {
        HttpRequest req = HttpRequest.newBuilder(at(path)).timeout(timeout.plusSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        return send(req, what);
    }

    /** Whether the host name did not resolve: the JDK's client says so only deep in a ConnectException's causes. */
    private static boolean unresolved(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnresolvedAddressException) {
                return true;
            }
        }
        return false;
    }

    private JsonNode send(HttpRequest req, String what) {
        HttpResponse<String> resp;
        try {
            resp = http.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            if (unresolved(e)) {
                throw new FlinkRestException("cannot reach the Flink cluster at " + base + " (" + what + "): the host name "
                        + base.getHost() + " does not resolve", e);
            }
            throw new FlinkRestException(refusedMessage(base, what, unreachableHint), e);
        } catch (IOException e) {
            throw new FlinkRestException("cannot reach the Flink cluster at " + base + " (" + what + "): " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FlinkRestException("interrupted: " + what, e);
        }
        JsonNode n;
        try {
            n = resp.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(resp.body());
        } catch (IOException e) {
            throw new FlinkRestException(what + ": " + base + " answered HTTP " + resp.statusCode()
                    + " with a body that is not JSON; is this a Flink REST endpoint?", e);
        }
        if (resp.statusCode() >= 300) {
            List<String> errors = new ArrayList<>();
            n.path("errors").forEach(e -> errors.add(e.asText()));
            throw new FlinkRestException(what + " failed: HTTP " + resp.statusCode() + " from " + base
                    + (errors.isEmpty() ? "" : ": " + rootCause(errors)), null);
        }
        return n;
    }

    /**
     * One line from a REST error's {@code errors}: the innermost cause of the server's stack trace (e.g. the
     * job's own IllegalArgumentException under Flink's 4 wrappers), plus where the whole chain is when there
     * was one. A chain of 7–11 "Caused by" lines buried the one that mattered. Only the main chain counts (as in
     * {@link RootCause#fromTrace}): the causes of a {@code Suppressed:} block are indented.
     */
    static String rootCause(List<String> errors) {
        String first = null;
        String innermost = null;
        for (String e : errors) {
            for (String line : withoutStackFrames(e).lines().toList()) {
                String t = line.strip();
                if (line.startsWith(RootCause.CAUSED_BY)) { // not one of a Suppressed: block, which is indented
                    innermost = t.substring(RootCause.CAUSED_BY.length());
                } else if (first == null && !t.equals("Internal server error.") && !t.startsWith("<Exception on server side")
                        && !t.startsWith("End of exception on server side")) {
                    first = t;
                }
            }
        }
        if (innermost == null) {
            return first == null ? String.join("; ", errors) : withoutPackage(first);
        }
        return withoutPackage(innermost) + " (see the Flink JobManager log for the whole cause chain)";
    }

    /** {@code java.lang.IllegalArgumentException: m} → {@code IllegalArgumentException: m}. */
    private static String withoutPackage(String line) {
        return line.replaceFirst("^(?:[a-z_$][\\w$]*\\.)+([A-Z][\\w$]*(?::|$))", "$1");
    }

    /** {@code DELETE /jars/<jarId>}: removes an uploaded jar from the cluster's upload directory. */
    public void deleteJar(String jarId) {
        HttpRequest req = HttpRequest.newBuilder(at("/jars/" + jarId)).timeout(timeout).DELETE().build();
        send(req, "delete the uploaded jar " + jarId);
    }

    /** A Java stack trace's messages and causes without its frames: what went wrong, readable in a terminal. */
    static String withoutStackFrames(String trace) {
        return String.join("\n", trace.lines().filter(l -> {
            String t = l.strip();
            return !t.isEmpty() && !t.startsWith("at ") && !(t.startsWith("...") && t.endsWith("more"));
        }).toList());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FlinkRestException("interrupted", e);
        }
    }
}
