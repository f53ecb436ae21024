package io.tierroute.fitter.regression;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The reported standard errors are honest: coverage of ±2 SE and ±3 SE over seeded repetitions. */
class LatencyRegressionCalibrationTest {

    private static double[] coverage(RegressionConfig config, int reps, int rows, long seedBase) {
        int in2 = 0;
        int in3 = 0;
        int total = 0;
        for (long seed = seedBase; seed < seedBase + reps; seed++) {
            SyntheticRows gen = new SyntheticRows(seed);
            LatencyRegression reg = new LatencyRegression(config);
            for (int i = 0; i < rows; i++) {
                reg.update(gen.next());
            }
            LatencyFit fit = reg.fit();
            for (Coefficient c : Coefficient.values()) {
                double z = Math.abs(fit.value(c) - SyntheticRows.TRUTH[c.ordinal()])
                    / fit.get(c).stdError().getAsDouble();
                in2 += z <= 2 ? 1 : 0;
                in3 += z <= 3 ? 1 : 0;
                total++;
            }
        }
        return new double[] {(double) in2 / total, (double) in3 / total};
    }

    @Test
    void standardErrorsCoverTheTruthWithoutForgetting() {
        double[] cov = coverage(RegressionConfig.defaults().withForgetting(1.0), 40, 3000, 1000);
        System.out.printf("SE calibration (lambda_f 1, 40 reps x 3000 rows, 8 coefficients): "
            + "within 2 SE %.1f%%, within 3 SE %.1f%%%n", 100 * cov[0], 100 * cov[1]);
        assertThat(cov[1]).as("share within 3 SE (seeds 1000..1039)").isGreaterThanOrEqualTo(0.95);
        assertThat(cov[0]).as("share within 2 SE (seeds 1000..1039)").isBetween(0.88, 0.995);
    }

    @Test
    void standardErrorsCoverTheTruthWithForgetting() {
        double[] cov = coverage(RegressionConfig.defaults().withTrackingHorizon(2000), 30, 6000, 2000);
        System.out.printf("SE calibration (horizon 2000 rows, 30 reps x 6000 rows): "
            + "within 2 SE %.1f%%, within 3 SE %.1f%%%n", 100 * cov[0], 100 * cov[1]);
        assertThat(cov[1]).as("share within 3 SE (seeds 2000..2029)").isGreaterThanOrEqualTo(0.95);
        assertThat(cov[0]).as("share within 2 SE (seeds 2000..2029)").isBetween(0.88, 0.995);
    }
}
