package io.tierroute.fitter.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import io.tierroute.fitter.regression.LatencyObservation;
import io.tierroute.fitter.regression.LatencyRegression;
import io.tierroute.fitter.regression.RegressionConfig;
import io.tierroute.schemas.avro.ParameterSnapshot;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * Prompts of nearly one length, or decodes at one context length, from the regression through the assembler and the
 * gate. The first snapshot must price prefill at what the data say, not at DESIGN's α_p = 1 µs/token (at llmd-blog
 * 0.5, seed 5, the gated router did, because the fit's α_p and α_p2 could not be told apart: fleet-sim/experiments/
 * ROUNDS.md, "Frontier round"), and decode at α_d alone, not beside DESIGN's α_d2 ("Pair round").
 */
class PrefillPriceThroughTheGateTest {

    /** Gates the first snapshot of a regression fed 3,000 rows from {@code row} (seeded; one row every 100 ms). */
    private static GateResult firstSnapshotOf(long seed, BiFunction<SplittableRandom, Long, LatencyObservation> row) {
        SplittableRandom rnd = new SplittableRandom(seed);
        LatencyRegression regression = new LatencyRegression(RegressionConfig.defaults());
        long t = 1_700_000_000_000L;
        for (int i = 0; i < 3000; i++) {
            regression.update(row.apply(rnd, t += 100));
        }
        FitResults fits = new FitResults(regression.fit(), Map.of(), Map.of(), null, null);
        long now = t;
        ParameterSnapshot candidate = new SnapshotAssembler("test", () -> now).assemble("default", 0, null, fits);
        return new ValidationGate(GateConfig.DEFAULTS).validate(candidate, null);
    }

    @Test
    void aSharedPrefixWithQueriesOfOneLengthGetsItsPrefillPriceApplied() {
        long seed = 51;
        GateResult r = firstSnapshotOf(seed, (rnd, t) -> {
            // a 6,000-token prefix in cache and a 1,190–1,210-token query: (ISL² − hit²)/2 ≈ 6,600·p_eff
            double q = 1190 + rnd.nextDouble() * 20;
            double quad = q * (6000 + q / 2);
            double sumD = rnd.nextDouble() * 2000;
            double y = (5.0 * q + 0.001 * quad + 10 * sumD) * (1 + 0.05 * rnd.nextGaussian());
            return new LatencyObservation(t, Math.max(0, y), q, 0, quad, sumD, 0, 0, 0, 0, 0);
        });

        assertThat(r.accepted()).as("seed %d: %s", seed, r.rejections()).isTrue();
        assertThat(r.held()).as("seed %d", seed).noneMatch(h -> h.startsWith("held: alphaP "));
        double perToken = 5.0 + 0.001 * 6600;
        assertThat(r.snapshot().getAlphaP().getValue()).as("seed %d", seed).isCloseTo(perToken, withPercentage(3));
        assertThat(r.snapshot().getAlphaP2().getValue()).as("seed %d", seed).isZero();
    }

    @Test
    void decodeOfOneContextLengthIsPricedByAlphaDAloneNotBesideTheDefaultQuadratic() {
        long seed = 52;
        GateResult r = firstSnapshotOf(seed, (rnd, t) -> {
            // every in-flight request at a 3,000-token context: Σ[ctx·d̂ + d̂²/2] ≈ 3,000·Σd̂, so α_d2 is left out
            double q = 200 + rnd.nextDouble() * 2000;
            double sumD = rnd.nextDouble() * 2000;
            double quadD = sumD * (3000 + rnd.nextDouble() * 0.01);
            double y = (5.0 * q + 10 * sumD + 0.002 * quadD) * (1 + 0.05 * rnd.nextGaussian());
            return new LatencyObservation(t, Math.max(0, y), q, 0, 0, sumD, quadD, 0, 0, 0, 0);
        });

        assertThat(r.accepted()).as("seed %d: %s", seed, r.rejections()).isTrue();
        double perToken = 10 + 0.002 * 3000;
        assertThat(r.snapshot().getAlphaD().getValue()).as("seed %d", seed).isCloseTo(perToken, withPercentage(3));
        // DESIGN's α_d2 = 0.001 beside it would add 3 µs per decode token, a fifth of the price, twice counted
        assertThat(r.snapshot().getAlphaD2().getValue()).as("seed %d", seed).isZero();
    }
}
