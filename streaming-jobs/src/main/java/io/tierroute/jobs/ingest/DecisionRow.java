package io.tierroute.jobs.ingest;

import io.tierroute.jobs.serde.RowTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * The fields of a {@code RoutingDecision} the join and the fitting need: the chosen worker's cost regressors, the
 * request features of the output-length model and the admission wait's inputs, each a part the joined row shares
 * ({@code RequestJoinFunction.join}). Boxed fields are null when unknown.
 */
@TypeInfo(RowTypeInfo.OfDecision.class)
public class DecisionRow {
    public String requestId;
    public String scope;
    public String worker;
    public long timestampMs;
    public final CostRegressors regressors;
    /** Time since the workflow's previous step, ms; null without a previous step. */
    public Long idleSinceLastStepMs;
    /**
     * Prompt tokens the workflow's previous worker held on its own tiers at the decision, by the selector's index,
     * whichever worker was chosen (λ's observation); -1 when unknown: no previous step, or a selector or state from
     * before this field.
     */
    public long lastWorkerHeldTokens = -1;
    public final OutputFeatures request;
    public int partition;
    public long offset;
    public final AdmissionInputs admission;

    public DecisionRow() {
        this(new CostRegressors(), new OutputFeatures(), new AdmissionInputs());
    }

    public DecisionRow(CostRegressors regressors, OutputFeatures request, AdmissionInputs admission) {
        this.regressors = regressors;
        this.request = request;
        this.admission = admission;
    }
}
