package io.tierroute.fitter.linalg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Lawson-Hanson on the normal equations agrees with brute force over every active set. */
class NnlsTest {

    private static double objective(double[][] a, double[] b, double[] x) {
        double f = 0;
        for (int i = 0; i < b.length; i++) {
            f -= b[i] * x[i];
            for (int j = 0; j < b.length; j++) {
                f += 0.5 * x[i] * a[i][j] * x[j];
            }
        }
        return f;
    }

    private static double bruteForce(double[][] a, double[] b, boolean[] constrained) {
        int p = b.length;
        double best = Double.POSITIVE_INFINITY;
        for (int mask = 0; mask < (1 << p); mask++) {
            boolean ok = true;
            for (int j = 0; j < p; j++) {
                if (!constrained[j] && (mask & (1 << j)) == 0) {
                    ok = false; // free variables are always in the model
                }
            }
            if (!ok) {
                continue;
            }
            int m = Integer.bitCount(mask);
            int[] idx = new int[m];
            int k = 0;
            for (int j = 0; j < p; j++) {
                if ((mask & (1 << j)) != 0) {
                    idx[k++] = j;
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
            double[] z = m == 0 ? new double[0] : Cholesky.solve(sub, rhs, 0);
            if (z == null) {
                continue;
            }
            double[] x = new double[p];
            for (int i = 0; i < m; i++) {
                if (constrained[idx[i]] && z[i] < 0) {
                    ok = false;
                }
                x[idx[i]] = z[i];
            }
            if (ok) {
                best = Math.min(best, objective(a, b, x));
            }
        }
        return best;
    }

    @Test
    void matchesBruteForceOnRandomProblems() {
        for (long seed = 1; seed <= 300; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            int p = 2 + rnd.nextInt(6);
            int n = p + 3 + rnd.nextInt(20);
            double[][] xs = new double[n][p];
            double[] y = new double[n];
            for (int r = 0; r < n; r++) {
                for (int j = 0; j < p; j++) {
                    xs[r][j] = rnd.nextGaussian();
                }
                y[r] = rnd.nextGaussian() * 3;
            }
            double[][] a = new double[p][p];
            double[] b = new double[p];
            for (int r = 0; r < n; r++) {
                for (int i = 0; i < p; i++) {
                    b[i] += xs[r][i] * y[r];
                    for (int j = 0; j < p; j++) {
                        a[i][j] += xs[r][i] * xs[r][j];
                    }
                }
            }
            boolean[] constrained = new boolean[p];
            for (int j = 0; j < p; j++) {
                constrained[j] = rnd.nextDouble() < 0.8;
            }
            double[] x = Nnls.solve(a, b, constrained, 0);
            for (int j = 0; j < p; j++) {
                assertThat(Double.isFinite(x[j])).isTrue();
                if (constrained[j]) {
                    assertThat(x[j]).as("seed %d", seed).isGreaterThanOrEqualTo(0);
                }
            }
            double expected = bruteForce(a, b, constrained);
            assertThat(objective(a, b, x)).as("seed %d", seed)
                .isCloseTo(expected, org.assertj.core.data.Offset.offset(1e-8 * Math.max(1, Math.abs(expected))));
        }
    }

    @Test
    void singularSystemGivesFiniteAnswer() {
        double[][] a = {{1, 1}, {1, 1}};
        double[] x = Nnls.solve(a, new double[] {2, 2}, new boolean[] {true, true}, 1e-10);
        assertThat(x[0] + x[1]).isCloseTo(2, org.assertj.core.data.Offset.offset(1e-6));
        double[][] inv = SymmetricEigen.of(a).regularisedInverse(1e-12);
        for (double[] row : inv) {
            for (double v : row) {
                assertThat(Double.isFinite(v)).isTrue();
            }
        }
    }

    @Test
    void eigenDecompositionReconstructsInverse() {
        double[][] a = {{4, 1, 0.5}, {1, 3, 0.2}, {0.5, 0.2, 2}};
        double[][] inv = SymmetricEigen.of(a).regularisedInverse(1e-15);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                double s = 0;
                for (int k = 0; k < 3; k++) {
                    s += a[i][k] * inv[k][j];
                }
                assertThat(s).isCloseTo(i == j ? 1 : 0, org.assertj.core.data.Offset.offset(1e-12));
            }
        }
    }
}
