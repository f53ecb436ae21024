package io.tierroute.fitter.regression;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LatencyRegressionAccuracyTest {

    @Test
    void everyAlphaWithinFivePercentAt10kRowsWithNoiseAndOutliers() {
        double worst = 0;
        double[] worstPer = new double[Coefficient.COUNT];
        double[] maxRelSe = new double[Coefficient.COUNT];
        for (long seed = 1; seed <= 20; seed++) {
            SyntheticRows gen = new SyntheticRows(seed);
            LatencyRegression reg = new LatencyRegression(RegressionConfig.defaults().withForgetting(1.0));
            for (int i = 0; i < 10_000; i++) {
                assertThat(reg.update(gen.next())).isEqualTo(UpdateOutcome.ACCEPTED);
            }
            LatencyFit fit = reg.fit();
            assertThat(fit.qSlackValue()).as("seed %d: Q_slack", seed).isEqualTo(SyntheticRows.TRUE_SLACK);
            for (Coefficient c : Coefficient.values()) {
                double truth = SyntheticRows.TRUTH[c.ordinal()];
                double rel = Math.abs(fit.value(c) - truth) / truth;
                worstPer[c.ordinal()] = Math.max(worstPer[c.ordinal()], rel);
                worst = Math.max(worst, rel);
                maxRelSe[c.ordinal()] = Math.max(maxRelSe[c.ordinal()], fit.get(c).stdError().getAsDouble() / truth);
                assertThat(rel).as("seed %d: %s = %g (truth %g, se %g)", seed, c, fit.value(c), truth,
                    fit.get(c).stdError().getAsDouble()).isLessThan(0.05);
            }
            assertThat(fit.r2()).as("seed %d", seed).isBetween(0.5, 1.0);
        }
        StringBuilder sb = new StringBuilder("latency regression, 20 seeds x 10k rows, 10% noise, 1% x10 outliers:");
        for (Coefficient c : Coefficient.values()) {
            sb.append(String.format(" %s %.2f%%", c, 100 * worstPer[c.ordinal()]));
        }
        sb.append(String.format("; worst %.2f%%; largest relative SE:", 100 * worst));
        for (Coefficient c : Coefficient.values()) {
            sb.append(String.format(" %s %.2f%%", c, 100 * maxRelSe[c.ordinal()]));
        }
        System.out.println(sb);
    }
}
