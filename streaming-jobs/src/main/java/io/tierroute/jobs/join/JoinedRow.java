package io.tierroute.jobs.join;

import io.tierroute.fitter.decay.DecayObservation;
import io.tierroute.fitter.forest.OutputRow;
import io.tierroute.fitter.kvwait.KvWaitRow;
import io.tierroute.fitter.regression.LatencyObservation;
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
    public double pEffTokens;
    public double kvOverflowTokens;
    public double recomputeQuadratic;
    public double inflightDecodeTokens;
    public double inflightDecodeQuadratic;
    public double tierTransferUs;
    public int queueLength;
    public double affinityDecay;
    public double expectedToolHitFraction;
    /** Idle time since the workflow's previous step, s, when the request returned to that step's worker; -1 otherwise. */
    public double returnIdleSeconds = -1;
    /** Whether any prompt token was served from cache (the previous context was still held). */
    public boolean cacheHit;
    public int isl;
    public String model;
    public String lora;
    public Integer stepIndex;
    public String expectedTool;
    public int maxTokens;
    public Integer outputHint;
    public long prefixGroupId;
    public Integer previousStepOutputTokens;
    public int outputTokens;
    // The admission wait's inputs (DecisionRow, CompletionRow); NaN / -1 = unknown: a row restored from state
    // written before them, skipped by that fit.
    public double kvUsedTokens = Double.NaN;
    public double predictedOutputTokens = Double.NaN;
    public double missingKvTokens = Double.NaN;
    public int inFlight = -1;
    public double predictedPrefillUs = Double.NaN;
    public double predictedQueueUs = Double.NaN;
    public double decodeUs = Double.NaN;
    public double queueWaitUs = Double.NaN;
    public double prefillUs = Double.NaN;

    public JoinedRow() {}

    public LatencyObservation latency() {
        return new LatencyObservation(eventTimeMs, realisedUs, pEffTokens, kvOverflowTokens, recomputeQuadratic,
            inflightDecodeTokens, inflightDecodeQuadratic, tierTransferUs, queueLength, affinityDecay,
            expectedToolHitFraction);
    }

    /**
     * The λ observation: a request that returned to its workflow's previous worker after t seconds
     * found its prefix (a hit, some prompt tokens served from cache) or not (a miss). Null when the
     * row says nothing about λ.
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
        if (inFlight < 0 || !Double.isFinite(kvUsedTokens) || !Double.isFinite(predictedOutputTokens)
            || !Double.isFinite(missingKvTokens) || !Double.isFinite(predictedPrefillUs)
            || !Double.isFinite(predictedQueueUs) || !Double.isFinite(decodeUs) || !Double.isFinite(queueWaitUs)
            || !Double.isFinite(prefillUs)) {
            return null;
        }
        return new KvWaitRow(eventTimeMs, kvUsedTokens, predictedOutputTokens, missingKvTokens, inflightDecodeTokens,
            inFlight, predictedPrefillUs, predictedQueueUs, outputTokens, decodeUs, queueWaitUs, prefillUs);
    }

    public OutputRow output() {
        return new OutputRow(isl, model, lora, stepIndex, expectedTool, maxTokens, outputHint, prefixGroupId,
            previousStepOutputTokens, outputTokens);
    }
}
