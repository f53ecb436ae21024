package io.tierroute.deploy.local;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One TaskManager's task slots as {@code GET /taskmanagers/<id>} shows them: how many, how many are free, and which
 * jobs hold the others ({@code allocatedSlots}, one entry per slot with its {@code jobId}). This is what tells an
 * operator who holds the slots a job waits for; {@code /overview} only counts them.
 *
 * @param byJob slots held per job id
 */
public record TaskManagerSlots(String id, int slots, int free, Map<String, Integer> byJob) {

    public TaskManagerSlots {
        byJob = Map.copyOf(byJob);
    }

    static TaskManagerSlots of(JsonNode details) {
        Map<String, Integer> byJob = new LinkedHashMap<>();
        for (JsonNode slot : details.path("allocatedSlots")) {
            byJob.merge(slot.path("jobId").asText(), 1, Integer::sum);
        }
        return new TaskManagerSlots(details.path("id").asText(), details.path("slotsNumber").asInt(),
                details.path("freeSlots").asInt(), byJob);
    }
}
