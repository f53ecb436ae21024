package io.tierroute.selector.http;

/** A client error with its HTTP status and the message the client sees; no stack trace. */
final class ApiError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final int status;

    ApiError(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }
}
