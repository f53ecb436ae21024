package io.tierroute.deploy.local;

import com.fasterxml.jackson.databind.JsonNode;
import io.tierroute.deploy.local.FlinkRestClient.Overview;

import java.util.ArrayList;
import java.util.List;

/**
 * The cluster as a whole, for {@link FlinkRestClient}: its overview ({@code GET /overview}) and its registered
 * TaskManagers with the jobs holding their slots ({@code GET /taskmanagers}).
 */
final class FlinkClusterView {

    private final FlinkRestTransport rest;

    FlinkClusterView(FlinkRestTransport rest) {
        this.rest = rest;
    }

    Overview overview() {
        JsonNode n = rest.get("/overview");
        return new Overview(n.path("taskmanagers").asInt(), n.path("slots-total").asInt(),
                n.path("slots-available").asInt(), n.path("jobs-running").asInt(), n.path("flink-version").asText());
    }

    /** {@code GET /taskmanagers}, then {@code GET /taskmanagers/<id>} each: only the details name the jobs. */
    List<TaskManagerSlots> taskManagerSlots() {
        List<TaskManagerSlots> out = new ArrayList<>();
        for (String id : taskManagerIds()) {
            out.add(TaskManagerSlots.of(rest.get("/taskmanagers/" + id)));
        }
        return out;
    }

    List<String> taskManagerIds() {
        List<String> ids = new ArrayList<>();
        for (JsonNode tm : rest.get("/taskmanagers").path("taskmanagers")) {
            ids.add(tm.path("id").asText());
        }
        return ids;
    }
}
