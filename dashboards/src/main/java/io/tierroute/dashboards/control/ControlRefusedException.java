package io.tierroute.dashboards.control;

/**
 * A pin, unpin or rollback that was not written, with the reason the operator sees (unknown or
 * rejected version, nothing to roll back to, history not caught up, bad actor or reason).
 * {@link #conflict} tells "the request is fine but the state does not allow it" (HTTP 409) from
 * "the request is bad" (400).
 */
public final class ControlRefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean conflict;

    ControlRefusedException(String message, boolean conflict) {
        super(message, null, false, false);
        this.conflict = conflict;
    }

    static ControlRefusedException badRequest(String message) {
        return new ControlRefusedException(message, false);
    }

    static ControlRefusedException conflict(String message) {
        return new ControlRefusedException(message, true);
    }

    public boolean conflict() {
        return conflict;
    }
}
