package io.tierroute.fitter.regression;

/**
 * The cost-model coefficients the latency regression fits (DESIGN.md §3), in feature order. Each
 * coefficient multiplies one regressor built from a {@link LatencyObservation}; all are constrained to
 * be >= 0. Sign convention: the two bonuses B_wf and B_tools enter the cost with a minus sign, so their
 * regressors are the NEGATED features, and the fitted alpha_wf, alpha_wf2 are the positive numbers the
 * cost model subtracts.
 */
public enum Coefficient {
    /** µs/token; regressor {@code p_eff + kvOverflowTokens} (C_kv shares alpha_p). */
    ALPHA_P("alphaP", null),
    /** µs/token²; regressor {@code (ISL² − hit²)/2}. */
    ALPHA_P2("alphaP2", ALPHA_P),
    /** µs/token; regressor {@code Σ d̂} over in-flight requests. */
    ALPHA_D("alphaD", null),
    /** µs/token²; regressor {@code Σ [ctx·d̂ + d̂²/2]}. */
    ALPHA_D2("alphaD2", ALPHA_D),
    /** dimensionless; regressor: physical tier transfer time, µs, summed over non-HBM tiers. */
    ALPHA_T("alphaT", null),
    /** µs/request²; regressor {@code max(0, Q − Q_slack)²}. */
    ALPHA_HO("alphaHo", null),
    /** µs; regressor {@code −affinityDecay} (negated, see class comment). */
    ALPHA_WF("alphaWf", null),
    /** µs; regressor {@code −expectedToolHitFraction} (negated, see class comment). */
    ALPHA_WF2("alphaWf2", null);

    private final String snapshotField;
    private final Coefficient linearPartner;

    Coefficient(String snapshotField, Coefficient linearPartner) {
        this.snapshotField = snapshotField;
        this.linearPartner = linearPartner;
    }

    /**
     * For a quadratic term, the linear coefficient that carries its share when the regression leaves it out (its
     * column reproduced by the others, {@code LatencyRegression.MAX_VARIANCE_INFLATION}); null for any other.
     */
    public Coefficient linearPartner() {
        return linearPartner;
    }

    /** Name of the ParameterSnapshot field this coefficient goes into. */
    public String snapshotField() {
        return snapshotField;
    }

    /** Number of coefficients (without the optional intercept). */
    public static final int COUNT = values().length;
}
