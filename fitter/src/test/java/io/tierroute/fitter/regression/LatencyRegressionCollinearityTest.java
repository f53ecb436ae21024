package io.tierroute.fitter.regression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A quadratic term the other regressors reproduce is left out of the fit, so that its linear partner is estimated
 * precisely instead of both running to standard errors far above their values (LatencyRegression's
 * MAX_VARIANCE_INFLATION).
 */
class LatencyRegressionCollinearityTest {

    private static final double ALPHA_P = 5.0;
    private static final double ALPHA_P2 = 0.001;
    private static final double ALPHA_D = 20.0;
    private static final double ALPHA_D2 = 0.002;

    private static LatencyFit fit(int rows, java.util.function.Supplier<LatencyObservation> gen) {
        LatencyRegression reg = new LatencyRegression(RegressionConfig.defaults());
        for (int i = 0; i < rows; i++) {
            assertThat(reg.update(gen.get())).isEqualTo(UpdateOutcome.ACCEPTED);
        }
        return reg.fit();
    }

    private static double relativeError(LatencyFit fit, Coefficient c) {
        return fit.get(c).stdError().getAsDouble() / fit.value(c);
    }

    @Test
    void promptsOfOneLengthLeaveThePrefillQuadraticOutAndPriceItLinearly() {
        // llm-d blog shape: every prompt a 6,000-token shared prefix held in cache plus a 1,190–1,210-token query, so
        // (ISL² − hit²)/2 = q·(6,000 + q/2) is q times 6,595–6,605: the data fix only α_p + 6,600·α_p2 per token.
        long seed = 41;
        LatencyFit fit = fit(4000, onePromptLength(seed));
        assertThat(fit.value(Coefficient.ALPHA_P2)).as("seed %d", seed).isZero();
        assertThat(fit.get(Coefficient.ALPHA_P2).stdError().getAsDouble()).isEqualTo(Double.POSITIVE_INFINITY);
        double perToken = ALPHA_P + ALPHA_P2 * 6600; // the price the data fix, within ±0.1 %
        assertThat(fit.value(Coefficient.ALPHA_P)).as("seed %d", seed).isCloseTo(perToken, withPercentage(3));
        assertThat(relativeError(fit, Coefficient.ALPHA_P)).as("seed %d", seed).isLessThan(0.05);
        // the decode pair varies independently here and keeps both terms
        assertThat(fit.value(Coefficient.ALPHA_D2)).as("seed %d", seed).isCloseTo(ALPHA_D2, withPercentage(10));
        assertThat(relativeError(fit, Coefficient.ALPHA_D2)).as("seed %d", seed).isLessThan(0.2);
    }

    /** Rows of one prompt length: a 6,000-token prefix cached, a 1,190–1,210-token query, decode load independent. */
    private static java.util.function.Supplier<LatencyObservation> onePromptLength(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long[] t = {1_700_000_000_000L};
        return () -> {
            double q = 1190 + rnd.nextDouble() * 20;
            double quad = q * (6000 + q / 2);
            double sumD = rnd.nextDouble() * 400;
            double quadD = sumD * rnd.nextDouble() * 20000;
            double y = (ALPHA_P * q + ALPHA_P2 * quad + ALPHA_D * sumD + ALPHA_D2 * quadD)
                * (1 + 0.05 * rnd.nextGaussian());
            return new LatencyObservation(t[0] += 100, Math.max(0, y), q, 0, quad, sumD, quadD, 0, 0, 0, 0);
        };
    }

