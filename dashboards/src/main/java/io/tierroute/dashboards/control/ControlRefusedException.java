package io.tierroute.dashboards.control;

/**
 * A pin, unpin or rollback that was not written, with the reason the operator sees (unknown or
 * rejected version, nothing to roll back to, history not caught up, Kafka unreachable, bad actor or reason).
 * {@link #status} says which kind, as HTTP does: the request is bad (400), the scope it names does not
 * exist (404, as a read of it answers), the request is fine but the state does not allow it (409), or
 * Kafka, which every write goes through, does not answer (503, as a read of a scope not yet read answers).
 */
public final class ControlRefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;

    private ControlRefusedException(String message, int status) {
        super(message, null, false, false);
        this.status = status;
    }

    static ControlRefusedException badRequest(String message) {
        return new ControlRefusedException(message, 400);
    }

    static ControlRefusedException notFound(String message) {
        return new ControlRefusedException(message, 404);
    }

    static ControlRefusedException conflict(String message) {
        return new ControlRefusedException(message, 409);
    }

    static ControlRefusedException unavailable(String message) {
        return new ControlRefusedException(message, 503);
    }

    /** 400, 404, 409 or 503. */
    public int status() {
        return status;
    }
}
