package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;

/**
 * The one validity rule for a pin / unpin record. The fitting job dead-letters what it refuses and
 * {@link ActivationRule} ignores the same records, so the job, every selector, the CLI and the
 * dashboard cannot disagree about the active version because one of them applied a record another
 * refused (found by HostileInputTest's review: an UNPIN with version −5 unpinned the selectors while
 * the job kept the pin).
 */
public final class ControlRecordCheck {

    private ControlRecordCheck() {}

    /** Why {@code c} is not a usable control record, or null when it is. */
    public static String problem(SnapshotControl c) {
        if (c.getScope() == null || c.getScope().isEmpty()) {
            return "scope is empty";
        }
        if (c.getActor() == null || c.getActor().isEmpty()) {
            return "actor is empty";
        }
        if (c.getSequence() < 1) {
            return "sequence must be >= 1, got " + c.getSequence();
        }
        if (c.getAction() == ControlAction.PIN && (c.getVersion() == null || c.getVersion() < 1)) {
            return "PIN needs a version >= 1, got " + c.getVersion();
        }
        if (c.getVersion() != null && c.getVersion() < 1) {
            return "version must be >= 1 or null, got " + c.getVersion();
        }
        return null;
    }
}
