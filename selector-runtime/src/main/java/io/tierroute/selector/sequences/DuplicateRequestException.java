package io.tierroute.selector.sequences;

/**
 * A route for a request id that is already in flight or queued: the client's conflict (the HTTP API answers 409), not
 * a bug. An {@link IllegalStateException}, so callers that do not tell it apart still see a state error.
 */
public final class DuplicateRequestException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public DuplicateRequestException(String message) {
        super(message);
    }
}