    @Test
    void withAnInterceptThePrefillQuadraticIsLeftOutToo() {
        LatencyRegression reg = new LatencyRegression(RegressionConfig.defaults().withIntercept(true));
        java.util.function.Supplier<LatencyObservation> rows = onePromptLength(47);
        for (int i = 0; i < 4000; i++) {
            reg.update(rows.get());
        }
        LatencyFit fit = reg.fit();
        assertThat(fit.value(Coefficient.ALPHA_P2)).as("seed 47").isZero();
        assertThat(fit.get(Coefficient.ALPHA_P2).stdError().getAsDouble()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(Double.isFinite(fit.intercept())).isTrue();
        assertThat(fit.get(Coefficient.ALPHA_P).stdError().getAsDouble()).as("seed 47").isFinite();
    }

    @Test
    void readingTheFitBetweenUpdatesChangesNoLaterFit() {
        // the left-out columns are state of the refits: a read must leave them as the rows made them
        LatencyRegression read = new LatencyRegression(RegressionConfig.defaults());
        LatencyRegression unread = new LatencyRegression(RegressionConfig.defaults());
        java.util.function.Supplier<LatencyObservation> a = onePromptLength(49);
        java.util.function.Supplier<LatencyObservation> b = onePromptLength(49);
        for (int i = 0; i < 3000; i++) {
            read.update(a.get());
            unread.update(b.get());
            if (i % 37 == 0) {
                read.fit();
            }
        }
        LatencyFit x = read.fit();
        LatencyFit y = unread.fit();
        for (Coefficient c : Coefficient.values()) {
            assertThat(x.value(c)).as("%s, seed 49", c).isEqualTo(y.value(c));
            assertThat(x.get(c).stdError().getAsDouble()).as("%s SE, seed 49", c)
                .isEqualTo(y.get(c).stdError().getAsDouble());
        }
    }

    @Test
    void oneContextLengthLeavesTheDecodeQuadraticOut() {
        // every in-flight request has the same context: Σ[ctx·d̂ + d̂²/2] is Σd̂ times ctx (plus a small d̂² part)
        long seed = 43;
        SplittableRandom rnd = new SplittableRandom(seed);
        long[] t = {1_700_000_000_000L};
        LatencyFit fit = fit(4000, () -> {
            double pEff = 500 + rnd.nextDouble() * 8000;
            double isl = pEff + rnd.nextDouble() * 8000;
            double hit = isl - pEff;
            double quad = (isl * isl - hit * hit) / 2;
            double sumD = 100 + rnd.nextDouble() * 300;
            double quadD = sumD * 20000 + sumD * 2;
            double y = (ALPHA_P * pEff + ALPHA_P2 * quad + ALPHA_D * sumD + ALPHA_D2 * quadD)
                * (1 + 0.05 * rnd.nextGaussian());
            return new LatencyObservation(t[0] += 100, Math.max(0, y), pEff, 0, quad, sumD, quadD, 0, 0, 0, 0);
        });
        assertThat(fit.value(Coefficient.ALPHA_D2)).as("seed %d", seed).isZero();
        assertThat(fit.get(Coefficient.ALPHA_D2).stdError().getAsDouble()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(fit.value(Coefficient.ALPHA_D)).as("seed %d", seed)
            .isCloseTo(ALPHA_D + ALPHA_D2 * 20002, withPercentage(3));
        assertThat(relativeError(fit, Coefficient.ALPHA_D)).as("seed %d", seed).isLessThan(0.05);
        // the prefill pair varies independently here and keeps both terms
        assertThat(fit.value(Coefficient.ALPHA_P2)).as("seed %d", seed).isCloseTo(ALPHA_P2, withPercentage(10));
    }

    @Test
    void independentRegressorsKeepEveryTerm() {
        SyntheticRows gen = new SyntheticRows(45, SyntheticRows.TRUTH, SyntheticRows.TRUE_SLACK, 0.05, 0);
        LatencyFit fit = fit(5000, gen::next);
        for (Coefficient c : new Coefficient[] {Coefficient.ALPHA_P2, Coefficient.ALPHA_D2}) {
            assertThat(fit.value(c)).as("%s, seed 45", c).isCloseTo(SyntheticRows.TRUTH[c.ordinal()], withPercentage(10));
            assertThat(fit.get(c).stdError().getAsDouble()).as("%s, seed 45", c).isFinite();
        }
    }
}
