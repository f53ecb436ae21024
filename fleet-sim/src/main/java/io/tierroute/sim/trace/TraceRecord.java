package io.tierroute.sim.trace;

/**
 * One request of a trace, before replay: arrival (µs from the trace's start), lengths, and the
 * per-block content ids when the trace has them (null otherwise).
 */
public record TraceRecord(long arrivalMicros, int inputTokens, int outputTokens, long[] blockIds) {

    /**
     * The largest prompt or output a trace line may claim (as the selector's API bounds counts): beyond
     * it a line is refused, since replay allocates per block and an absurd length would exhaust memory.
     */
    public static final int MAX_TOKENS = 10_000_000;

    /** Refuses lengths beyond {@link #MAX_TOKENS}, naming the field. */
    static void checkLengths(String inField, int in, String outField, int out) {
        if (in > MAX_TOKENS || out > MAX_TOKENS) {
            throw new IllegalArgumentException(inField + " and " + outField + " must be ≤ " + MAX_TOKENS + ", got "
                    + in + " and " + out);
        }
    }
}
