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

    /**
     * The largest sequence a control record may carry. Sequences only go up, so one at {@code Long.MAX_VALUE} locked
     * its scope's controls for good (no later record can be above it) and the CLI's next sequence overflowed; 2^62
     * leaves room no real writer reaches and keeps {@code sequence + 1} exact.
     */
    public static final long MAX_SEQUENCE = 1L << 62;
    /**
     * The largest version a control record may name, and the largest the fitting job takes from the params topic: its
     * next version is one more, which must not overflow (a version no job can reach names nothing real).
     */
    public static final long MAX_VERSION = 1L << 62;

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
        if (c.getSequence() > MAX_SEQUENCE) {
            return "sequence must be <= 2^62 (" + MAX_SEQUENCE + "), got " + c.getSequence();
        }
        if (c.getAction() == ControlAction.PIN && (c.getVersion() == null || c.getVersion() < 1)) {
            return "PIN needs a version >= 1, got " + c.getVersion();
        }
        if (c.getVersion() != null && c.getVersion() < 1) {
            return "version must be >= 1 or null, got " + c.getVersion();
        }
        if (c.getVersion() != null && c.getVersion() > MAX_VERSION) {
            return "version must be <= 2^62 (" + MAX_VERSION + "), got " + c.getVersion();
        }
        return null;
    }
}
