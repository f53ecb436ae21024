package io.tierroute.dashboards.history;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.ModelCarrier;
import io.tierroute.schemas.snapshot.SnapshotUsability;

import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * What the history keeps of one snapshot version: its identity, validation outcome and every fitted
 * scalar (for the timelines), but not the per-worker ρ or the forest (see {@link SnapshotHistory}).
 *
 * @param status        CANDIDATE, ACCEPTED or REJECTED (as published)
 * @param rhoPairs      number of (worker, tier) ρ entries it carried
 * @param forest        shape of its quantile forest, or null when it had none (or names a record this history
 *                      never held)
 * @param forestVersion the version whose record carries that forest in full: this one, or an earlier one it names;
 *                      null without a forest
 * @param offset        its offset on the params topic
 * @param unusable      why selectors cannot apply an ACCEPTED version (its forest reference as published,
 *                      {@link ModelCarrier#problem}; a value missing, not finite or out of its physical bounds,
 *                      {@link SnapshotUsability}; the version it names for its forest never read carrying one), or
 *                      null (always for another status)
 */
public record VersionRecord(String scope, long version, Long parentVersion, String producer, long createdAtMs,
                            String status, List<String> rejectReasons, long controlSequence,
                            Map<String, Fitted> params, int rhoPairs, ForestSummary forest, Long forestVersion,
                            long offset, String unusable) {

    /**
     * {@code carried}: the shape of the forest {@code s} names but does not hold, when known (else null);
     * {@code referenceProblem}: why the record's forest reference cannot be right as published
     * ({@link ModelCarrier#problem}), which selectors refuse it for, or null.
     */
    static VersionRecord of(ParameterSnapshot s, long offset, ForestSummary carried, String referenceProblem) {
        String unusable = s.getStatus() != SnapshotStatus.ACCEPTED ? null // never served anyway: the gate said why
                : referenceProblem != null ? referenceProblem : SnapshotUsability.problem(s).orElse(null);
        return new VersionRecord(s.getScope(), s.getVersion(), s.getParentVersion(), s.getProducer(),
                s.getCreatedAtMs(), s.getStatus().name(), List.copyOf(s.getRejectReasons()), s.getControlSequence(),
                Collections.unmodifiableMap(ParameterNames.fittedValues(s)), s.getRho().size(),
                s.getQuantileModel() != null ? ForestSummary.of(s.getQuantileModel()) : carried,
                ModelCarrier.versionOf(s), offset, unusable);
    }

    public boolean accepted() {
        return "ACCEPTED".equals(status);
    }

    /**
     * Whether nothing but its status stops selectors applying it: true for every version not ACCEPTED (never served;
     * the gate's reasons say why), false for an ACCEPTED one they refuse ({@link #unusable} says why).
     */
    public boolean usable() {
        return unusable == null;
    }

    public boolean rejected() {
        return "REJECTED".equals(status);
    }
}
