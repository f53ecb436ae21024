package io.tierroute.fitter.regression;

/**
 * The exponentially weighted normal equations of every candidate Q_slack at once. The candidates differ
 * in one regressor only, x_ho = max(0, Q − Q_slack)², and share the row weights, so every entry not in
 * the x_ho row/column is the same sum for all of them: those are kept once (three upper triangles and b),
 * and per candidate only its x_ho row of A, bread and meat and its entry of b. Per row that is one
 * p-triangle update plus 3p + 1 multiply-adds per candidate with x_ho ≠ 0 (Q > Q_slack), instead of one
 * p-triangle update per candidate. {@link #fill} writes a candidate's full sums (in the notation of
 * {@link WeightedGram}) for solving.
 *
 * <p>The forgetting is applied lazily: {@link #decay} multiplies two scalars (λ for A, b, bread; λ² for
 * meat), {@link #add} divides the new row's weights by them, and {@link #fill} multiplies them back in;
 * they are folded into the stored sums only when they approach underflow (a function of the row count,
 * never of how often the sums are read). Not thread-safe.
 */
final class CandidateSums {
    private final int p;
    private final int ho;
    private final double[][] a;
    private final double[] b;
    private final double[][] bread;
    private final double[][] meat;
    /** Per candidate k and regressor j: Σ w x_ho(k) x_j (j = ho: Σ w x_ho(k)²), likewise for bread and meat. */
    private final double[][] hoA;
    private final double[][] hoBread;
    private final double[][] hoMeat;
    private final double[] hoB;
    private double pending = 1.0;
    private double pending2 = 1.0;

    CandidateSums(int p, int ho, int candidates) {
        this.p = p;
        this.ho = ho;
        a = new double[p][p];
        b = new double[p];
        bread = new double[p][p];
        meat = new double[p][p];
        hoA = new double[candidates][p];
        hoBread = new double[candidates][p];
        hoMeat = new double[candidates][p];
        hoB = new double[candidates];
    }

    void decay(double lambda) {
        if (lambda == 1.0) {
            return;
        }
        pending *= lambda;
        pending2 *= lambda * lambda;
        if (pending2 < 1e-100) {
            normalize(); // keep 1/pending far from overflow
        }
    }

    private void normalize() {
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
        for (int k = 0; k < hoB.length; k++) {
            hoB[k] *= f;
            for (int j = 0; j < p; j++) {
                hoA[k][j] *= f;
                hoBread[k][j] *= f;
                hoMeat[k][j] *= f2;
            }
        }
        pending = 1.0;
        pending2 = 1.0;
    }

    /**
     * Adds one row.
     *
     * @param x the regressors (x[ho] is ignored)
     * @param hol x_ho of each candidate
     * @param w the row weight in A and b; {@code breadWeight}, {@code meatWeight} those of bread and meat
     */
    void add(double[] x, double[] hol, double y, double w, double breadWeight, double meatWeight) {
        if (pending != 1.0 || pending2 != 1.0) {
            w /= pending;
            breadWeight /= pending;
            meatWeight /= pending2;
        }
        for (int i = 0; i < p; i++) {
            double xi = x[i];
            if (i == ho || xi == 0) {
                continue;
            }
            b[i] += w * xi * y;
            double wxi = w * xi;
            double bxi = breadWeight * xi;
            double mxi = meatWeight * xi;
            for (int j = i; j < p; j++) {
                if (j == ho) {
                    continue;
                }
                double xj = x[j];
                a[i][j] += wxi * xj;
                bread[i][j] += bxi * xj;
                meat[i][j] += mxi * xj;
            }
        }
        for (int k = 0; k < hoB.length; k++) {
            double h = hol[k];
            if (h == 0) {
                continue;
            }
            hoB[k] += w * h * y;
            double wh = w * h;
            double bh = breadWeight * h;
            double mh = meatWeight * h;
            double[] ak = hoA[k];
            double[] bk = hoBread[k];
            double[] mk = hoMeat[k];
            for (int j = 0; j < p; j++) {
                double xj = j == ho ? h : x[j];
                ak[j] += wh * xj;
                bk[j] += bh * xj;
                mk[j] += mh * xj;
            }
        }
    }

    /** Writes candidate {@code k}'s true sums (forgetting applied) into {@code g}'s upper triangles and b. */
    void fill(int k, WeightedGram g) {
        double f = pending;
        double f2 = pending2;
        for (int i = 0; i < p; i++) {
            g.b[i] = f * (i == ho ? hoB[k] : b[i]);
            for (int j = i; j < p; j++) {
                boolean inHo = i == ho || j == ho;
                int other = i == ho ? j : i;
                g.a[i][j] = f * (inHo ? hoA[k][other] : a[i][j]);
                g.bread[i][j] = f * (inHo ? hoBread[k][other] : bread[i][j]);
                g.meat[i][j] = f2 * (inHo ? hoMeat[k][other] : meat[i][j]);
            }
        }
    }
}
