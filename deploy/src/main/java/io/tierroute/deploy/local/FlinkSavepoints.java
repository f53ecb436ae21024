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
 * or took longer than the caller's wait.
 */
final class FlinkSavepoints {

    private final FlinkRestTransport rest;

    FlinkSavepoints(FlinkRestTransport rest) {
        this.rest = rest;
    }

    String stopWithSavepoint(String jobId, String targetDirectory, Duration wait) {
        ObjectNode body = JSON.createObjectNode();
        if (targetDirectory != null) {
            body.put("targetDirectory", targetDirectory);
        }
        body.put("drain", false);
        String trigger = rest.post("/jobs/" + jobId + "/stop", body, "stop job " + jobId + " with a savepoint")
                .path("request-id").asText();
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            JsonNode n = rest.get("/jobs/" + jobId + "/savepoints/" + trigger);
            if (n.path("status").path("id").asText().equals("COMPLETED")) {
                JsonNode op = n.path("operation");
                if (op.has("failure-cause")) {
                    throw new FlinkRestException("the savepoint of job " + jobId + " failed: " + FlinkErrorText.rootCause(
                            List.of(op.path("failure-cause").path("stack-trace").asText(op.path("failure-cause").toString()))),
                            null);
                }
                return op.path("location").asText();
            }
            if (System.nanoTime() > deadline) {
                throw new FlinkRestException("the savepoint of job " + jobId + " did not complete within "
                        + wait.toSeconds() + " s", null);
            }
            FlinkRestTransport.sleep(200);
        }
    }
}
