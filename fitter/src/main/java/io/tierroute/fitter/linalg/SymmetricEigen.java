package io.tierroute.fitter.linalg;

/**
 * Eigen-decomposition of a small real symmetric matrix by the cyclic Jacobi method (Golub and Van Loan
 * §8.5). For the 8x8..9x9 matrices of the latency regression this converges in a handful of sweeps and
 * is accurate to a few ulps relative to the largest eigenvalue; it never produces NaN from finite input.
 */
public final class SymmetricEigen {
    private final double[] values;
    private final double[][] vectors; // columns are eigenvectors

    private SymmetricEigen(double[] values, double[][] vectors) {
        this.values = values;
        this.vectors = vectors;
    }

    /** Decomposes {@code a} (only read; must be symmetric and finite). */
    public static SymmetricEigen of(double[][] a) {
        int n = a.length;
        double[][] m = new double[n][];
        for (int i = 0; i < n; i++) {
            m[i] = a[i].clone();
        }
        double[][] v = new double[n][n];
        for (int i = 0; i < n; i++) {
            v[i][i] = 1.0;
        }
        for (int sweep = 0; sweep < 100; sweep++) {
            double off = 0;
            double diag = 0;
            for (int i = 0; i < n; i++) {
                diag += m[i][i] * m[i][i];
                for (int j = i + 1; j < n; j++) {
                    off += m[i][j] * m[i][j];
                }
            }
            if (off <= 1e-30 * diag || off == 0) {
                break;
            }
            for (int p = 0; p < n; p++) {
                for (int q = p + 1; q < n; q++) {
                    double apq = m[p][q];
                    if (apq == 0) {
                        continue;
                    }
                    double theta = (m[q][q] - m[p][p]) / (2 * apq);
                    double t = Math.signum(theta) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
                    if (theta == 0) {
                        t = 1;
                    }
                    if (!Double.isFinite(t)) { // theta overflowed: rotation angle is ~0
                        t = 1 / (2 * theta);
                    }
                    double c = 1 / Math.sqrt(t * t + 1);
                    double s = t * c;
                    for (int k = 0; k < n; k++) {
                        double mkp = m[k][p];
                        double mkq = m[k][q];
                        m[k][p] = c * mkp - s * mkq;
                        m[k][q] = s * mkp + c * mkq;
                    }
                    for (int k = 0; k < n; k++) {
                        double mpk = m[p][k];
                        double mqk = m[q][k];
                        m[p][k] = c * mpk - s * mqk;
                        m[q][k] = s * mpk + c * mqk;
                    }
                    for (int k = 0; k < n; k++) {
                        double vkp = v[k][p];
                        double vkq = v[k][q];
                        v[k][p] = c * vkp - s * vkq;
                        v[k][q] = s * vkp + c * vkq;
                    }
                }
            }
        }
        double[] values = new double[n];
        for (int i = 0; i < n; i++) {
            values[i] = m[i][i];
        }
        return new SymmetricEigen(values, v);
    }

    public double[] values() {
        return values.clone();
    }

    public double maxValue() {
        double max = 0;
        for (double x : values) {
            max = Math.max(max, x);
        }
        return max;
    }

    /**
     * Regularised inverse {@code V diag(1/max(l_i, floor)) V^T} with {@code floor = relFloor * max(l)}
     * (or {@code relFloor} if every eigenvalue is <= 0). Eigenvalues below the floor (collinear or
     * unobserved directions) are raised to it, so the inverse stays finite: the affected directions
     * get a large, honest variance instead of NaN or infinity.
     */
    public double[][] regularisedInverse(double relFloor) {
        int n = values.length;
        double max = maxValue();
        double floor = max > 0 ? relFloor * max : relFloor;
        double[][] inv = new double[n][n];
        for (int k = 0; k < n; k++) {
            double inverseValue = 1 / Math.max(values[k], floor);
            for (int i = 0; i < n; i++) {
                double vik = vectors[i][k] * inverseValue;
                if (vik == 0) {
                    continue;
                }
                for (int j = 0; j < n; j++) {
                    inv[i][j] += vik * vectors[j][k];
                }
            }
        }
        return inv;
    }
}
