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

    /**
     * The longest a trace may span, its first record to its last: 366 days. Past it a replay is ticks of an idle fleet,
     * and at the lowest load (0.01) its microseconds would leave a long; epoch-stamped microseconds in a millisecond
     * field, the likely mistake, are far past it.
     */
    public static final long MAX_SPAN_MICROS = 366L * 24 * 3600 * 1_000_000;
}
