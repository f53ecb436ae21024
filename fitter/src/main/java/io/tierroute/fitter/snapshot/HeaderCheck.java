package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotStatus;
import java.util.List;
import java.util.Objects;

/**
 * The {@link ValidationGate}'s snapshot-level checks on the candidate's header: its status must be CANDIDATE and its
 * version at least 1; with an active snapshot it must be of the same scope, of a greater version and derived from the
 * active version; without one it must have no parent. Every failure REJECTS the snapshot; all are listed.
 */
final class HeaderCheck {
    private HeaderCheck() {
    }

    static void check(ParameterSnapshot c, ParameterSnapshot active, List<String> rejections) {
        if (c.getStatus() != SnapshotStatus.CANDIDATE) {
            rejections.add("status is " + c.getStatus() + ", only a CANDIDATE can be validated");
        }
        if (c.getVersion() < 1) {
            rejections.add("version " + c.getVersion() + " < 1 (0 is reserved for the built-in defaults)");
        }
        if (active == null) {
            if (c.getParentVersion() != null) {
                rejections.add("parentVersion " + c.getParentVersion() + " given but the scope has no active snapshot");
            }
            return;
        }
        if (!Objects.equals(c.getScope(), active.getScope())) {
            rejections.add("scope '" + c.getScope() + "' differs from the active snapshot's scope '"
                + active.getScope() + "'");
        }
        if (c.getVersion() <= active.getVersion()) {
            rejections.add("version " + c.getVersion() + " is not greater than the active version "
                + active.getVersion() + " (versions are strictly increasing)");
        }
        if (c.getParentVersion() == null || c.getParentVersion() != active.getVersion()) {
            rejections.add("parentVersion " + c.getParentVersion() + " is not the active version "
                + active.getVersion() + " (the candidate was derived from a different snapshot)");
        }
    }
}
