package io.tierroute.sim.policy;

/**
 * An engine's completion log for one request (what {@code tierroute.completions} carries): the
 * realised phases, from which the fitter learns the cost model's coefficients.
 *
 * @param request         the request
 * @param worker          where it ran
 * @param queueWaitMicros arrival → first scheduled (includes waiting for its tier loads to start)
 * @param tierLoadMicros  time spent loading cached blocks from slower tiers into HBM
 * @param prefillMicros   first scheduled → first token, minus the tier-load time
 * @param decodeMicros    first token → finish
 * @param ttftMicros      arrival → first token
 * @param outputTokens    tokens generated
 * @param hitTokens       per tier ordinal, prompt tokens served from that tier's cache (Σ ≤ ISL − 1)
 * @param computedTokens  prompt tokens computed (recomputation after preemption included)
 * @param preemptions     times the request was preempted (recompute)
 * @param finishMicros    virtual time of the last token
 */
public record Completion(SimRequest request, int worker, long queueWaitMicros, long tierLoadMicros,
                         long prefillMicros, long decodeMicros, long ttftMicros, int outputTokens,
                         int[] hitTokens, long computedTokens, int preemptions, long finishMicros) {

    /** Job completion time: arrival → last token. */
    public long jctMicros() {
        return finishMicros - request.arrivalMicros();
    }
}
