package io.tierroute.fitter.regression;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A step change in one true coefficient is tracked within the configured horizon: with
 * {@code withTrackingHorizon(3000)} (λ_f = 0.01^(1/3000) ≈ 0.99847) a halving or doubling of the
 * coefficient is within max(5 %, 3 SE) of its new value, and stays there (checked every 50 rows up to
 * 6000), by 3000 rows after the step; a tripling
 * by 1.25 × 3000 rows (the old data keep 1 % weight at the horizon, i.e. 2 % of the old value for a
 * tripling, and Huber downweights the first post-step rows).
 */
class LatencyRegressionTrackingTest {
    static final int HORIZON = 3000;

    private static int rowsUntilSettled(long seed, int coefficient, double factor) {
        SyntheticRows gen = new SyntheticRows(seed);
        LatencyRegression reg = new LatencyRegression(RegressionConfig.defaults().withTrackingHorizon(HORIZON));
        for (int i = 0; i < 10_000; i++) {
            reg.update(gen.next());
        }
        double before = reg.fit().value(Coefficient.values()[coefficient]);
        assertThat(Math.abs(before / SyntheticRows.TRUTH[coefficient] - 1)).as("seed %d before step", seed)
            .isLessThan(0.05);
        double target = SyntheticRows.TRUTH[coefficient] * factor;
        gen.setTruth(coefficient, target);
        int lastOutside = 0;
        for (int i = 1; i <= 2 * HORIZON; i++) {
            reg.update(gen.next());
            if (i % 50 == 0) {
                io.tierroute.fitter.Estimate est = reg.fit().get(Coefficient.values()[coefficient]);
                double band = Math.max(0.05 * target, 3 * est.stdError().getAsDouble());
                if (Math.abs(est.value() - target) >= band) {
                    lastOutside = i;
                }
            }
        }
        return lastOutside;
    }

    @Test
    void stepInAlphaDIsTrackedWithinTheHorizon() {
        int worst = 0;
        for (long seed = 101; seed <= 105; seed++) {
            for (double factor : new double[] {2.0, 0.5, 3.0}) {
                int settled = rowsUntilSettled(seed, Coefficient.ALPHA_D.ordinal(), factor);
                System.out.printf("step tracking: seed %d alpha_d x %.1f settled after %d rows%n", seed, factor, settled);
                worst = Math.max(worst, settled);
                int limit = factor <= 2.0 ? HORIZON : HORIZON * 5 / 4;
                assertThat(settled).as("seed %d, alpha_d x %.1f: last row outside max(5%%, 3 SE)", seed, factor)
                    .isLessThanOrEqualTo(limit);
            }
        }
        System.out.printf("step tracking (horizon %d rows, lambda_f %.5f): alpha_d within max(5%%, 3 SE) of the new value"
            + " after at most %d rows (steps x0.5, x2, x3; 5 seeds)%n", HORIZON,
            RegressionConfig.defaults().withTrackingHorizon(HORIZON).forgetting(), worst);
    }

    @Test
    void stepInAlphaTIsTrackedWithinTheHorizon() {
        for (long seed = 201; seed <= 203; seed++) {
            int settled = rowsUntilSettled(seed, Coefficient.ALPHA_T.ordinal(), 3.0);
            System.out.printf("step tracking: seed %d alpha_t x 3.0 settled after %d rows%n", seed, settled);
            assertThat(settled).as("seed %d, alpha_t x 3", seed).isLessThanOrEqualTo(HORIZON * 5 / 4);
        }
    }
}
