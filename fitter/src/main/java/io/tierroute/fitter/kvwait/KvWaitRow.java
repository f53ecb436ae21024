package io.tierroute.fitter.kvwait;

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
     * Whether the row can be used: every figure finite and ≥ 0 ({@code d̂} may be 0 where it is unknown: such a row still
     * counts for k; the decode step needs one token or more, {@link KvWaitFitter}). The job builds rows from
     * validated records only, so this is the estimator's own guard: one infinite figure used to turn the whole fit into
     * no fit, or {@code k} into NaN (which the gate rejects, the whole snapshot with it).
     */
    boolean usable() {
        double[] figures = {kvUsedTokens, predictedOutputTokens, missingKvTokens, inflightDecodeTokens, predictedPrefillUs,
            predictedQueueUs, decodeUs, queueWaitUs, prefillUs};
        for (double v : figures) {
            if (!(v >= 0) || !Double.isFinite(v)) {
                return false;
            }
        }
        return inFlight >= 0 && outputTokens >= 0;
    }

    /** The wait this request realised beyond what C_prefill and C_queue predicted, µs (≥ 0). */
    double excessWaitUs() {
        return Math.max(0.0, queueWaitUs + prefillUs - predictedPrefillUs - predictedQueueUs);
    }
}
