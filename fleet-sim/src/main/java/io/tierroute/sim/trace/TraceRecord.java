package io.tierroute.sim.trace;

/**
 * One request of a trace, before replay: arrival (µs from the trace's start), lengths, and the
 * per-block content ids when the trace has them (null otherwise).
 */
public record TraceRecord(long arrivalMicros, int inputTokens, int outputTokens, long[] blockIds) {}
