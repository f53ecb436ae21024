package io.tierroute.fitter.regression;

/**
 * The exponentially weighted normal equations of one candidate design (one Q_slack): with row weight
 * w_i = h_i / v_i² (Huber IRLS weight over the noise scale squared) and forgetting λ,
 * <pre>
 *   A     = Σ λ^(n−i)  w_i x_i x_iᵀ           (information matrix, solved for the coefficients)
 *   b     = Σ λ^(n−i)  w_i x_i y_i
 *   bread = Σ λ^(n−i)  ψ'(u_i)/v_i² x_i x_iᵀ  (sandwich covariance, "bread")
 *   meat  = Σ λ^(2(n−i)) ψ(u_i)²/v_i² x_i x_iᵀ (sandwich covariance, "meat")
 * </pre>
 * Only the upper triangle is accumulated; {@link #symmetric} fills the rest.
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

    void decay(double lambda) {
        if (lambda == 1.0) {
            return;
        }
        double lambda2 = lambda * lambda;
        for (int i = 0; i < p; i++) {
            b[i] *= lambda;
            for (int j = i; j < p; j++) {
                a[i][j] *= lambda;
                bread[i][j] *= lambda;
                meat[i][j] *= lambda2;
            }
        }
    }

    void add(double[] x, double y, double w, double breadWeight, double meatWeight) {
        for (int i = 0; i < p; i++) {
            double xi = x[i];
            if (xi == 0) {
                continue;
            }
            b[i] += w * xi * y;
            double wxi = w * xi;
            double bxi = breadWeight * xi;
            double mxi = meatWeight * xi;
            for (int j = i; j < p; j++) {
                double xj = x[j];
                a[i][j] += wxi * xj;
                bread[i][j] += bxi * xj;
                meat[i][j] += mxi * xj;
            }
        }
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
