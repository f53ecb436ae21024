package io.tierroute.fitter.linalg;

/**
 * Least squares with sign constraints, solved on the normal equations: minimise
 * {@code f(x) = x^T A x / 2 - b^T x} subject to {@code x_j >= 0} for every constrained j (the others are
 * free). This is the Lawson-Hanson active-set algorithm (Solving Least Squares Problems, 1974, ch. 23)
 * written for the Gram matrix {@code A = X^T W X} and {@code b = X^T W y} instead of X itself, which is
 * what an online estimator keeps.
 *
 * <p>The caller passes an equilibrated system (unit diagonal, see {@code LatencyRegression}); every
 * sub-system {@code A_PP z = b_P} is solved by Cholesky with a tiny ridge {@code ridge} (relative to the
 * unit diagonal), escalated by factors of 100 if the factorisation fails, so collinear columns get a
 * finite minimum-norm-like split rather than NaN. The KKT conditions at the returned point hold to the
 * tolerance: {@code grad_j = (b - A x)_j <= tol} for constrained j at zero, {@code |grad_j| ~ 0} on the
 * passive set.
 */
public final class Nnls {
    private Nnls() {
    }

    /**
     * @param a symmetric positive semi-definite p x p matrix (not modified)
     * @param b right-hand side, length p
     * @param constrained constrained[j] true means x_j >= 0
     * @param ridge Tikhonov term added to every sub-system diagonal (e.g. 1e-10 for a unit-diagonal A)
     * @return the solution, every entry finite
     */
    public static double[] solve(double[][] a, double[] b, boolean[] constrained, double ridge) {
        int p = b.length;
        double bMax = 0;
        for (double v : b) {
            bMax = Math.max(bMax, Math.abs(v));
        }
        double tol = 1e-11 * Math.max(1.0, bMax);
        boolean[] passive = new boolean[p];
        double[] x = new double[p];
        for (int j = 0; j < p; j++) {
            passive[j] = !constrained[j];
        }
        if (anyPassive(passive)) {
            double[] z = subSolve(a, b, passive, ridge);
            for (int j = 0; j < p; j++) {
                x[j] = passive[j] ? z[j] : 0;
            }
        }
        int maxOuter = 3 * p + 10;
        for (int outer = 0; outer < maxOuter; outer++) {
            double[] grad = gradient(a, b, x);
            int enter = -1;
            double best = tol;
            for (int j = 0; j < p; j++) {
                if (!passive[j] && grad[j] > best) {
                    best = grad[j];
                    enter = j;
                }
            }
            if (enter < 0) {
                break;
            }
            passive[enter] = true;
            for (int inner = 0; inner < 3 * p + 10; inner++) {
                double[] z = subSolve(a, b, passive, ridge);
                boolean feasible = true;
                for (int j = 0; j < p; j++) {
                    if (passive[j] && constrained[j] && z[j] <= 0) {
                        feasible = false;
                        break;
                    }
                }
                if (feasible) {
                    for (int j = 0; j < p; j++) {
                        x[j] = passive[j] ? z[j] : 0;
                    }
                    break;
                }
                double step = 1.0;
                for (int j = 0; j < p; j++) {
                    if (passive[j] && constrained[j] && z[j] <= 0) {
                        double denom = x[j] - z[j];
                        double s = denom > 0 ? x[j] / denom : 0;
                        step = Math.min(step, s);
                    }
                }
                for (int j = 0; j < p; j++) {
                    if (passive[j]) {
                        x[j] += step * (z[j] - x[j]);
                    }
                }
                for (int j = 0; j < p; j++) {
                    if (passive[j] && constrained[j] && x[j] <= tol * 1e-3) {
                        passive[j] = false;
                        x[j] = 0;
                    }
                }
                if (!passive[enter]) {
                    // The entering variable was driven straight back to zero: numerically it cannot help.
                    break;
                }
            }
        }
        for (int j = 0; j < p; j++) {
            if (!Double.isFinite(x[j])) {
                x[j] = 0;
            }
            if (constrained[j] && x[j] < 0) {
                x[j] = 0;
            }
        }
        return x;
    }

    private static boolean anyPassive(boolean[] passive) {
        for (boolean b : passive) {
            if (b) {
                return true;
            }
        }
        return false;
    }

    static double[] gradient(double[][] a, double[] b, double[] x) {
        int p = b.length;
        double[] g = new double[p];
        for (int i = 0; i < p; i++) {
            double s = b[i];
            for (int j = 0; j < p; j++) {
                s -= a[i][j] * x[j];
            }
            g[i] = s;
        }
        return g;
    }

    /** Solves A_PP z_P = b_P; entries outside P are 0. */
    private static double[] subSolve(double[][] a, double[] b, boolean[] passive, double ridge) {
        int p = b.length;
        int[] idx = new int[p];
        int m = 0;
        for (int j = 0; j < p; j++) {
            if (passive[j]) {
                idx[m++] = j;
            }
        }
        double[][] sub = new double[m][m];
        double[] rhs = new double[m];
        for (int i = 0; i < m; i++) {
            rhs[i] = b[idx[i]];
            for (int j = 0; j < m; j++) {
                sub[i][j] = a[idx[i]][idx[j]];
            }
        }
        double r = Math.max(ridge, 1e-300);
        double[] z = null;
        for (int attempt = 0; attempt < 12 && z == null; attempt++) {
            z = Cholesky.solve(sub, rhs, r);
            r *= 100;
        }
        double[] full = new double[p];
        if (z != null) {
            for (int i = 0; i < m; i++) {
                full[idx[i]] = z[i];
            }
        }
        return full;
    }
}
