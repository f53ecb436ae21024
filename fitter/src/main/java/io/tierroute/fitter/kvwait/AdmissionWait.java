package io.tierroute.fitter.kvwait;

/**
 * The estimate {@code W} of how long a request waits on a worker for HBM it does not find free:
 * <pre>
 * W = min(1, m / KV_used) · (Σ d̂ / |A(w)|) · (τ₀ + α·KV_used)
 * </pre>
 * {@code m} the KV the request misses (its overflow less the prefix it already holds in HBM there), {@code KV_used} the
 * worker's resident KV, {@code Σ d̂ / |A(w)|} the mean predicted remaining output of its requests in flight and
 * {@code τ₀ + α·KV_used} the time of one of their decode steps per predicted token: requests leave in about that much
 * time, and the share {@code m / KV_used} of them must leave before the missing KV is free. The same formula as
 * selector-runtime's {@code CostModel.admissionWait} (which cannot depend on this module); a fleet-sim test pins the two
 * together.
 */
public final class AdmissionWait {

    private AdmissionWait() {}

    /**
     * {@code W} in µs; 0 when nothing is missing or nothing is in flight to give KV back.
     *
     * @param missingKvTokens      {@code m}, tokens
     * @param kvUsedTokens         {@code KV_used(w)}, tokens
     * @param inflightDecodeTokens {@code Σ d̂(r')} over w's requests in flight, tokens
     * @param inFlight             {@code |A(w)|}
     * @param tau0Us               {@code τ₀}, µs per predicted output token
     * @param perKvTokenUs         {@code α}, µs per predicted output token per resident KV token
     */
    public static double micros(double missingKvTokens, double kvUsedTokens, double inflightDecodeTokens, int inFlight,
                                double tau0Us, double perKvTokenUs) {
        if (!(missingKvTokens > 0) || inFlight <= 0 || !(kvUsedTokens > 0)) {
            return 0.0;
        }
        return (tau0Us + perKvTokenUs * kvUsedTokens) * inflightDecodeTokens / inFlight
                * Math.min(1.0, missingKvTokens / kvUsedTokens);
    }
}
