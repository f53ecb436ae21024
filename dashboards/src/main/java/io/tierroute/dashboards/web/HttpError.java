package io.tierroute.dashboards.web;

/** A client error with its HTTP status and the message the client sees as {@code {"error": ...}}. */
final class HttpError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final int status;

    HttpError(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }
}
