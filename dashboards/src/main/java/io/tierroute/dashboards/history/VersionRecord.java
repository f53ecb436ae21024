package io.tierroute.dashboards.history;

import io.tierroute.schemas.avro.ParameterSnapshot;

import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * What the history keeps of one snapshot version: its identity, validation outcome and every fitted
 * scalar (for the timelines), but not the per-worker ρ or the forest (see {@link SnapshotHistory}).
 *
 * @param status        CANDIDATE, ACCEPTED or REJECTED (as published)
 * @param rhoPairs      number of (worker, tier) ρ entries it carried
 * @param forest        shape of its quantile forest, or null when it had none
 * @param offset        its offset on the params topic
 */
public record VersionRecord(String scope, long version, Long parentVersion, String producer, long createdAtMs,
                            String status, List<String> rejectReasons, long controlSequence,
                            Map<String, Fitted> params, int rhoPairs, ForestSummary forest, long offset) {

    static VersionRecord of(ParameterSnapshot s, long offset) {
        return new VersionRecord(s.getScope(), s.getVersion(), s.getParentVersion(), s.getProducer(),
                s.getCreatedAtMs(), s.getStatus().name(), List.copyOf(s.getRejectReasons()), s.getControlSequence(),
                Collections.unmodifiableMap(ParameterNames.fittedValues(s)), s.getRho().size(),
                s.getQuantileModel() == null ? null : ForestSummary.of(s.getQuantileModel()), offset);
    }

    public boolean accepted() {
        return "ACCEPTED".equals(status);
    }

    public boolean rejected() {
        return "REJECTED".equals(status);
    }
}
