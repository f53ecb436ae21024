package io.tierroute.selector.sequences;

/**
 * Something an engine or gateway reports about a request the selector routed.
 *
 * @param requestId the id given at routing
 * @param type      what happened
 * @param tokens    output tokens generated so far (cumulative, not a delta); required for {@link Type#TOKENS}, optional
 *                  (0) for the others; with {@link Type#FINISHED}, the request's output count
 */
public record RequestEvent(String requestId, Type type, int tokens) {

    public enum Type {
        /** The first output token came back: the request left the queue. */
        FIRST_TOKEN,
        /** Progress: {@code tokens} output tokens generated so far. */
        TOKENS,
        /** Done; its KV and decode work leave the worker. */
        FINISHED,
        /** Failed or cancelled; as {@link #FINISHED} for load, but counted apart. */
        FAILED
    }

    public RequestEvent {
        if (requestId == null || requestId.isEmpty()) {
            throw new IllegalArgumentException("requestId is required");
        }
        if (type == null) {
            throw new IllegalArgumentException("type is required (first_token, tokens, finished, failed)");
        }
        if (tokens < 0) {
            throw new IllegalArgumentException("tokens must be ≥ 0, got " + tokens);
        }
    }
}
