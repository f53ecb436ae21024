package io.tierroute.selector.sequences;

/** What a request event did to the in-flight state; the selector retries its admission queue only when a slot freed. */
public enum EventEffect {
    /** The request is not (or no longer) in flight: nothing changed. */
    UNKNOWN,
    /** Progress of a request already decoding: its context grew, no count a load limit reads changed. */
    PROGRESS,
    /** The request's first output ended its wait: its worker has one request fewer waiting. */
    ENDED_WAIT,
    /** The request finished or failed: its worker has one request fewer in flight. */
    LEFT;

    /** Whether a load limit may now admit a queued request. */
    public boolean mayFreeSlot() {
        return this == ENDED_WAIT || this == LEFT;
    }
}
