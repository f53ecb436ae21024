package io.tierroute.fitter.decay;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * λ tracks a fleet whose cache pressure changes: with a tracking horizon, observations older than it fade, and the
 * standard error says how much the recent ones determine λ. Without one, 50,000 observations at λ = 1/120 held the fit
 * at 1/105 after 10,000 at 1/20, with a relative error of 0.006 (an audit's probe): confidently stale.
 */
class DecayForgettingTest {

    private static DecayAccumulator feed(DecayConfig config) {
        DecayAccumulator acc = new DecayAccumulator(config);
        for (DecayObservation o : DecayMleTest.generate(1, 50_000, 1.0 / 120)) {
            acc.add(o);
        }
        for (DecayObservation o : DecayMleTest.generate(2, 10_000, 1.0 / 20)) {
            acc.add(o);
        }
        return acc;
    }

    /** A fit without forgetting on the last {@code n} observations of the new regime. */
    private static DecayFit lastOnly(int n) {
        DecayAccumulator acc = new DecayAccumulator(DecayConfig.defaults());
        var recent = DecayMleTest.generate(2, 10_000, 1.0 / 20);
        for (DecayObservation o : recent.subList(recent.size() - n, recent.size())) {
            acc.add(o);
        }
        return acc.fit();
    }

    @Test
    void withAHorizonTheFitFollowsTheNewLambda() {
        DecayFit fit = feed(DecayConfig.defaults().withTrackingHorizon(2_000)).fit();
        assertThat(fit.lambda().value() * 20).as("λ·20 s, fitted %s", fit.lambda().value()).isBetween(0.85, 1.15);
        assertThat(fit.lambda().samples()).as("observations seen, not the effective count").isEqualTo(60_000);
        // The weights sum to 1 / (1 − λ_f) = 2,000 / ln 100 ≈ 434 observations' worth: about the standard error of the
        // last 434 alone, about twice the last 2,000's.
        double se = fit.lambda().stdError().getAsDouble();
        assertThat(se / lastOnly(434).lambda().stdError().getAsDouble()).isBetween(0.8, 1.25);
        assertThat(se / lastOnly(2_000).lambda().stdError().getAsDouble()).isGreaterThan(1.6);
    }

    @Test
    void withoutForgettingEveryObservationCounts() {
        DecayFit fit = feed(DecayConfig.defaults()).fit();
        assertThat(fit.lambda().value() * 20).as("pulled towards the old 1/120").isLessThan(0.5);
    }

    @Test
    void scalingEveryWeightLeavesTheFitWhereItIs() {
        // The sums are kept at a growing scale and renormalised: after a million observations under a short horizon
        // (the scale passes 1e100 many times) the fit equals a fresh one on the last observations alone, to rounding.
        DecayConfig config = DecayConfig.defaults().withTrackingHorizon(100);
        DecayAccumulator acc = new DecayAccumulator(config);
        var stream = DecayMleTest.generate(3, 20_000, 1.0 / 60);
        for (int round = 0; round < 50; round++) {
            for (DecayObservation o : stream) {
                acc.add(o);
            }
        }
        DecayAccumulator last = new DecayAccumulator(config);
        for (DecayObservation o : stream.subList(stream.size() - 5_000, stream.size())) {
            last.add(o);
        }
        assertThat(acc.fit().lambda().value()).isCloseTo(last.fit().lambda().value(),
            org.assertj.core.data.Percentage.withPercentage(1e-6));
        assertThat(acc.fit().lambda().stdError().getAsDouble()).isCloseTo(last.fit().lambda().stdError().getAsDouble(),
            org.assertj.core.data.Percentage.withPercentage(1e-6));
    }
}
