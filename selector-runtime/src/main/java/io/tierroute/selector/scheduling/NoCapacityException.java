package io.tierroute.selector.scheduling;

/**
 * A request could not be routed: no worker is healthy and not draining, the admission queue is
 * full, or the request waited in the queue longer than allowed. The HTTP API answers 503.
 */
public final class NoCapacityException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NoCapacityException(String message) {
        super(message, null, false, false);
    }
}
