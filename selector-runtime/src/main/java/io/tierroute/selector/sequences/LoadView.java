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
 */
public record LoadView(int inFlight, int waiting, long decodeTokens, long decodeQuadraticTwice,
                       long kvUsedTokens, long kvCapacityTokens) {

    /** {@code Σ [ctx·d̂ + d̂²/2]} in token². */
    public double decodeQuadratic() {
        return decodeQuadraticTwice / 2.0;
    }

    public double kvUsage() {
        return kvCapacityTokens == 0 ? 1.0 : (double) kvUsedTokens / kvCapacityTokens;
    }
}
