package io.tierroute.deploy.local;

import com.fasterxml.jackson.databind.JsonNode;
import io.tierroute.deploy.local.FlinkRestClient.JobDetails;
import io.tierroute.deploy.local.FlinkRestClient.JobNotRunningException;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;

import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Jobs, for {@link FlinkRestClient}: listing them ({@code GET /jobs/overview}), one job's state, vertices and tasks
 * ({@code GET /jobs/<id>}), waiting until it fully runs (and saying why it does not), its exceptions
 * ({@code GET /jobs/<id>/exceptions}) and cancelling it ({@code PATCH /jobs/<id>?mode=cancel}); with the parsers of
 * those answers, which tests feed captured JSON.
 */
final class FlinkJobs {

    private final FlinkRestTransport rest;

    FlinkJobs(FlinkRestTransport rest) {
        this.rest = rest;
    }

    List<JobSummary> jobs() {
        List<JobSummary> out = new ArrayList<>();
        for (JsonNode j : rest.get("/jobs/overview").path("jobs")) {
            out.add(jobSummary(j));
        }
        return out;
    }

    static JobSummary jobSummary(JsonNode j) {
        return new JobSummary(j.path("jid").asText(), j.path("name").asText(), j.path("state").asText(),
                j.path("start-time").asLong(-1));
    }

    String jobState(String jobId) {
        return rest.get("/jobs/" + jobId).path("state").asText();
    }

    JobDetails job(String jobId) {
        return jobDetails(rest.get("/jobs/" + jobId));
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

    List<String> vertexNames(String jobId) {
        List<String> names = new ArrayList<>();
        for (JsonNode v : rest.get("/jobs/" + jobId).path("vertices")) {
            names.add(v.path("name").asText());
        }
        return names;
    }

    JobDetails awaitRunning(String jobId, Duration timeout, Consumer<JobDetails> progress) {
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
            FlinkRestTransport.sleep(200);
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

    Optional<RootCause> rootCause(String jobId) {
        return RootCause.of(rest.get("/jobs/" + jobId + "/exceptions"));
    }

    String rootException(String jobId) {
        JsonNode n = rest.get("/jobs/" + jobId + "/exceptions");
        JsonNode entries = n.path("exceptionHistory").path("entries");
        if (entries.isArray() && entries.size() > 0) {
            return FlinkErrorText.withoutStackFrames(
                    entries.get(0).path("stacktrace").asText(entries.get(0).path("exceptionName").asText()));
        }
        String root = n.path("root-exception").asText("");
        return root.isEmpty() ? null : root;
    }

    void cancel(String jobId) {
        HttpRequest req = HttpRequest.newBuilder(rest.at("/jobs/" + jobId + "?mode=cancel")).timeout(rest.timeout())
                .method("PATCH", HttpRequest.BodyPublishers.noBody()).build();
        rest.send(req, "cancel job " + jobId);
    }
}
