package io.tierroute.dashboards.history;

import io.tierroute.schemas.avro.SnapshotControl;

import java.util.List;

/**
 * One scope as the dashboard shows it: the active version ({@link io.tierroute.schemas.snapshot.ActivationRule}),
 * the pin, the last control records, and the versions the history holds.
 *
 * @param activeVersion   the version the activation rule makes active (what the job and selectors name as active), or
 *                        null when none can be active yet
 * @param servedVersion   the version selectors serve: the active one, or, when that one cannot be used
 *                        ({@link VersionRecord#unusable()}), the rule's choice among the usable ones (null: none)
 * @param pinnedVersion   the pinned version while the scope is pinned, else null
 * @param controlSequence last applied control sequence (0: none)
 * @param controls        the last applied control records, newest first
 * @param versions        every version kept, lowest first
 */
public record ScopeState(String scope, Long activeVersion, Long servedVersion, boolean pinned, Long pinnedVersion, long controlSequence,
                         List<ControlEntry> controls, List<VersionRecord> versions) {

    /** Whether selectors serve {@code version}. */
    public boolean isServed(long version) {
        return servedVersion != null && servedVersion == version;
    }

    /** Whether selectors serve another version than the active one (the active one cannot be used). */
    public boolean servesAnother() {
        return activeVersion != null && !activeVersion.equals(servedVersion);
    }

    /** One applied control record. */
    public record ControlEntry(String action, Long version, String actor, String reason, long timestampMs,
                               long sequence) {
        static ControlEntry of(SnapshotControl c) {
            return new ControlEntry(c.getAction().name(), c.getVersion(), c.getActor(), c.getReason(),
                    c.getTimestampMs(), c.getSequence());
        }
    }
}
