package io.tierroute.selector.sequences;

/**
 * Whether a worker's telemetry samples show work, with counts since the previous sample told apart from running
 * totals. The work counters ({@link Telemetry#prefillTokens}, {@link Telemetry#decodeSteps}) should be counts since the
 * engine's previous sample. A gateway that posts an engine's running totals instead (a Prometheus counter is one)
 * would make every sample show work, and keep a hung engine from ever looking silent. A count no engine reaches in
 * the interval gives totals away: more than {@link #MAX_DECODE_STEPS_PER_SECOND} decode steps (a step takes well
 * over half a millisecond) or {@link #MAX_PREFILL_TOKENS_PER_SECOND} prompt tokens a second since the previous
 * sample, the interval counted as one second at least. From then on, until the selector restarts, the worker's work
 * is a change of its totals (a rise; or a fall: the engine restarted and counts anew). Totals below the bounds, from
 * an engine that started moments ago, read as counts until they pass them: at 30 steps a second, with a sample a
 * second, after about a minute; with a sample every 5 s, after about 5½ minutes. An engine that hangs before then
 * shows work in every sample meanwhile. Guarded by the {@link WorkerLoad}'s lock.
 */
final class WorkCounters {

    static final long MAX_DECODE_STEPS_PER_SECOND = 2_000;
    static final long MAX_PREFILL_TOKENS_PER_SECOND = 10_000_000;

    private boolean runningTotals;
    private boolean sampled;          // a sample with counters has been read
    private long lastAtNanos;         // the newest of those
    private long lastPrefillTokens;
    private long lastDecodeSteps;

    /** Whether {@code t}'s counters show work since the engine's previous sample. */
    boolean read(Telemetry t) {
        if (t.prefillTokens() < 0 && t.decodeSteps() < 0) {
            return false; // not reported
        }
        if (sampled && t.atNanos() <= lastAtNanos) {
            return !runningTotals && t.showsWork(); // a late sample: its own interval's count; late totals tell nothing
        }
        if (!runningTotals && sampled && beyondAnyEngine(t, t.atNanos() - lastAtNanos)) {
            runningTotals = true;
        }
        boolean work = runningTotals ? changed(t) : t.showsWork();
        sampled = true;
        lastAtNanos = t.atNanos();
        lastPrefillTokens = t.prefillTokens();
        lastDecodeSteps = t.decodeSteps();
        return work;
    }

    /** Whether this worker's counters have been found to be running totals. */
    boolean runningTotals() {
        return runningTotals;
    }

    private static boolean beyondAnyEngine(Telemetry t, long intervalNanos) {
        double seconds = Math.max(1.0, intervalNanos / 1e9);
        return t.decodeSteps() > MAX_DECODE_STEPS_PER_SECOND * seconds
                || t.prefillTokens() > MAX_PREFILL_TOKENS_PER_SECOND * seconds;
    }

    private boolean changed(Telemetry t) {
        return (t.decodeSteps() >= 0 && t.decodeSteps() != lastDecodeSteps)
                || (t.prefillTokens() >= 0 && t.prefillTokens() != lastPrefillTokens);
    }
}
