package io.tierroute.selector.sequences;

/**
 * One engine telemetry sample for a worker, as far as in-flight state needs it.
 *
 * @param worker           dense worker index
 * @param atNanos          when the engine took the sample, on the selector's {@code System.nanoTime} clock
 * @param waiting          requests queued on the engine
 * @param running          requests in its running batch
 * @param kvUsedTokens     KV tokens held by running requests
 * @param pendingPrefillTokens prompt tokens admitted and not yet computed on the engine, or -1 when the
 *                         engine does not report it
 * @param prefillTokens    prompt tokens the engine computed since its previous sample (EngineTelemetry
 *                         {@code prefillTokens}), or -1 when not reported
 * @param decodeSteps      steps that generated tokens since its previous sample (EngineTelemetry {@code decodeSteps}),
 *                         or -1 when not reported
 */
public record Telemetry(int worker, long atNanos, int waiting, int running, long kvUsedTokens,
                        long pendingPrefillTokens, long prefillTokens, long decodeSteps) {

    /** A sample without the pending prefill count and the work counters. */
    public Telemetry(int worker, long atNanos, int waiting, int running, long kvUsedTokens) {
        this(worker, atNanos, waiting, running, kvUsedTokens, -1);
    }

    /** A sample without the work counters. */
    public Telemetry(int worker, long atNanos, int waiting, int running, long kvUsedTokens, long pendingPrefillTokens) {
        this(worker, atNanos, waiting, running, kvUsedTokens, pendingPrefillTokens, -1, -1);
    }

    public Telemetry {
        if (waiting < 0 || running < 0 || kvUsedTokens < 0) {
            throw new IllegalArgumentException("telemetry counts must be ≥ 0: waiting=" + waiting
                    + " running=" + running + " kvUsedTokens=" + kvUsedTokens);
        }
    }

    /**
     * The engine computed something since its previous sample (a prefill or a decode step): alive, whoever's requests
     * it served. A hung engine that still exports its metrics reports neither.
     */
    public boolean showsWork() {
        return prefillTokens > 0 || decodeSteps > 0;
    }
}
