package io.tierroute.dashboards.history;

import io.tierroute.schemas.avro.SnapshotControl;

import java.util.List;

/**
 * One scope as the dashboard shows it: the active version ({@link io.tierroute.schemas.snapshot.ActivationRule}),
 * the pin, the last control records, and the versions the history holds.
 *
 * @param activeVersion   the version selectors serve, or null when none can be active yet
 * @param pinnedVersion   the pinned version while the scope is pinned, else null
 * @param controlSequence last applied control sequence (0: none)
 * @param controls        the last applied control records, newest first
 * @param versions        every version kept, lowest first
 */
public record ScopeState(String scope, Long activeVersion, boolean pinned, Long pinnedVersion, long controlSequence,
                         List<ControlEntry> controls, List<VersionRecord> versions) {

    /** One applied control record. */
    public record ControlEntry(String action, Long version, String actor, String reason, long timestampMs,
                               long sequence) {
        static ControlEntry of(SnapshotControl c) {
            return new ControlEntry(c.getAction().name(), c.getVersion(), c.getActor(), c.getReason(),
                    c.getTimestampMs(), c.getSequence());
        }
    }
}
