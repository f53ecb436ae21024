package io.tierroute.selector.sequences;

/** What a request event did to the in-flight state; the selector retries its admission queue only when a slot freed. */
public enum EventEffect {
    /** The request is not (or no longer) in flight: nothing changed. */
    UNKNOWN,
    /** Progress of a request already decoding: its context grew, no count a load limit reads changed. */
    PROGRESS,
    /** The request's first output ended its wait: its worker has one request fewer waiting. */
    ENDED_WAIT,
    /** The request finished or failed after its first output: its worker has one request fewer in flight. */
    LEFT,
    /** The request finished or failed with no output event before: it left its worker's waiting count only now. */
    LEFT_WITHOUT_OUTPUT;

    /** Whether a load limit may now admit a queued request. */
    public boolean mayFreeSlot() {
        return this == ENDED_WAIT || left();
    }

    /** Whether the request finished or failed (with or without an output event before). */
    public boolean left() {
        return this == LEFT || this == LEFT_WITHOUT_OUTPUT;
    }
}
