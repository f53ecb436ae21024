package io.tierroute.sim.policy;

/**
 * One request's completion: an engine's completion log for it (what {@code tierroute.completions} carries), from
 * which the fitter learns the cost model's coefficients, with the times a client sees measured from its arrival at
 * the router. They differ by {@code heldMicros}, the time a router that binds late held it before any engine saw it.
 *
 * @param request         the request
 * @param worker          where it ran
 * @param queueWaitMicros arrival → first scheduled (includes the router's hold, and waiting for its tier loads to start)
 * @param tierLoadMicros  time spent loading cached blocks from slower tiers into HBM
 * @param prefillMicros   first scheduled → first token, minus the tier-load time
 * @param decodeMicros    first token → finish
 * @param ttftMicros      arrival → first token (includes the router's hold)
 * @param outputTokens    tokens generated
 * @param hitTokens       per tier ordinal, prompt tokens served from that tier's cache (Σ ≤ ISL − 1)
 * @param computedTokens  prompt tokens computed (recomputation after preemption included)
 * @param preemptions     times the request was preempted (recompute)
 * @param finishMicros    virtual time of the last token
 * @param heldMicros      arrival → delivery to its worker: the router held it ({@code RoutingPolicy.HOLD}); 0 if not
 */
public record Completion(SimRequest request, int worker, long queueWaitMicros, long tierLoadMicros,
                         long prefillMicros, long decodeMicros, long ttftMicros, int outputTokens,
                         int[] hitTokens, long computedTokens, int preemptions, long finishMicros, long heldMicros) {

    /** The queue wait the engine logs: from the request's delivery, without the router's hold. */
    public long engineQueueWaitMicros() {
        return queueWaitMicros - heldMicros;
    }

    /** The TTFT the engine logs: from the request's delivery, without the router's hold. */
    public long engineTtftMicros() {
        return ttftMicros - heldMicros;
    }

    /** Job completion time: arrival → last token. */
    public long jctMicros() {
        return finishMicros - request.arrivalMicros();
    }
}
