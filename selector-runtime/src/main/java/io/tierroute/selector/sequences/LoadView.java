package io.tierroute.selector.sequences;

/**
 * What the cost model reads of one worker's load, published as one immutable value so a route
 * sees a consistent set of sums.
 *
 * @param inFlight             requests admitted and not finished
 * @param waiting              requests waiting for their first token ({@code Q(w)})
 * @param decodeTokens         {@code Σ d̂(r')} over in-flight requests, tokens still to generate
 * @param decodeQuadraticTwice {@code 2·Σ [ctx(r')·d̂(r') + d̂(r')²/2]}, kept doubled so it stays an integer
 * @param kvUsedTokens         KV tokens in use
 * @param kvCapacityTokens     KV tokens the worker can hold on HBM
 * @param queuedPrefillTokens  {@code Σ p_eff(r')} over requests admitted and without a first token yet:
 *                             prompt tokens the worker must compute before a newcomer's prefill completes
 * @param queuedTierTokens     per tier ordinal, {@code Σ H_t(r')} over the same requests: tokens still to load
 *                             over that tier's link ahead of a newcomer (null: none known)
 * @param engineInFlight       the engine's own count when it sent telemetry: its running and waiting requests in the
 *                             newest fresh sample plus what this selector sent since (other replicas' requests
 *                             included); {@code inFlight} without a sample
 */
public record LoadView(int inFlight, int waiting, long decodeTokens, long decodeQuadraticTwice,
                       long kvUsedTokens, long kvCapacityTokens, long queuedPrefillTokens, long[] queuedTierTokens,
                       int engineInFlight) {

    /** A view whose engine count is this selector's own. */
    public LoadView(int inFlight, int waiting, long decodeTokens, long decodeQuadraticTwice,
                    long kvUsedTokens, long kvCapacityTokens, long queuedPrefillTokens, long[] queuedTierTokens) {
        this(inFlight, waiting, decodeTokens, decodeQuadraticTwice, kvUsedTokens, kvCapacityTokens, queuedPrefillTokens,
                queuedTierTokens, inFlight);
    }

    /**
     * What {@code workers[].maxInFlight} and the light-load spread hold a worker to: the larger of this selector's count
     * and the engine's, so a worker other replicas (or clients) filled is over its limit, and busier, here too. The cost
     * model reads {@code inFlight}, the requests whose predicted decode it knows.
     */
    public int limitInFlight() {
        return Math.max(inFlight, engineInFlight);
    }

    /**
     * Whether a worker with these limits ({@code workers[].maxInFlight}, {@code maxWaiting}; 0: none) may take no more
     * requests at this load.
     */
    public boolean atLimit(int maxInFlight, int maxWaiting) {
        return (maxInFlight > 0 && limitInFlight() >= maxInFlight) || (maxWaiting > 0 && waiting() >= maxWaiting);
    }

    /** A view without queued tier loads. */
    public LoadView(int inFlight, int waiting, long decodeTokens, long decodeQuadraticTwice,
                    long kvUsedTokens, long kvCapacityTokens, long queuedPrefillTokens) {
        this(inFlight, waiting, decodeTokens, decodeQuadraticTwice, kvUsedTokens, kvCapacityTokens, queuedPrefillTokens, null);
    }

    /** Tokens queued for loading over tier {@code t}'s link. */
    public long queuedTierTokens(int t) {
        return queuedTierTokens == null ? 0 : queuedTierTokens[t];
    }

    /** A view without queued prefill work (callers that do not track it). */
    public LoadView(int inFlight, int waiting, long decodeTokens, long decodeQuadraticTwice,
                    long kvUsedTokens, long kvCapacityTokens) {
        this(inFlight, waiting, decodeTokens, decodeQuadraticTwice, kvUsedTokens, kvCapacityTokens, 0);
    }

    /** {@code Σ [ctx·d̂ + d̂²/2]} in token². */
    public double decodeQuadratic() {
        return decodeQuadraticTwice / 2.0;
    }

    public double kvUsage() {
        return kvCapacityTokens == 0 ? 1.0 : (double) kvUsedTokens / kvCapacityTokens;
    }
}
