package io.tierroute.fitter.regression;

/**
 * Configuration of {@link LatencyRegression}.
 *
 * @param forgetting λ_f in (0, 1]: every accepted row multiplies the past sums by λ_f (1 = no forgetting)
 * @param huberK Huber threshold c on standardised residuals (1.345 gives 95 % Gaussian efficiency)
 * @param rejectK gross-outlier cut: rows with |u| above it get weight 0 (default 8; +Infinity = pure Huber)
 * @param intercept fit a free (unconstrained) intercept as a ninth coefficient
 * @param maxQSlack profile Q_slack over 0..maxQSlack (one regression per candidate)
 * @param refitInterval re-solve every candidate (NNLS), re-estimate the robust scale and re-select Q_slack
 *     every this many accepted rows
 * @param madWindow number of recent standardised residuals the running MAD is taken over
 * @param burnIn rows before robust weighting starts (plain least squares until then)
 * @param varianceModel noise model: residual standardisation and WLS weights
 * @param ridge Tikhonov term, relative to the equilibrated (unit) diagonal, in every NNLS sub-solve
 * @param eigenFloor eigenvalues of the equilibrated information matrix below eigenFloor·max are raised to
 *     it before inversion for the standard errors
 */
public record RegressionConfig(
        double forgetting,
        double huberK,
        double rejectK,
        boolean intercept,
        int maxQSlack,
        int refitInterval,
        int madWindow,
        int burnIn,
        VarianceModel varianceModel,
        double ridge,
        double eigenFloor) {

    /** Fraction of weight old rows keep after the tracking horizon (see {@link #withTrackingHorizon}). */
    public static final double HORIZON_RESIDUAL_WEIGHT = 0.01;

    public RegressionConfig {
        if (!(forgetting > 0 && forgetting <= 1)) {
            throw new IllegalArgumentException("forgetting must be in (0, 1]: " + forgetting);
        }
        if (!(huberK > 0) || !Double.isFinite(huberK)) {
            throw new IllegalArgumentException("huberK must be > 0: " + huberK);
        }
        if (!(rejectK > huberK)) {
            throw new IllegalArgumentException("rejectK must be > huberK: " + rejectK);
        }
        if (maxQSlack < 0 || maxQSlack > 64) {
            throw new IllegalArgumentException("maxQSlack must be in 0..64: " + maxQSlack);
        }
        if (refitInterval < 1 || madWindow < 8 || burnIn < 1) {
            throw new IllegalArgumentException("refitInterval >= 1, madWindow >= 8, burnIn >= 1 required");
        }
        if (varianceModel == null) {
            throw new IllegalArgumentException("varianceModel must not be null");
        }
        if (!(ridge >= 0) || !(eigenFloor > 0)) {
            throw new IllegalArgumentException("ridge >= 0 and eigenFloor > 0 required");
        }
    }

    /**
     * Defaults: λ_f = 0.9995 (memory ≈ 2000 rows, 1 % weight left after ≈ 9200), Huber c = 1.345,
     * gross-outlier cut 8 (a Gaussian residual passes it with probability 1 − 1e-15), no
     * intercept, Q_slack in 0..16, refit every 16 rows, MAD over 256 residuals, 64 rows of burn-in,
     * proportional noise, ridge 1e-10, eigenvalue floor 1e-12.
     */
    public static RegressionConfig defaults() {
        return new RegressionConfig(0.9995, 1.345, 8.0, false, 16, 16, 256, 64, VarianceModel.PROPORTIONAL, 1e-10, 1e-12);
    }

    public RegressionConfig withForgetting(double lambda) {
        return new RegressionConfig(lambda, huberK, rejectK, intercept, maxQSlack, refitInterval, madWindow, burnIn,
            varianceModel, ridge, eigenFloor);
    }

    /**
     * Sets λ_f so that rows older than {@code rows} accepted rows keep at most
     * {@link #HORIZON_RESIDUAL_WEIGHT} (1 %) of their weight: λ_f = 0.01^(1/rows). A step change in a true
     * coefficient is then tracked to within about 1 % of the step (plus noise) after {@code rows} rows; Huber downweighting of the first post-step rows (their residuals are large until the fit moves) slows this somewhat, see the README.
     */
    public RegressionConfig withTrackingHorizon(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("rows must be >= 1");
        }
        return withForgetting(Math.pow(HORIZON_RESIDUAL_WEIGHT, 1.0 / rows));
    }

    public RegressionConfig withIntercept(boolean on) {
        return new RegressionConfig(forgetting, huberK, rejectK, on, maxQSlack, refitInterval, madWindow, burnIn,
            varianceModel, ridge, eigenFloor);
    }

    public RegressionConfig withVarianceModel(VarianceModel model) {
        return new RegressionConfig(forgetting, huberK, rejectK, intercept, maxQSlack, refitInterval, madWindow, burnIn,
            model, ridge, eigenFloor);
    }

    /** Number of regression coefficients (8, or 9 with the intercept). */
    public int dimension() {
        return Coefficient.COUNT + (intercept ? 1 : 0);
    }
}
