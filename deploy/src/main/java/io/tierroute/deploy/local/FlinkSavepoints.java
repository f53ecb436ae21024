package io.tierroute.deploy.local;

import static io.tierroute.deploy.local.FlinkRestTransport.JSON;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tierroute.deploy.local.FlinkRestClient.FlinkRestException;

import java.time.Duration;
import java.util.List;

/**
 * Savepoints, for {@link FlinkRestClient}: stopping a job with one ({@code POST /jobs/<id>/stop}) and polling its
 * trigger ({@code GET /jobs/<id>/savepoints/<trigger>}) until it completed, failed (Flink's failure cause in one line)
 * or took longer than the caller's wait (a poll without answer or with a server error is tried again until then); a stop that outlasts the wait goes
 * on on the cluster, so the error says how to follow it to its savepoint.
 */
final class FlinkSavepoints {

    private final FlinkRestTransport rest;
    private final FlinkJobs jobs;

    FlinkSavepoints(FlinkRestTransport rest, FlinkJobs jobs) {
        this.rest = rest;
        this.jobs = jobs;
    }

    String stopWithSavepoint(String jobId, String targetDirectory, Duration wait) {
        ObjectNode body = JSON.createObjectNode();
        if (targetDirectory != null) {
            body.put("targetDirectory", targetDirectory);
        }
        body.put("drain", false);
        String trigger = rest.post("/jobs/" + jobId + "/stop", body, "stop job " + jobId + " with a savepoint")
                .path("request-id").asText();
        String poll = "/jobs/" + jobId + "/savepoints/" + trigger;
        long deadline = System.nanoTime() + wait.toNanos();
        FlinkRestException lastPollFailure = null;
        while (true) {
            JsonNode n;
            try {
                n = rest.get(poll);
                lastPollFailure = null;
            } catch (FlinkRestException e) {
                if (!e.unanswered() && e.httpStatus() < 500) {
                    throw e; // a lasting answer (an unknown trigger after a failover, no access): waiting changes nothing
                }
                n = null; // a poll without answer, or a server error, is no failed savepoint: the stop goes on
                lastPollFailure = e;
            }
            if (n != null && n.path("status").path("id").asText().equals("COMPLETED")) {
                JsonNode op = n.path("operation");
                if (op.has("failure-cause")) {
                    throw new FlinkRestException("the savepoint of job " + jobId + " failed: " + FlinkErrorText.rootCause(
                            List.of(op.path("failure-cause").path("stack-trace").asText(op.path("failure-cause").toString())))
                            + stateAfterFailedStop(jobId), null);
                }
                return op.path("location").asText();
            }
            if (System.nanoTime() > deadline) {
                // The stop was accepted and goes on without us: say how to follow it, or its savepoint path is lost.
                throw new FlinkRestException("the savepoint of job " + jobId + " did not complete within "
                        + wait.toSeconds() + " s" + (lastPollFailure == null ? ""
                        : " (its last poll failed: " + lastPollFailure.getMessage() + ")")
                        + ". The stop goes on on the cluster: the job stops once the savepoint completes (and runs on if "
                        + "it fails). Follow it with GET " + rest.at(poll) + " (trigger " + trigger + "): once its "
                        + "status is COMPLETED, operation.location is the savepoint to restart from; a larger --wait "
                        + "waits for a large state", lastPollFailure);
            }
            FlinkRestTransport.sleep(200);
        }
    }

    /**
     * What became of a job whose stop failed, for the operator who asked to stop it: Flink keeps a job running when its
     * savepoint fails (a directory it cannot create, say), which the failure cause alone does not tell. Empty when the
     * state cannot be read.
     */
    private String stateAfterFailedStop(String jobId) {
        try {
            String state = jobs.job(jobId).state();
            if (state.isEmpty()) {
                return "";
            }
            return state.equals("RUNNING") ? ". The job was not stopped: it is still RUNNING"
                    : ". The job is now " + state;
        } catch (FlinkRestException e) {
            return "";
        }
    }
}
