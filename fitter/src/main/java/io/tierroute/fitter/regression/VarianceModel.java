package io.tierroute.fitter.regression;

/** How the noise scale of a row depends on its size; sets the residual standardisation and WLS weight. */
public enum VarianceModel {
    /** Homoscedastic: every row's noise has the same scale (v = 1). */
    CONSTANT,
    /**
     * Noise proportional to the prediction (v = max(ŷ, floor)), the usual case for latencies: a 10 %
     * jitter on a 100 ms prefill is 10 ms, on a 1 ms one 0.1 ms. Rows are weighted 1/v² and residuals
     * standardised as relative errors.
     */
    PROPORTIONAL
}
