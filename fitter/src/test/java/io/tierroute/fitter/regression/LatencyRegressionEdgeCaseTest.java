package io.tierroute.fitter.regression;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.fitter.Estimate;
import java.util.SplittableRandom;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

class LatencyRegressionEdgeCaseTest {

    private static void assertNoNaN(LatencyFit fit, String label) {
        for (Coefficient c : Coefficient.values()) {
            Estimate e = fit.get(c);
            assertThat(Double.isFinite(e.value())).as("%s: %s value %s", label, c, e.value()).isTrue();
            assertThat(e.value()).as("%s: %s non-negative", label, c).isGreaterThanOrEqualTo(0);
            assertThat(Double.isNaN(e.stdError().getAsDouble())).as("%s: %s SE", label, c).isFalse();
            assertThat(Double.isFinite(e.quality())).isTrue();
        }
        assertThat(Double.isFinite(fit.intercept())).isTrue();
        assertThat(Double.isNaN(fit.interceptStdError())).isFalse();
        assertThat(fit.r2()).isBetween(0.0, 1.0);
        assertThat(fit.effectiveSamples()).isGreaterThanOrEqualTo(0);
        for (double ssr : fit.profileSsr()) {
            assertThat(Double.isNaN(ssr)).isFalse();
        }
    }

    private static LatencyFit run(RegressionConfig config, int rows, LongFunction<LatencyObservation> gen) {
        LatencyRegression reg = new LatencyRegression(config);
        for (int i = 0; i < rows; i++) {
            assertThat(reg.update(gen.apply(i))).isEqualTo(UpdateOutcome.ACCEPTED);
        }
        return reg.fit();
    }

    @Test
    void degenerateDesignsNeverProduceNaN() {
        long seed = 7;
        SplittableRandom rnd = new SplittableRandom(seed);
        RegressionConfig base = RegressionConfig.defaults();
        for (RegressionConfig config : new RegressionConfig[] {base, base.withIntercept(true),
            base.withVarianceModel(VarianceModel.CONSTANT), base.withForgetting(0.9)}) {
            String cfg = "seed " + seed + ", " + config;
            // only p_eff varies, everything else zero (unobserved regressors)
            LatencyFit onlyP = run(config, 500, i -> {
                double p = 100 + rnd.nextDouble() * 1000;
                return new LatencyObservation(i, 2 * p, p, 0, 0, 0, 0, 0, 0, 0, 0);
            });
            assertNoNaN(onlyP, "onlyP " + cfg);
            assertThat(onlyP.value(Coefficient.ALPHA_P)).as(cfg).isCloseTo(2.0, org.assertj.core.data.Offset.offset(1e-6));
            assertThat(onlyP.get(Coefficient.ALPHA_WF2).stdError().getAsDouble()).isEqualTo(Double.POSITIVE_INFINITY);
            // exactly collinear regressors (Σd̂ quadratic = 1000 Σd̂) and constant affinity/tools
            LatencyFit collinear = run(config, 500, i -> {
                double d = rnd.nextDouble() * 400;
                double p = rnd.nextDouble() * 1000;
                double y = 50 * d + 1e-3 * 1000 * d + p + 1000;
                return new LatencyObservation(i, y, p, 0, 0, d, 1000 * d, 0, 3, 0.5, 0.5);
            });
            assertNoNaN(collinear, "collinear " + cfg);
            // constant target, all-constant features
            LatencyFit constant = run(config, 300, i -> new LatencyObservation(i, 1000, 10, 0, 50, 5, 500, 7, 2, 1, 1));
            assertNoNaN(constant, "constant " + cfg);
            // all-zero features, the smallest target (a target of 0 is refused: LatencyRegressionPoisonTest)
            LatencyFit zeros = run(config, 300, i -> new LatencyObservation(i, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0));
            assertNoNaN(zeros, "zeros " + cfg);
            // regressors spanning 1e0..1e12, exact (noise-free) data
            LatencyFit wide = run(config, 2000, i -> {
                double p = 1 + rnd.nextDouble() * 1e4;
                double q2 = rnd.nextDouble() * 1e12;
                double tier = rnd.nextDouble() * 1e6;
                double y = 3 * p + 1e-6 * q2 + 0.5 * tier + 10;
                return new LatencyObservation(i, y, p, 0, q2, 0, 0, tier, 0, 0, 0);
            });
            assertNoNaN(wide, "wide " + cfg);
            if (!config.intercept()) {
                assertThat(wide.value(Coefficient.ALPHA_P2)).as(cfg).isCloseTo(1e-6, org.assertj.core.data.Percentage.withPercentage(1));
            }
        }
    }

