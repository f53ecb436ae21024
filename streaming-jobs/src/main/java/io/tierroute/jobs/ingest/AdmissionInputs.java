package io.tierroute.jobs.ingest;

/**
 * What the decision knew of the wait for HBM on the chosen worker: the admission wait's inputs (KvWaitRow). NaN / -1
 * = unknown: a decision of the older schema, or a row restored from state written before these fields; the fit skips
 * such a request. Part of a {@link DecisionRow} and, shared with it, of the {@code JoinedRow} the join makes of it;
 * written by {@code RowFields}.
 */
public final class AdmissionInputs {
    /** KV_used(w) at decision, tokens. */
    public double kvUsedTokens = Double.NaN;
    /** d̂(r) the cost model used, tokens. */
    public double predictedOutputTokens = Double.NaN;
    /** m: the KV overflow less r's prefix held in HBM on w, tokens ({@link MissingKv}). */
    public double missingKvTokens = Double.NaN;
    /** |A(w)| at decision, requests. */
    public int inFlight = -1;
    /** C_prefill of the chosen worker, µs. */
    public double predictedPrefillUs = Double.NaN;
    /** C_queue of the chosen worker, µs. */
    public double predictedQueueUs = Double.NaN;

    /** Whether every input is known. */
    public boolean known() {
        return inFlight >= 0 && Double.isFinite(kvUsedTokens) && Double.isFinite(predictedOutputTokens)
            && Double.isFinite(missingKvTokens) && Double.isFinite(predictedPrefillUs)
            && Double.isFinite(predictedQueueUs);
    }

    public AdmissionInputs copy() {
        AdmissionInputs c = new AdmissionInputs();
        c.kvUsedTokens = kvUsedTokens;
        c.predictedOutputTokens = predictedOutputTokens;
        c.missingKvTokens = missingKvTokens;
        c.inFlight = inFlight;
        c.predictedPrefillUs = predictedPrefillUs;
        c.predictedQueueUs = predictedQueueUs;
        return c;
    }
}
