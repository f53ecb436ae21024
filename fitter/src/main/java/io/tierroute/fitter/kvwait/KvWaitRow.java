package io.tierroute.fitter.kvwait;

import io.tierroute.fitter.regression.LatencyObservation;
import io.tierroute.schemas.snapshot.SnapshotParameter;

/**
 * What one completed request says about the admission wait: its decision's features on the chosen worker and what it
 * realised there. Every row counts for k (as a control when its W is 0); only rows with two or more output tokens and
 * some KV resident count for the decode step.
 *
 * @param eventTimeMs           the completion's event time, ms since epoch
 * @param kvUsedTokens          {@code KV_used(w)} at decision, tokens
 * @param predictedOutputTokens {@code d̂(r)} at decision, tokens
 * @param missingKvTokens       {@code m}: the KV overflow at decision less r's prefix held in HBM there, tokens
 * @param inflightDecodeTokens  {@code Σ d̂(r')} over w's requests in flight at decision, tokens
 * @param inFlight              {@code |A(w)|} at decision
 * @param predictedPrefillUs    {@code C_prefill} at decision, µs
 * @param predictedQueueUs      {@code C_queue} at decision, µs
 * @param outputTokens          output tokens realised
 * @param decodeUs              decode time realised (first token to finish), µs
 * @param queueWaitUs           queue wait realised (arrival at the worker to admission), µs
 * @param prefillUs             prefill time realised, µs
 */
public record KvWaitRow(long eventTimeMs, double kvUsedTokens, double predictedOutputTokens, double missingKvTokens,
                        double inflightDecodeTokens, int inFlight, double predictedPrefillUs, double predictedQueueUs,
                        int outputTokens, double decodeUs, double queueWaitUs, double prefillUs) {

    /**
     * Whether the row can be used: every figure finite, ≥ 0 and within the latency regression's sanity caps
     * ({@link LatencyObservation}: times, tokens, tokens held, requests) — {@code d̂} may be 0 where it is unknown: such
     * a row still counts for k; the decode step needs one token or more, {@link KvWaitFitter}. This is the estimator's
     * own guard: one infinite figure used to turn the whole fit into no fit, or {@code k} into NaN (which the gate
     * rejects, the whole snapshot with it); one finite but impossible one (a queue wait of 1.7e15 µs, a missing
     * timestamp taken as the epoch) drove k to 0.
     */
    public boolean usable() {
        return within(LatencyObservation.MAX_REALISED_US, predictedPrefillUs, predictedQueueUs, decodeUs, queueWaitUs,
                prefillUs)
            && within(LatencyObservation.MAX_TOKENS, predictedOutputTokens, missingKvTokens)
            && within(LatencyObservation.MAX_INFLIGHT_TOKENS, kvUsedTokens, inflightDecodeTokens)
            && inFlight >= 0 && inFlight <= LatencyObservation.MAX_QUEUE && outputTokens >= 0;
    }

    private static boolean within(double max, double... figures) {
        for (double v : figures) {
            if (!(v >= 0 && v <= max)) { // NaN and ±∞ fail too
                return false;
            }
        }
        return true;
    }

    /**
     * Whether its decode time per predicted token is past τ₀'s bound in the gate ({@link SnapshotParameter#DECODE_STEP_US},
     * 1 s): no engine step takes that long, so {@code d̂} was far below the output (a client's 1-token hint on a long
     * answer). Such a row is no decode step ({@link KvWaitFitter}); it still counts for k. Callers count it.
     */
    public boolean decodeTimePastTauZerosBound() {
        return predictedOutputTokens >= 1 && decodeUs / predictedOutputTokens > SnapshotParameter.DECODE_STEP_US.upper();
    }

    /** The wait this request realised beyond what C_prefill and C_queue predicted, µs (≥ 0). */
    double excessWaitUs() {
        return Math.max(0.0, queueWaitUs + prefillUs - predictedPrefillUs - predictedQueueUs);
    }
}
