package io.tierroute.jobs.ingest;

import io.tierroute.jobs.serde.RowTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * The fields of a {@code RoutingDecision} the join and the fitting need: the chosen worker's cost
 * regressors (tier transfer time summed over tiers) and the request features of the output-length
 * model. Boxed fields are null when unknown.
 */
@TypeInfo(RowTypeInfo.OfDecision.class)
public class DecisionRow {
    public String requestId;
    public String scope;
    public String worker;
    public long timestampMs;
    public double pEffTokens;
    /** Tokens priced at α_p beyond p_eff: KV overflow (C_kv) plus the queued prefill ahead (C_queue). */
    public double kvOverflowTokens;
    public double recomputeQuadratic;
    public double inflightDecodeTokens;
    public double inflightDecodeQuadratic;
    public double tierTransferUs;
    public int queueLength;
    public double affinityDecay;
    public double expectedToolHitFraction;
    /** Time since the workflow's previous step, ms; null without a previous step. */
    public Long idleSinceLastStepMs;
    public int isl;
    public String model;
    public String lora;
    public Integer stepIndex;
    public String expectedTool;
    public int maxTokens;
    public Integer outputHint;
    public long prefixGroupId;
    public Integer previousStepOutputTokens;
    public int partition;
    public long offset;
    // The admission wait's inputs (KvWaitRow); NaN / -1 = unknown (a row restored from state written before them).
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

    public DecisionRow() {}
}
