package io.tierroute.fitter.prior;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.tierroute.fitter.Estimate;
import io.tierroute.fitter.QualityKind;
import io.tierroute.schemas.avro.EngineTelemetry;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

class TelemetryPriorsTest {

    private static final PoolKey POOL = new PoolKey("vllm", "h100-80g");

    private static double rel(double v, double truth) {
        return Math.abs(v / truth - 1);
    }

    @Test
    void priorsWithinFivePercentOfTruthPerPool() {
        double worstP = 0;
        double worstStep = 0;
        double worstD = 0;
        int within3se = 0;
        int values = 0;
        for (long seed = 1; seed <= 10; seed++) {
            TelemetryPriors priors = new TelemetryPriors(PriorConfig.defaults());
            List<SyntheticTelemetry.Sample> samples =
                SyntheticTelemetry.generate(seed, SyntheticTelemetry.POOLS, 4, 1500, 0.10);
            for (SyntheticTelemetry.Sample s : samples) {
                assertThat(s.offer(priors)).as("seed %d", seed).isEqualTo(PriorOutcome.ACCEPTED);
            }
            assertThat(priors.pools()).hasSize(3);
            for (SyntheticTelemetry.Truth truth : SyntheticTelemetry.POOLS) {
                PoolPrior p = priors.prior(truth.pool()).orElseThrow();
                Estimate ap = p.alphaP().orElseThrow();
                Estimate step = p.decodeStepUs().orElseThrow();
                Estimate ad = p.alphaD().orElseThrow();
                String what = "seed " + seed + " " + truth.pool();
                assertThat(rel(ap.value(), truth.alphaP())).as("alphaP " + what).isLessThan(0.05);
                assertThat(rel(p.prefillTokensPerSecond().orElseThrow(), 1e6 / truth.alphaP()))
                    .as("tokens/s " + what).isLessThan(0.05);
                assertThat(rel(step.value(), truth.stepUs())).as("step " + what).isLessThan(0.05);
                assertThat(rel(ad.value(), truth.alphaD())).as("alphaD " + what).isLessThan(0.05);
                assertThat(rel(p.meanRunningBatch(), (truth.batchLo() + truth.batchHi()) / 2.0))
                    .as("batch " + what).isLessThan(0.05);
                // the identity α_d = step / batch holds over the running > 0 samples; the step time
                // also has the running = 0 ones (3 %)
                assertThat(rel(ad.value(), step.value() / p.meanRunningBatch())).as(what).isLessThan(0.01);
                assertThat(p.decodeWithoutRunning()).as(what).isPositive();
                for (Estimate e : List.of(ap, step, ad)) {
                    assertThat(e.qualityKind()).isEqualTo(QualityKind.STD_ERROR);
                    assertThat(e.hasFiniteStdError()).as(what).isTrue();
                    assertThat(e.stdError().getAsDouble()).isPositive().isLessThan(0.02 * e.value());
                    assertThat(e.samples()).isGreaterThan(4000);
                    assertThat(e.windowStartMs()).isLessThan(e.windowEndMs());
                }
                worstP = Math.max(worstP, rel(ap.value(), truth.alphaP()));
                worstStep = Math.max(worstStep, rel(step.value(), truth.stepUs()));
                worstD = Math.max(worstD, rel(ad.value(), truth.alphaD()));
                double[][] pairs = {{ap.value(), truth.alphaP(), ap.stdError().getAsDouble()},
                    {step.value(), truth.stepUs(), step.stdError().getAsDouble()},
                    {ad.value(), truth.alphaD(), ad.stdError().getAsDouble()}};
                for (double[] v : pairs) {
                    values++;
                    if (Math.abs(v[0] - v[1]) <= 3 * v[2]) {
                        within3se++;
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT,
            "prior accuracy (10 seeds x 3 pools, 4 workers x 1500 samples, 10%% noise): worst alphaP %.2f%%, "
                + "step %.2f%%, alphaD %.2f%%; alphaP/step/alphaD truth within 3 SE %d/%d%n",
            100 * worstP, 100 * worstStep, 100 * worstD, within3se, values);
        assertThat(within3se).isGreaterThanOrEqualTo((int) Math.ceil(0.9 * values));
    }

    @Test
    void poolsAreSeparate() {
        TelemetryPriors priors = new TelemetryPriors(PriorConfig.defaults());
        for (SyntheticTelemetry.Sample s : SyntheticTelemetry.generate(7, SyntheticTelemetry.POOLS, 2, 800, 0.05)) {
            s.offer(priors);
        }
        // same engine, other hardware; same hardware, other engine: each gets its own truth
        for (SyntheticTelemetry.Truth truth : SyntheticTelemetry.POOLS) {
            PoolPrior p = priors.prior(truth.pool()).orElseThrow();
            assertThat(rel(p.alphaP().orElseThrow().value(), truth.alphaP())).as(truth.pool().toString())
                .isLessThan(0.05);
            assertThat(rel(p.alphaD().orElseThrow().value(), truth.alphaD())).as(truth.pool().toString())
                .isLessThan(0.05);
        }
        assertThat(priors.prior(new PoolKey("trtllm", "h100-80g"))).isEmpty();
    }

    @Test
    void ratioOfSumsWeighsIntervalsByTheirWork() {
        TelemetryPriors priors = new TelemetryPriors(PriorConfig.defaults().withTauMs(Long.MAX_VALUE));
        long t = 1_000_000;
        // one long interval: 100 000 tokens at 50 µs/token
        assertThat(priors.update("w", POOL, t += 60_000, 60_000, 100_000, 5_000_000, 0, 0, 0))
            .isEqualTo(PriorOutcome.ACCEPTED);
        // ten short ones: 1 000 tokens each at 100 µs/token
        for (int i = 0; i < 10; i++) {
            priors.update("w", POOL, t += 200, 200, 1_000, 100_000, 0, 0, 0);
        }
        double expected = (5_000_000 + 10 * 100_000.0) / (100_000 + 10 * 1_000.0);
        Estimate ap = priors.prior(POOL).orElseThrow().alphaP().orElseThrow();
        assertThat(ap.value()).isCloseTo(expected, offset(1e-9));
        assertThat(ap.samples()).isEqualTo(11);
        assertThat(priors.prior(POOL).orElseThrow().decodeStepUs()).isEmpty();
    }

    @Test
    void singleSampleHasInfiniteStdErrorAndEqualRatiosZero() {
        TelemetryPriors priors = new TelemetryPriors(PriorConfig.defaults());
        priors.update("w", POOL, 1_000, 1_000, 1_000, 50_000, 10, 200_000, 20);
        PoolPrior p = priors.prior(POOL).orElseThrow();
        assertThat(p.alphaP().orElseThrow().stdError().getAsDouble()).isInfinite();
        assertThat(p.alphaP().orElseThrow().quality()).isEqualTo(Double.MAX_VALUE);
        priors.update("w", POOL, 2_000, 1_000, 2_000, 100_000, 20, 400_000, 20);
        p = priors.prior(POOL).orElseThrow();
        assertThat(p.alphaP().orElseThrow().value()).isCloseTo(50, offset(1e-12));
        assertThat(p.alphaP().orElseThrow().stdError().getAsDouble()).isCloseTo(0, offset(1e-9));
        assertThat(p.decodeStepUs().orElseThrow().value()).isCloseTo(20_000, offset(1e-9));
        assertThat(p.alphaD().orElseThrow().value()).isCloseTo(1_000, offset(1e-9));
    }

    @Test
    void runningZeroCountsInStepTimeButNotAlphaD() {
        TelemetryPriors priors = new TelemetryPriors(PriorConfig.defaults().withTauMs(Long.MAX_VALUE));
        assertThat(priors.update("w", POOL, 1_000, 1_000, 0, 0, 10, 200_000, 0)).isEqualTo(PriorOutcome.ACCEPTED);
        PoolPrior p = priors.prior(POOL).orElseThrow();
        assertThat(p.decodeStepUs().orElseThrow().value()).isEqualTo(20_000);
        assertThat(p.alphaD()).isEmpty();
        assertThat(p.meanRunningBatch()).isNaN();
        assertThat(p.decodeWithoutRunning()).isEqualTo(1);
        priors.update("w", POOL, 2_000, 1_000, 0, 0, 10, 300_000, 10);
        p = priors.prior(POOL).orElseThrow();
        assertThat(p.decodeStepUs().orElseThrow().value()).isEqualTo(25_000);
        assertThat(p.alphaD().orElseThrow().value()).isEqualTo(3_000);
        assertThat(p.meanRunningBatch()).isEqualTo(10);
        // an idle interval is accepted and changes nothing but the clock
        assertThat(priors.update("w", POOL, 3_000, 1_000, 0, 0, 0, 0, 0)).isEqualTo(PriorOutcome.ACCEPTED);
    }

    @Test
    void badInputsAreRejectedCountedAndLeaveStateUnchanged() {
        TelemetryPriors priors = new TelemetryPriors(PriorConfig.defaults());
        priors.update("w", POOL, 10_000, 1_000, 1_000, 50_000, 10, 200_000, 20);
        priors.update("w", POOL, 11_000, 1_000, 3_000, 120_000, 30, 700_000, 25);
        PoolPrior before = priors.prior(POOL).orElseThrow();
        double nan = Double.NaN;
        Object[][] cases = {
            {PriorOutcome.REJECTED_MISSING_KEY, "", 12_000L, 1_000L, 1.0, 50.0, 1.0, 20.0, 1.0},
            {PriorOutcome.REJECTED_NON_FINITE, "w", 12_000L, 1_000L, nan, 50.0, 1.0, 20.0, 1.0},
            {PriorOutcome.REJECTED_NON_FINITE, "w", 12_000L, 1_000L, 1.0, 50.0, 1.0, Double.POSITIVE_INFINITY, 1.0},
            {PriorOutcome.REJECTED_NON_FINITE, "w", 12_000L, 1_000L, 1.0, 50.0, 1.0, 20.0, nan},
            {PriorOutcome.REJECTED_NEGATIVE, "w", 12_000L, -1_000L, 1.0, 50.0, 1.0, 20.0, 1.0},
            {PriorOutcome.REJECTED_NEGATIVE, "w", 12_000L, 1_000L, -1.0, 50.0, 1.0, 20.0, 1.0},
            {PriorOutcome.REJECTED_NEGATIVE, "w", 12_000L, 1_000L, 1.0, 50.0, 1.0, 20.0, -1.0},
            {PriorOutcome.REJECTED_ZERO_INTERVAL, "w", 12_000L, 0L, 1.0, 50.0, 1.0, 20.0, 1.0},
            {PriorOutcome.REJECTED_INCONSISTENT, "w", 12_000L, 1_000L, 100.0, 0.0, 1.0, 20.0, 1.0},
            {PriorOutcome.REJECTED_INCONSISTENT, "w", 12_000L, 1_000L, 0.0, 50.0, 1.0, 20.0, 1.0},
            {PriorOutcome.REJECTED_INCONSISTENT, "w", 12_000L, 1_000L, 1.0, 50.0, 0.0, 20.0, 1.0},
            {PriorOutcome.REJECTED_INCONSISTENT, "w", 12_000L, 1_000L, 1.0, 2_000_000.0, 1.0, 20.0, 1.0},
            // corrupt counters that would overflow the sums (found in review: 1e200 tokens made prior() throw)
            {PriorOutcome.REJECTED_INCONSISTENT, "w", 12_000L, 1_000L, 1e200, 500_000.0, 1.0, 20.0, 1.0},
            {PriorOutcome.REJECTED_INCONSISTENT, "w", 12_000L, 1_000L, 1.0, 50.0, 1e12, 20.0, 1.0},
            {PriorOutcome.REJECTED_DUPLICATE, "w", 11_000L, 1_000L, 1.0, 50.0, 1.0, 20.0, 1.0},
            {PriorOutcome.REJECTED_OUT_OF_ORDER, "w", 10_500L, 500L, 1.0, 50.0, 1.0, 20.0, 1.0},
        };
        for (Object[] c : cases) {
            PriorOutcome got = priors.update((String) c[1], POOL, (long) c[2], (long) c[3], (double) c[4],
                (double) c[5], (double) c[6], (double) c[7], (double) c[8]);
            assertThat(got).as(java.util.Arrays.toString(c)).isEqualTo(c[0]);
            assertThat(priors.prior(POOL).orElseThrow()).as(java.util.Arrays.toString(c)).isEqualTo(before);
        }
        assertThat(priors.count(PriorOutcome.ACCEPTED)).isEqualTo(2);
        assertThat(priors.count(PriorOutcome.REJECTED_NON_FINITE)).isEqualTo(3);
        assertThat(priors.count(PriorOutcome.REJECTED_NEGATIVE)).isEqualTo(3);
        assertThat(priors.count(PriorOutcome.REJECTED_INCONSISTENT)).isEqualTo(6);
        assertThat(priors.count(PriorOutcome.REJECTED_ZERO_INTERVAL)).isEqualTo(1);
        assertThat(priors.count(PriorOutcome.REJECTED_DUPLICATE)).isEqualTo(1);
        assertThat(priors.count(PriorOutcome.REJECTED_OUT_OF_ORDER)).isEqualTo(1);
        assertThat(priors.count(PriorOutcome.REJECTED_MISSING_KEY)).isEqualTo(1);
        // busy up to the slack over the interval is timer jitter, not an error
        assertThat(priors.update("w", POOL, 12_000, 1_000, 1_000, 1_050_000, 0, 0, 0)).isEqualTo(PriorOutcome.ACCEPTED);
        // order is per worker: another worker may lag behind
        assertThat(priors.update("w2", POOL, 9_000, 1_000, 1_000, 50_000, 0, 0, 0)).isEqualTo(PriorOutcome.ACCEPTED);
    }

    @Test
    void forgetsOldHardwareBehaviourWithinAFewTimeConstants() {
        TelemetryPriors priors = new TelemetryPriors(PriorConfig.defaults().withTauMs(600_000));
        long t = 0;
        for (int i = 0; i < 3_600; i++) {
            priors.update("w", POOL, t += 1_000, 1_000, 5_000, 5_000 * 100.0, 0, 0, 0);
        }
        for (int i = 0; i < 3_000; i++) { // 5 τ at the new speed
            priors.update("w", POOL, t += 1_000, 1_000, 5_000, 5_000 * 50.0, 0, 0, 0);
        }
        // old weight ≈ e^-5 / (1 − e^-6) share: α_p ≈ 50 + 50·0.0067
        assertThat(priors.prior(POOL).orElseThrow().alphaP().orElseThrow().value()).isCloseTo(50, offset(0.5));
    }

    @Test
    void avroSamplesAreRead() {
        TelemetryPriors priors = new TelemetryPriors(PriorConfig.defaults());
        EngineTelemetry t = EngineTelemetry.newBuilder().setWorker("w1").setScope("default").setEngineType("vllm")
            .setHardwarePool("h100-80g").setTimestampMs(5_000).setIntervalMs(1_000).setWaitingRequests(2)
            .setRunningRequests(16).setKvUsedBlocks(10).setKvCapacityBlocks(100).setBlockSizeTokens(16)
            .setLinks(List.of()).setPrefillTokens(4_000).setPrefillBusyUs(240_000).setDecodeSteps(40)
            .setDecodeBusyUs(560_000).build();
        assertThat(priors.update(t)).isEqualTo(PriorOutcome.ACCEPTED);
        PoolPrior p = priors.prior(POOL).orElseThrow();
        assertThat(p.alphaP().orElseThrow().value()).isEqualTo(60);
        assertThat(p.decodeStepUs().orElseThrow().value()).isEqualTo(14_000);
        assertThat(p.alphaD().orElseThrow().value()).isEqualTo(14_000 / 16.0);
        assertThat(priors.update(EngineTelemetry.newBuilder(t).setHardwarePool("").setTimestampMs(6_000).build()))
            .isEqualTo(PriorOutcome.REJECTED_MISSING_KEY);
    }

    @Test
    void aWorkerSilentSinceTheCutoffIsForgottenAndItsNextSampleIsNotOutOfOrder() {
        TelemetryPriors priors = new TelemetryPriors(PriorConfig.defaults());
        assertThat(priors.update("gone", POOL, 10_000, 1_000, 1000, 50_000, 10, 10_000, 1)).isEqualTo(PriorOutcome.ACCEPTED);
        assertThat(priors.update("stays", POOL, 700_000, 1_000, 1000, 50_000, 10, 10_000, 1)).isEqualTo(PriorOutcome.ACCEPTED);
        assertThat(priors.forgetSilentBefore(10_000)).isZero();
        assertThat(priors.forgetSilentBefore(100_000)).as("only the worker silent since 10 s").isEqualTo(1);
        // a new incarnation under the old name (its clock reset) is a new worker, not an out-of-order sample
        assertThat(priors.update("gone", POOL, 5_000, 1_000, 1000, 50_000, 10, 10_000, 1)).isEqualTo(PriorOutcome.ACCEPTED);
        assertThat(priors.update("stays", POOL, 690_000, 1_000, 1000, 50_000, 10, 10_000, 1))
            .isEqualTo(PriorOutcome.REJECTED_OUT_OF_ORDER);
    }

    @Test
    void aPoolSilentSinceTheCutoffIsForgottenAndNoLongerServesItsPrior() {
        TelemetryPriors priors = new TelemetryPriors(PriorConfig.defaults());
        PoolKey retired = new PoolKey("vllm", "a100-40g");
        for (int i = 1; i <= 50; i++) { // the retired pool ran long and is by far the busiest so far
            assertThat(priors.update("old-" + (i % 4), retired, i * 1_000L, 1_000, 8_000, 400_000, 10, 10_000, 1))
                .isEqualTo(PriorOutcome.ACCEPTED);
        }
        assertThat(priors.update("new", POOL, 700_000, 1_000, 1000, 50_000, 10, 10_000, 1))
            .isEqualTo(PriorOutcome.ACCEPTED);
        assertThat(priors.forgetSilentBefore(40_000)).isZero();
        assertThat(priors.pools()).containsExactlyInAnyOrder(retired, POOL);

        assertThat(priors.forgetSilentBefore(100_000)).as("the retired pool's four workers").isEqualTo(4);
        assertThat(priors.pools()).containsExactly(POOL);
        assertThat(priors.prior(retired)).isEmpty();
        assertThat(priors.prior(POOL).orElseThrow().alphaP().orElseThrow().value()).isEqualTo(50);
    }
}
