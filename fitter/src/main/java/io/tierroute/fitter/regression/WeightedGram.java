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
 *
 * <p>The forgetting is applied lazily: {@link #decay} multiplies two scalars (the factors the stored sums
 * are behind by, λ for A, b, bread and λ² for meat), {@link #add} divides the new row's weights by them,
 * and {@link #normalize} folds them into the stored sums; the stored arrays hold the true sums only
 * after {@link #normalize}, which every reader calls first. Same sums up to rounding, without touching
 * every entry of the four matrices on every row (that was the larger half of the per-row cost).
 */
final class WeightedGram {
    final int p;
    final double[][] a;
    final double[] b;
    final double[][] bread;
    final double[][] meat;
    /** Latest NNLS solution in raw units. */
    double[] coef;
    /** True sums = stored × pending (A, b, bread) and stored × pending2 (meat). */
    private double pending = 1.0;
    private double pending2 = 1.0;

    WeightedGram(int p) {
        this.p = p;
        a = new double[p][p];
        b = new double[p];
        bread = new double[p][p];
        meat = new double[p][p];
        coef = new double[p];
    }

    /** An independent copy (sums, pending forgetting and the latest solution). */
    WeightedGram copy() {
        WeightedGram c = new WeightedGram(p);
        for (int i = 0; i < p; i++) {
            System.arraycopy(a[i], 0, c.a[i], 0, p);
            System.arraycopy(bread[i], 0, c.bread[i], 0, p);
            System.arraycopy(meat[i], 0, c.meat[i], 0, p);
        }
        System.arraycopy(b, 0, c.b, 0, p);
        System.arraycopy(coef, 0, c.coef, 0, p);
        c.pending = pending;
        c.pending2 = pending2;
        return c;
    }

    void decay(double lambda) {
        if (lambda == 1.0) {
            return;
        }
        pending *= lambda;
        pending2 *= lambda * lambda;
        if (pending2 < 1e-100) {
            normalize(); // keep 1/pending far from overflow between readers
        }
    }

    /** Folds the pending forgetting into the stored sums: afterwards a, b, bread, meat are the true sums. */
    void normalize() {
        if (pending == 1.0 && pending2 == 1.0) {
            return;
        }
        double f = pending;
        double f2 = pending2;
        for (int i = 0; i < p; i++) {
            b[i] *= f;
            for (int j = i; j < p; j++) {
                a[i][j] *= f;
                bread[i][j] *= f;
                meat[i][j] *= f2;
            }
        }
        pending = 1.0;
        pending2 = 1.0;
    }

    void add(double[] x, double y, double w, double breadWeight, double meatWeight) {
        if (pending != 1.0 || pending2 != 1.0) {
            w /= pending;
            breadWeight /= pending;
            meatWeight /= pending2;
        }
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
