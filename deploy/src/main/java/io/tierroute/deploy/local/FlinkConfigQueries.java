package io.tierroute.deploy.local;

import com.fasterxml.jackson.databind.JsonNode;
import io.tierroute.deploy.local.FlinkRestClient.CheckpointConfig;
import io.tierroute.deploy.local.FlinkRestClient.JobConfig;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What a running job was configured with and what it checkpointed, for {@link FlinkRestClient}: its parameters and
 * parallelism ({@code GET /jobs/<id>/config}), its checkpoint interval and state backend
 * ({@code GET /jobs/<id>/checkpoints/config}), and its completed checkpoints and the one it was restored from
 * ({@code GET /jobs/<id>/checkpoints});
 * with the parsers of those answers, which tests feed captured JSON.
 */
final class FlinkConfigQueries {

    private final FlinkRestTransport rest;

    FlinkConfigQueries(FlinkRestTransport rest) {
        this.rest = rest;
    }

    static Optional<Map<String, String>> userConfig(JsonNode jobConfig) {
        return jobConfig(jobConfig).map(JobConfig::userConfig);
    }

    Optional<JobConfig> jobConfig(String jobId) {
        return jobConfig(rest.get("/jobs/" + jobId + "/config"));
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

    CheckpointConfig checkpointConfig(String jobId) {
        return checkpointConfig(rest.get("/jobs/" + jobId + "/checkpoints/config"));
    }

    static CheckpointConfig checkpointConfig(JsonNode n) {
        JsonNode interval = n.path("interval");
        return new CheckpointConfig(interval.isIntegralNumber() && interval.asLong() > 0 ? interval.asLong() : -1,
                n.path("state_backend").asText(""));
    }

    Optional<String> latestCheckpointPath(String jobId) {
        return externalPath(rest.get("/jobs/" + jobId + "/checkpoints").path("latest").path("completed"));
    }

    Optional<String> restoredCheckpointPath(String jobId) {
        return externalPath(rest.get("/jobs/" + jobId + "/checkpoints").path("latest").path("restored"));
    }

    /** The {@code external_path} of an entry of {@code latest} ({@code completed}, {@code restored}), when it has one. */
    static Optional<String> externalPath(JsonNode latestEntry) {
        String path = latestEntry.path("external_path").asText("");
        return path.isEmpty() || path.equals("<checkpoint-not-externally-addressable>") ? Optional.empty() : Optional.of(path);
    }

    long completedCheckpoints(String jobId) {
        return rest.get("/jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
    }
}
