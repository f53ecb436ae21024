package io.tierroute.selector.scheduling;

/**
 * A prompt of known length that no worker taking requests can hold in its KV cache with room for one output token:
 * bad input, not a lack of capacity that waiting would cure. The HTTP API answers 400 (an
 * {@link IllegalArgumentException}); the simulator counts the request rejected.
 */
public final class PromptTooLargeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public PromptTooLargeException(String message) {
        super(message);
    }
}
