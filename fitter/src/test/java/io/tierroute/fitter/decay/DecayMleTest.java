package io.tierroute.fitter.decay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DecayMleTest {
    static final double TRUE_LAMBDA = 1.0 / 120;

    /**
     * 5 000 observations from T ~ Exp(λ): 50 % returns (hit/miss at idle t ~ U(0, 480 s)), 30 %
     * eviction watches censored at C ~ U(0, 400 s) (exact EVICTED_AT if T ≤ C, else right-censored
     * STILL_CACHED_AT; about 60 % of them end up censored), 20 % fractions of 16 independent blocks.
     */
    static List<DecayObservation> generate(long seed, int n, double lambda) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<DecayObservation> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            double kind = rnd.nextDouble();
            long ts = 1_700_000_000_000L + i * 1000L;
            if (kind < 0.5) {
                double t = rnd.nextDouble() * 480;
                double life = -Math.log(1 - rnd.nextDouble()) / lambda;
                out.add(life > t ? DecayObservation.hit(t, ts) : DecayObservation.miss(t, ts));
            } else if (kind < 0.8) {
                double c = rnd.nextDouble() * 400;
                double life = -Math.log(1 - rnd.nextDouble()) / lambda;
                out.add(life <= c ? DecayObservation.evictedAt(life, ts) : DecayObservation.stillCachedAt(c, ts));
            } else {
                double t = 1 + rnd.nextDouble() * 480;
                int held = 0;
                for (int b = 0; b < 16; b++) {
                    if (-Math.log(1 - rnd.nextDouble()) / lambda > t) {
                        held++;
                    }
                }
                out.add(DecayObservation.fraction(t, held / 16.0, 16, ts));
            }
        }
        return out;
    }

    @Test
    void lambdaWithinTenPercentAt5kObservationsWithCensoring() {
        double worst = 0;
        int covered = 0;
        int seeds = 40;
        for (long seed = 1; seed <= seeds; seed++) {
            DecayAccumulator acc = new DecayAccumulator(DecayConfig.defaults());
            for (DecayObservation o : generate(seed, 5000, TRUE_LAMBDA)) {
                assertThat(acc.add(o)).isEqualTo(DecayOutcome.ACCEPTED);
            }
            DecayFit fit = acc.fit();
            double rel = Math.abs(fit.lambda().value() / TRUE_LAMBDA - 1);
            worst = Math.max(worst, rel);
            assertThat(rel).as("seed %d: lambda %g", seed, fit.lambda().value()).isLessThan(0.10);
            assertThat(fit.atLowerBound() || fit.atUpperBound()).isFalse();
            assertThat(fit.lambda().samples()).isEqualTo(5000);
            double se = fit.lambda().stdError().getAsDouble();
            if (Math.abs(fit.lambda().value() - TRUE_LAMBDA) <= 2 * se) {
                covered++;
            }
        }
        System.out.printf("lambda MLE, %d seeds x 5000 obs (censored present): worst relative error %.2f%%,"
            + " truth within 2 SE in %d/%d%n", seeds, 100 * worst, covered, seeds);
        assertThat(covered).as("2-SE coverage over seeds 1..40").isGreaterThanOrEqualTo(34);
    }

    @Test
    void histogramFitMatchesTheExactLikelihoodMaximiser() {
        long seed = 77;
        List<DecayObservation> obs = generate(seed, 5000, TRUE_LAMBDA);
        DecayAccumulator acc = new DecayAccumulator(DecayConfig.defaults());
        obs.forEach(acc::add);
        double histogramLambda = acc.fit().lambda().value();
        // exact score from the raw observations, root by bisection
        double lo = 1e-6;
        double hi = 1;
        for (int i = 0; i < 200; i++) {
            double mid = Math.sqrt(lo * hi);
            if (exactScore(obs, mid) > 0) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        double exact = Math.sqrt(lo * hi);
        double err = Math.abs(histogramLambda / exact - 1);
        System.out.printf("lambda histogram (1%% bins) vs exact MLE: relative difference %.2e (seed %d)%n", err, seed);
        assertThat(err).as("seed %d", seed).isLessThan(1e-4);
    }

    private static double exactScore(List<DecayObservation> obs, double lambda) {
        double s = 0;
        for (DecayObservation o : obs) {
            double t = o.idleSeconds();
            double w = o.weight();
            switch (o.kind()) {
                case RETURN_HIT, STILL_CACHED_AT -> s -= w * t;
                case EVICTED_AT -> s += w * (1 / lambda - t);
                case RETURN_MISS -> s += w * t / Math.expm1(lambda * t);
                case RETURN_FRACTION -> s += w * (-o.fraction() * t + (1 - o.fraction()) * t / Math.expm1(lambda * t));
                default -> throw new IllegalStateException();
            }
        }
        return s;
    }

    @Test
    void fitMaximisesTheLikelihoodAndReportsObservedInformation() {
        DecayAccumulator acc = new DecayAccumulator(DecayConfig.defaults());
        generate(5, 2000, 0.05).forEach(acc::add);
        double l = acc.fit().lambda().value();
        assertThat(acc.score(l)).isCloseTo(0, offset(1e-6));
        assertThat(acc.logLikelihood(l)).isGreaterThan(acc.logLikelihood(l * 1.01)).isGreaterThan(acc.logLikelihood(l * 1.1));
        assertThat(acc.logLikelihood(l)).isGreaterThan(acc.logLikelihood(l * 0.99));
        double h = 1e-4 * l;
        double numericInfo = -(acc.logLikelihood(l + h) - 2 * acc.logLikelihood(l) + acc.logLikelihood(l - h)) / (h * h);
        assertThat(acc.information(l)).isCloseTo(numericInfo, org.assertj.core.data.Percentage.withPercentage(1));
    }

    @Test
    void onlyExactLifetimesGiveTheClosedFormMle() {
        DecayAccumulator acc = new DecayAccumulator(DecayConfig.defaults());
        acc.add(DecayObservation.evictedAt(10, 1));
        acc.add(DecayObservation.evictedAt(30, 2));
        acc.add(DecayObservation.stillCachedAt(60, 3));
        // d / S = 2 / 100, SE = λ / sqrt(d)
        DecayFit fit = acc.fit();
        assertThat(fit.lambda().value()).isCloseTo(0.02, offset(1e-12));
        assertThat(fit.lambda().stdError().getAsDouble()).isCloseTo(0.02 / Math.sqrt(2), offset(1e-12));
        assertThat(fit.lambda().windowStartMs()).isEqualTo(1);
        assertThat(fit.lambda().windowEndMs()).isEqualTo(4);
    }

    /**
     * Misses that come faster than the gate's λ bound (1/s) allows: true λ 2/s over idle times of 0.2–2.2 s, well
     * determined. The fit stops at the bound, flagged, a value the gate takes; a fit above it rejected whole snapshots.
     */
    @Test
    void aLambdaAboveTheGatesBoundFitsAtTheBound() {
        DecayAccumulator acc = new DecayAccumulator(DecayConfig.defaults());
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(3);
        for (int i = 0; i < 2_000; i++) {
            double idle = 0.2 + 2.0 * rnd.nextDouble();
            acc.add(rnd.nextDouble() < Math.exp(-2.0 * idle) ? DecayObservation.hit(idle, i) : DecayObservation.miss(idle, i));
        }
        DecayFit fit = acc.fit();
        assertThat(fit.atUpperBound()).isTrue();
        assertThat(fit.lambda().value()).isEqualTo(io.tierroute.schemas.snapshot.SnapshotParameter.LAMBDA.upper());
        assertThat(io.tierroute.schemas.snapshot.SnapshotParameter.LAMBDA.inBounds(fit.lambda().value())).isTrue();
    }

    @Test
    void boundsAndDegenerateInputs() {
        DecayConfig cfg = DecayConfig.defaults();
        DecayAccumulator empty = new DecayAccumulator(cfg);
        assertThat(empty.fit().atLowerBound()).isTrue();
        assertThat(empty.fit().lambda().samples()).isZero();

        DecayAccumulator onlyHits = new DecayAccumulator(cfg);
        onlyHits.add(DecayObservation.hit(100, 1));
        DecayFit hits = onlyHits.fit();
        assertThat(hits.atLowerBound()).isTrue();
        assertThat(hits.lambda().value()).isEqualTo(cfg.lambdaMin());
        assertThat(hits.lambda().stdError().getAsDouble()).isEqualTo(Double.POSITIVE_INFINITY);

        DecayAccumulator onlyMisses = new DecayAccumulator(cfg);
        onlyMisses.add(DecayObservation.miss(100, 1));
        onlyMisses.add(DecayObservation.miss(5, 2));
        DecayFit misses = onlyMisses.fit();
        assertThat(misses.atUpperBound()).isTrue();
        assertThat(misses.lambda().value()).isEqualTo(cfg.lambdaMax());
        assertThat(Double.isNaN(misses.lambda().stdError().getAsDouble())).isFalse();

        // misses at huge and tiny idle times: no overflow, no NaN
        DecayAccumulator extreme = new DecayAccumulator(cfg);
        extreme.add(DecayObservation.miss(1e-9, 1));
        extreme.add(DecayObservation.miss(DecayObservation.MAX_IDLE_SECONDS, 1)); // λ·t up to 6e7: e^{λt} overflows
        extreme.add(DecayObservation.hit(1e-4, 1));
        extreme.add(DecayObservation.hit(50, 1));
        DecayFit ex = extreme.fit();
        assertThat(Double.isFinite(ex.lambda().value())).isTrue();
        assertThat(Double.isNaN(ex.lambda().stdError().getAsDouble())).isFalse();
    }

    @Test
    void badObservationsAreRejectedWithAReason() {
        DecayFitter fitter = new DecayFitter(DecayConfig.defaults());
        DecayKey key = new DecayKey("default", 0);
        assertThat(fitter.add(key, DecayObservation.hit(Double.NaN, 1))).isEqualTo(DecayOutcome.REJECTED_NON_FINITE);
        assertThat(fitter.add(key, DecayObservation.hit(-1, 1))).isEqualTo(DecayOutcome.REJECTED_NEGATIVE);
        assertThat(fitter.add(key, DecayObservation.miss(0, 1))).isEqualTo(DecayOutcome.REJECTED_IMPOSSIBLE);
        assertThat(fitter.add(key, DecayObservation.fraction(5, 1.5, 16, 1))).isEqualTo(DecayOutcome.REJECTED_FRACTION_OUT_OF_RANGE);
        assertThat(fitter.add(key, DecayObservation.fraction(5, 0.5, 0, 1))).isEqualTo(DecayOutcome.REJECTED_NON_POSITIVE_WEIGHT);
        assertThat(fitter.add(key, new DecayObservation(null, 1, 1, 1, 1))).isEqualTo(DecayOutcome.REJECTED_NON_FINITE);
        assertThat(fitter.keys()).isEmpty();
        assertThat(fitter.count(DecayOutcome.REJECTED_NEGATIVE)).isEqualTo(1);
    }

    @Test
    void oneHugeIdleTimeAmongNormalObservationsLeavesLambdaWhereTheNormalOnesPutIt() {
        // idleSinceLastStepMs = Long.MAX_VALUE on a cache hit: ~9e15 s of exposure would pin λ at its lower bound
        DecayKey key = new DecayKey("default", 0);
        DecayFitter clean = new DecayFitter(DecayConfig.defaults());
        DecayFitter poisoned = new DecayFitter(DecayConfig.defaults());
        List<DecayObservation> obs = generate(5, 5000, TRUE_LAMBDA);
        for (int i = 0; i < obs.size(); i++) {
            clean.add(key, obs.get(i));
            poisoned.add(key, obs.get(i));
            if (i == 2500) {
                assertThat(poisoned.add(key, DecayObservation.hit(Long.MAX_VALUE / 1000.0, 1)))
                    .isEqualTo(DecayOutcome.REJECTED_TOO_LONG);
                assertThat(poisoned.add(key, DecayObservation.miss(Math.nextUp(DecayObservation.MAX_IDLE_SECONDS), 1)))
                    .isEqualTo(DecayOutcome.REJECTED_TOO_LONG);
            }
        }
        assertThat(poisoned.count(DecayOutcome.REJECTED_TOO_LONG)).isEqualTo(2);
        DecayFit expected = clean.fitScope("default").orElseThrow();
        DecayFit actual = poisoned.fitScope("default").orElseThrow();
        assertThat(actual.lambda().value()).isEqualTo(expected.lambda().value());
        assertThat(actual.lambda().samples()).isEqualTo(5000);
        assertThat(Math.abs(actual.lambda().value() / TRUE_LAMBDA - 1)).isLessThan(0.10);
        assertThat(new DecayFitter(DecayConfig.defaults()).add(key, DecayObservation.hit(DecayObservation.MAX_IDLE_SECONDS, 1)))
            .as("at the bound").isEqualTo(DecayOutcome.ACCEPTED);
    }

    @Test
    void fitsPerScopeAndPressureBucket() {
        PressureBuckets buckets = PressureBuckets.defaults();
        assertThat(buckets.bucketOf(0.1)).isZero();
        assertThat(buckets.bucketOf(0.5)).isEqualTo(1);
        assertThat(buckets.bucketOf(0.99)).isEqualTo(2);
        assertThat(buckets.bucketOf(Double.NaN)).isZero();
        DecayFitter fitter = new DecayFitter(DecayConfig.defaults());
        double[] lambdas = {1.0 / 600, 1.0 / 120, 1.0 / 20};
        for (int b = 0; b < 3; b++) {
            for (DecayObservation o : generate(100 + b, 5000, lambdas[b])) {
                fitter.add(new DecayKey("llama-70b", b), o);
            }
        }
        for (int b = 0; b < 3; b++) {
            double fitted = fitter.fit(new DecayKey("llama-70b", b)).orElseThrow().lambda().value();
            assertThat(Math.abs(fitted / lambdas[b] - 1)).as("seed %d bucket %d", 100 + b, b).isLessThan(0.10);
        }
        double pooled = fitter.fitScope("llama-70b").orElseThrow().lambda().value();
        assertThat(pooled).isBetween(lambdas[0], lambdas[2]);
        assertThat(fitter.fitScope("other")).isEmpty();
        assertThat(fitter.fitScope("llama-70b").orElseThrow().lambda().samples()).isEqualTo(15000);
    }
}
