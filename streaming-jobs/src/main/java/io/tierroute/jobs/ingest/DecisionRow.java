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
     * whichever worker was chosen (λ's observation); {@link #HELD_UNSAID} from a selector or state before this field,
     * {@link #HELD_NOT_OBSERVED} when the selector said it took no observation (no previous step, one still running
     * or not completed, an approximate previous worker).
     */
    public long lastWorkerHeldTokens = HELD_UNSAID;

    /** {@link #lastWorkerHeldTokens} of a decision written before it existed: a return is judged by its completion. */
    public static final long HELD_UNSAID = -1;
    /** {@link #lastWorkerHeldTokens} of a decision whose selector took no λ observation: none. */
    public static final long HELD_NOT_OBSERVED = -2;
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
