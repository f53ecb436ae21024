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
 */
public record Telemetry(int worker, long atNanos, int waiting, int running, long kvUsedTokens,
                        long pendingPrefillTokens) {

    /** A sample without the pending prefill count. */
    public Telemetry(int worker, long atNanos, int waiting, int running, long kvUsedTokens) {
        this(worker, atNanos, waiting, running, kvUsedTokens, -1);
    }

    public Telemetry {
        if (waiting < 0 || running < 0 || kvUsedTokens < 0) {
            throw new IllegalArgumentException("telemetry counts must be ≥ 0: waiting=" + waiting
                    + " running=" + running + " kvUsedTokens=" + kvUsedTokens);
        }
    }
}
