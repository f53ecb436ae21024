package io.tierroute.selector.http;

/** A client error with its HTTP status and the message the client sees; no stack trace. */
final class ApiError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final int status;

    /**
     * The longest message an answer carries: a value quoted from a client's input (a 3 MB worker name, request id or
     * hash) would otherwise come back whole, an error of megabytes in place of a line.
     */
    static final int MAX_MESSAGE_LENGTH = 1024;

    ApiError(int status, String message) {
        super(bounded(message), null, false, false);
        this.status = status;
    }

    /** {@code message}, or its first {@link #MAX_MESSAGE_LENGTH} characters and how long it was. */
    static String bounded(String message) {
        if (message == null || message.length() <= MAX_MESSAGE_LENGTH) {
            return message; // a bounded message too: bounding twice changes nothing
        }
        String tail = "... (" + message.length() + " characters in all)";
        int cut = MAX_MESSAGE_LENGTH - tail.length();
        if (Character.isHighSurrogate(message.charAt(cut - 1))) {
            cut--; // not half a character
        }
        return message.substring(0, cut) + tail;
    }

    /** A client's value quoted in an error: its first 64 characters. */
    static String clip(String v) {
        return v == null || v.length() <= 64 ? v : v.substring(0, 64) + "...";
    }
}