    @Test
    void fitBeforeAndDuringBurnInIsFinite() {
        LatencyRegression reg = new LatencyRegression(RegressionConfig.defaults());
        assertNoNaN(reg.fit(), "empty");
        assertThat(reg.fit().samples()).isZero();
        reg.update(new LatencyObservation(5, 1000, 100, 0, 0, 0, 0, 0, 0, 0, 0));
        LatencyFit one = reg.fit();
        assertNoNaN(one, "one row");
        assertThat(one.samples()).isEqualTo(1);
        assertThat(one.get(Coefficient.ALPHA_P).windowStartMs()).isEqualTo(5);
        assertThat(one.get(Coefficient.ALPHA_P).windowEndMs()).isEqualTo(6);
    }

    @Test
    void badRowsAreRejectedWithAReasonAndLeaveTheFitUnchanged() {
        LatencyRegression reg = new LatencyRegression(RegressionConfig.defaults());
        SyntheticRows gen = new SyntheticRows(11);
        for (int i = 0; i < 500; i++) {
            reg.update(gen.next());
        }
        double before = reg.fit().value(Coefficient.ALPHA_P);
        assertThat(reg.update(new LatencyObservation(1, Double.NaN, 1, 0, 0, 0, 0, 0, 0, 0, 0)))
            .isEqualTo(UpdateOutcome.REJECTED_NON_FINITE);
        assertThat(reg.update(new LatencyObservation(1, 10, Double.POSITIVE_INFINITY, 0, 0, 0, 0, 0, 0, 0, 0)))
            .isEqualTo(UpdateOutcome.REJECTED_NON_FINITE);
        assertThat(reg.update(new LatencyObservation(1, -5, 1, 0, 0, 0, 0, 0, 0, 0, 0)))
            .isEqualTo(UpdateOutcome.REJECTED_NEGATIVE);
        assertThat(reg.update(new LatencyObservation(1, 5, 1, 0, 0, 0, 0, 0, -1, 0, 0)))
            .isEqualTo(UpdateOutcome.REJECTED_NEGATIVE);
        assertThat(reg.update(new LatencyObservation(1, 5, 1, 0, 0, 0, 0, 0, 0, 1.5, 0)))
            .isEqualTo(UpdateOutcome.REJECTED_OUT_OF_RANGE);
        assertThat(reg.rejected(UpdateOutcome.REJECTED_NON_FINITE)).isEqualTo(2);
        assertThat(reg.rejected(UpdateOutcome.REJECTED_NEGATIVE)).isEqualTo(2);
        assertThat(reg.rejected(UpdateOutcome.REJECTED_OUT_OF_RANGE)).isEqualTo(1);
        assertThat(reg.samples()).isEqualTo(500);
        assertThat(reg.fit().value(Coefficient.ALPHA_P)).isEqualTo(before);
    }

    @Test
    void qSlackIsSelectedByProfile() {
        for (int slack : new int[] {0, 2, 7, 12}) {
            long seed = 300 + slack;
            SyntheticRows gen = new SyntheticRows(seed, SyntheticRows.TRUTH, slack, 0.10, 0.01);
            LatencyRegression reg = new LatencyRegression(RegressionConfig.defaults());
            for (int i = 0; i < 5000; i++) {
                reg.update(gen.next());
            }
            LatencyFit fit = reg.fit();
            assertThat(fit.qSlackValue()).as("seed %d, true slack %d, profile %s", seed, slack,
                java.util.Arrays.toString(fit.profileSsr())).isEqualTo(slack);
            assertThat(Math.abs(fit.value(Coefficient.ALPHA_HO) / 100 - 1)).as("seed %d", seed).isLessThan(0.05);
        }
    }

    @Test
    void negativeTruthIsClampedToZeroByNnls() {
        // a regressor whose true effect is negative: the constrained fit puts it at 0, the others stay close
        long seed = 21;
        SplittableRandom rnd = new SplittableRandom(seed);
        LatencyFit fit = run(RegressionConfig.defaults().withForgetting(1.0), 3000, i -> {
            double p = 1000 + rnd.nextDouble() * 5000;
            double tier = rnd.nextDouble() * 3000;
            double y = (2 * p - 0.3 * tier) * (1 + 0.05 * rnd.nextGaussian());
            return new LatencyObservation(i, y, p, 0, 0, 0, 0, tier, 0, 0, 0);
        });
        assertThat(fit.value(Coefficient.ALPHA_T)).as("seed %d", seed).isZero();
        assertThat(fit.value(Coefficient.ALPHA_P)).as("seed %d", seed).isBetween(1.7, 2.0);
    }
}
