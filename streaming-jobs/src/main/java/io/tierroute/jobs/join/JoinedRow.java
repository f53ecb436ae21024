package io.tierroute.jobs.join;

import io.tierroute.fitter.decay.DecayObservation;
import io.tierroute.fitter.forest.OutputRow;
import io.tierroute.fitter.kvwait.KvWaitRow;
import io.tierroute.fitter.regression.LatencyObservation;
import io.tierroute.jobs.ingest.AdmissionInputs;
import io.tierroute.jobs.ingest.CostRegressors;
import io.tierroute.jobs.ingest.OutputFeatures;
import io.tierroute.jobs.serde.RowTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * One routing decision joined with its (OK) completion: the regression row, what the row says about
 * the workflow-affinity decay λ, the output-length model's training row and the admission wait's row. Serialized by {@code RowSerializers.Joined} (its {@code @TypeInfo}); it is also
 * what the fitting operator keeps as its bounded recent sample.
 */
@TypeInfo(RowTypeInfo.OfJoined.class)
public class JoinedRow {
    public String scope;
    public String worker;
    /** Event time of the completion, ms. */
    public long eventTimeMs;
    /** Worker-side time to first token, µs. */
    public double realisedUs;
    public final CostRegressors regressors;
    /**
     * Idle time since the workflow's previous step, s, when the row is a λ observation
     * ({@code RequestJoinFunction.decayObservation}: a step after some idle time whose decision says what the previous
     * worker held, or, from a selector before that field, one that returned to that worker); -1 otherwise.
     */
    public double returnIdleSeconds = -1;
    /** Whether the previous context was still held ({@code DecayObservation.contextHeld}); read only with the above. */
    public boolean cacheHit;
    public final OutputFeatures request;
    public int outputTokens;
    public final AdmissionInputs admission;
    // What the completion realised of the admission wait; NaN = unknown (a completion that did not say, or a row
    // restored from state written before these fields): the fit skips the request.
    public double decodeUs = Double.NaN;
    public double queueWaitUs = Double.NaN;
    public double prefillUs = Double.NaN;

    public JoinedRow() {
        this(new CostRegressors(), new OutputFeatures(), new AdmissionInputs());
    }

    /** A row whose parts are the decision's, shared, not copied (neither side changes them after the join). */
    public JoinedRow(CostRegressors regressors, OutputFeatures request, AdmissionInputs admission) {
        this.regressors = regressors;
        this.request = request;
        this.admission = admission;
    }

    public LatencyObservation latency() {
        return regressors.observation(eventTimeMs, realisedUs);
    }

    /**
     * {@link #latency()} with an unknown α_p column at 0 (a v1 decision's queued prefill, or a cut-off decision's p_eff):
     * to check the rest is possible.
     */
    public LatencyObservation checkableLatency() {
        return regressors.checkableObservation(eventTimeMs, realisedUs);
    }

    /**
     * The λ observation: after t seconds of idle time, the workflow's previous context was still held (a hit) or not
     * (a miss). Null when the row says nothing about λ.
     */
    public DecayObservation decay() {
        if (returnIdleSeconds < 0) {
            return null;
        }
        return cacheHit ? DecayObservation.hit(returnIdleSeconds, eventTimeMs)
            : DecayObservation.miss(returnIdleSeconds, eventTimeMs);
    }

    /** The admission wait's row, or null when a field is unknown (the fit then skips the request). */
    public KvWaitRow kvWait() {
        if (!admission.known() || !Double.isFinite(decodeUs) || !Double.isFinite(queueWaitUs)
            || !Double.isFinite(prefillUs)) {
            return null;
        }
        AdmissionInputs a = admission;
        return new KvWaitRow(eventTimeMs, a.kvUsedTokens, a.predictedOutputTokens, a.missingKvTokens,
            regressors.inflightDecodeTokens, a.inFlight, a.predictedPrefillUs, a.predictedQueueUs, outputTokens,
            decodeUs, queueWaitUs, prefillUs);
    }

    public OutputRow output() {
        return request.row(outputTokens);
    }
}
