package io.tierroute.fitter.regression;

/**
 * The exponentially weighted normal equations of one candidate design (one Q_slack), as solved: with
 * row weight w_i = h_i / v_i² (Huber IRLS weight over the noise scale squared) and forgetting λ,
 * <pre>
 *   A     = Σ λ^(n−i)  w_i x_i x_iᵀ           (information matrix, solved for the coefficients)
 *   b     = Σ λ^(n−i)  w_i x_i y_i
 *   bread = Σ λ^(n−i)  ψ'(u_i)/v_i² x_i x_iᵀ  (sandwich covariance, "bread")
 *   meat  = Σ λ^(2(n−i)) ψ(u_i)²/v_i² x_i x_iᵀ (sandwich covariance, "meat")
 * </pre>
 * Upper triangles only ({@link #symmetric} fills the rest). The running sums of all candidates live in
 * {@link CandidateSums}, which writes them here before a solve; {@link #coef} is the candidate's latest
 * solution, the reference new rows are weighted against.
 */
final class WeightedGram {
    final int p;
    final double[][] a;
    final double[] b;
    final double[][] bread;
    final double[][] meat;
    /** Latest NNLS solution in raw units. */
    double[] coef;

    WeightedGram(int p) {
        this.p = p;
        a = new double[p][p];
        b = new double[p];
        bread = new double[p][p];
        meat = new double[p][p];
        coef = new double[p];
    }

    /** A copy of the latest solution (the sums are rewritten before every solve). */
    WeightedGram copyCoefficients() {
        WeightedGram c = new WeightedGram(p);
        System.arraycopy(coef, 0, c.coef, 0, p);
        return c;
    }

    static double[][] symmetric(double[][] upper) {
        int p = upper.length;
        double[][] full = new double[p][p];
        for (int i = 0; i < p; i++) {
            for (int j = i; j < p; j++) {
                full[i][j] = upper[i][j];
                full[j][i] = upper[i][j];
            }
        }
        return full;
    }

    double predict(double[] x) {
        double s = 0;
        for (int i = 0; i < p; i++) {
            s += coef[i] * x[i];
        }
        return s;
    }
}
