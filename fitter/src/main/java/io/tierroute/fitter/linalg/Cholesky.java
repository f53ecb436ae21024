package io.tierroute.fitter.linalg;

/** Solves small symmetric positive definite systems by Cholesky factorisation. */
public final class Cholesky {
    private Cholesky() {
    }

    /**
     * Solves {@code (a + ridge*I) x = b}. Returns null if the matrix is not numerically positive
     * definite (a pivot <= 0 or non-finite), so the caller can fall back to a stronger regulariser.
     */
    public static double[] solve(double[][] a, double[] b, double ridge) {
        int n = b.length;
        double[][] l = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j <= i; j++) {
                double sum = a[i][j] + (i == j ? ridge : 0);
                for (int k = 0; k < j; k++) {
                    sum -= l[i][k] * l[j][k];
                }
                if (i == j) {
                    if (!(sum > 0) || !Double.isFinite(sum)) {
                        return null;
                    }
                    l[i][i] = Math.sqrt(sum);
                } else {
                    l[i][j] = sum / l[j][j];
                }
            }
        }
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            double sum = b[i];
            for (int k = 0; k < i; k++) {
                sum -= l[i][k] * y[k];
            }
            y[i] = sum / l[i][i];
        }
        double[] x = new double[n];
        for (int i = n - 1; i >= 0; i--) {
            double sum = y[i];
            for (int k = i + 1; k < n; k++) {
                sum -= l[k][i] * x[k];
            }
            x[i] = sum / l[i][i];
        }
        for (double v : x) {
            if (!Double.isFinite(v)) {
                return null;
            }
        }
        return x;
    }
}
