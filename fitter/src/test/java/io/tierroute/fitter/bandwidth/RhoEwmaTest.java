package io.tierroute.fitter.bandwidth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RhoEwmaTest {
    static final double BW = 64e9;
    static final RhoConfig CONFIG = new RhoConfig(10_000, 60_000, 600_000, 10_000, 100);

    private static long bytesFor(double utilisation, long intervalMs) {
        return Math.round(utilisation * BW * intervalMs / 1000.0);
    }

    /** Rescaled to a quarter of the link speed, the EWMA is the one fed the same bytes against that speed. */
    @Test
    void rescaledItIsTheEwmaOfTheSameBytesAgainstTheOtherSpeed() {
        RhoEwma measured = new RhoEwma(CONFIG);
        RhoEwma truth = new RhoEwma(CONFIG);
        SplittableRandom rnd = new SplittableRandom(7);
        for (int i = 1; i <= 40; i++) {
            long bytes = bytesFor(0.2 * rnd.nextDouble(), 1000); // under a quarter of BW: no sample clamps at BW / 4
            measured.update(i * 1000L, 1000, bytes, BW);
            truth.update(i * 1000L, 1000, bytes, BW / 4);
        }
        measured.rescale(4);
        assertThat(measured.rho()).isCloseTo(truth.rho(), offset(1e-12));
        assertThat(measured.stdError()).isCloseTo(truth.stdError(), offset(1e-12));
        measured.rescale(100);
        assertThat(measured.rho()).as("clamped as an update clamps").isEqualTo(1.0);
        RhoEwma empty = new RhoEwma(CONFIG);
        empty.rescale(4);
        assertThat(empty.hasValue()).isFalse();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> empty.rescale(0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void irregularSpacingGivesTheSameResultAsOneSampleAtTheSameRate() {
        for (long seed = 1; seed <= 50; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            RhoEwma coarse = new RhoEwma(CONFIG);
            RhoEwma fine = new RhoEwma(CONFIG);
            coarse.update(0, 1000, bytesFor(0.2, 1000), BW);
            fine.update(0, 1000, bytesFor(0.2, 1000), BW);
            long t = 0;
            for (int seg = 0; seg < 20; seg++) {
                long len = 500 + rnd.nextInt(5000);
                double u = rnd.nextDouble();
                // fine: the segment split at random points into 1..6 samples at the same rate
                long end = t + len;
                long cursor = t;
                int pieces = 1 + rnd.nextInt(6);
                for (int k = 1; k <= pieces; k++) {
                    long cut = k == pieces ? end : cursor + 1 + rnd.nextInt((int) Math.max(1, (end - cursor) / 2));
                    if (cut >= end && k < pieces) {
                        continue;
                    }
                    long dt = cut - cursor;
                    assertThat(fine.update(cut, dt, Math.round(u * BW * dt / 1000.0), BW).accepted()).isTrue();
                    cursor = cut;
                }
                assertThat(coarse.update(end, len, Math.round(u * BW * len / 1000.0), BW).accepted()).isTrue();
                t = end;
                assertThat(fine.rho()).as("seed %d segment %d", seed, seg).isCloseTo(coarse.rho(), offset(1e-9));
            }
        }
    }

    @Test
    void stepResponseHasTheConfiguredTimeConstant() {
        RhoEwma ewma = new RhoEwma(CONFIG);
        long t = 0;
        for (int i = 0; i < 100; i++) {
            t += 1000;
            ewma.update(t, 1000, 0, BW);
        }
        assertThat(ewma.rho()).isZero();
        long stepAt = t;
        // irregular spacing after the step: 250 ms .. 2 s samples at full utilisation
        SplittableRandom rnd = new SplittableRandom(5);
        while (t < stepAt + 30_000) {
            long dt = 250 + rnd.nextInt(1750);
            t += dt;
            ewma.update(t, dt, bytesFor(1.0, dt), BW);
            double expected = 1 - Math.exp(-(t - stepAt) / 10_000.0);
            assertThat(ewma.rho()).as("seed 5 at +%d ms", t - stepAt).isCloseTo(expected, offset(1e-9));
        }
    }

    @Test
    void shortGapDecaysTowardTheNewObservationAndLongGapResets() {
        RhoEwma ewma = new RhoEwma(CONFIG);
        ewma.update(1000, 1000, bytesFor(0.8, 1000), BW);
        assertThat(ewma.rho()).isCloseTo(0.8, offset(1e-9));
        // 20 s uncovered gap (< maxGap 60 s), then a 1 s sample at 0.2: the whole 21 s span decays toward 0.2
        assertThat(ewma.update(22_000, 1000, bytesFor(0.2, 1000), BW)).isEqualTo(RhoOutcome.ACCEPTED);
        double beta = Math.exp(-21_000 / 10_000.0);
        assertThat(ewma.rho()).isCloseTo(beta * 0.8 + (1 - beta) * 0.2, offset(1e-9));
        assertThat(ewma.samples()).isEqualTo(2);
        // 100 s gap (> maxGap): restart at the new sample
        assertThat(ewma.update(123_000, 1000, bytesFor(0.5, 1000), BW)).isEqualTo(RhoOutcome.ACCEPTED_AFTER_RESET);
        assertThat(ewma.rho()).isCloseTo(0.5, offset(1e-9));
        assertThat(ewma.resets()).isEqualTo(1);
        assertThat(ewma.samples()).isEqualTo(1);
        assertThat(ewma.estimate().windowStartMs()).isEqualTo(123_000);
    }

    @Test
    void overlappingIntervalCountsOnlyItsNewPart() {
        RhoEwma a = new RhoEwma(CONFIG);
        RhoEwma b = new RhoEwma(CONFIG);
        a.update(1000, 1000, bytesFor(0.1, 1000), BW);
        b.update(1000, 1000, bytesFor(0.1, 1000), BW);
        a.update(3000, 2000, bytesFor(0.6, 2000), BW);
        b.update(3000, 5000, bytesFor(0.6, 5000), BW); // reaches back before the previous end
        assertThat(b.rho()).isCloseTo(a.rho(), offset(1e-9));
    }

    @Test
    void saturationIsClampedButCounted() {
        RhoEwma ewma = new RhoEwma(CONFIG);
        ewma.update(1000, 1000, bytesFor(1.7, 1000), BW);
        ewma.update(2000, 1000, bytesFor(2.0, 1000), BW);
        ewma.update(3000, 1000, bytesFor(0.5, 1000), BW);
        assertThat(ewma.saturatedSamples()).isEqualTo(2);
        assertThat(ewma.rho()).isBetween(0.5, 1.0);
        assertThat(ewma.estimate().value()).isLessThanOrEqualTo(1.0);
    }

    @Test
    void badSamplesAreRejectedWithAReason() {
        RhoEwma ewma = new RhoEwma(CONFIG);
        assertThat(ewma.update(1000, 1000, 100, Double.NaN)).isEqualTo(RhoOutcome.REJECTED_NON_FINITE);
        assertThat(ewma.update(1000, 1000, 100, Double.POSITIVE_INFINITY)).isEqualTo(RhoOutcome.REJECTED_NON_FINITE);
        assertThat(ewma.update(1000, 1000, -1, BW)).isEqualTo(RhoOutcome.REJECTED_NEGATIVE);
        assertThat(ewma.update(1000, -5, 1, BW)).isEqualTo(RhoOutcome.REJECTED_NEGATIVE);
        assertThat(ewma.update(1000, 1000, 1, 0)).isEqualTo(RhoOutcome.REJECTED_NON_POSITIVE_BANDWIDTH);
        assertThat(ewma.update(1000, 1000, 1, -3)).isEqualTo(RhoOutcome.REJECTED_NON_POSITIVE_BANDWIDTH);
        assertThat(ewma.update(1000, 0, 1, BW)).isEqualTo(RhoOutcome.REJECTED_ZERO_INTERVAL);
        assertThat(ewma.hasValue()).isFalse();
        assertThat(ewma.update(5000, 1000, bytesFor(0.3, 1000), BW)).isEqualTo(RhoOutcome.ACCEPTED);
        assertThat(ewma.update(5000, 1000, bytesFor(0.9, 1000), BW)).isEqualTo(RhoOutcome.REJECTED_DUPLICATE);
        assertThat(ewma.update(4000, 1000, bytesFor(0.9, 1000), BW)).isEqualTo(RhoOutcome.REJECTED_OUT_OF_ORDER);
        assertThat(ewma.rho()).isCloseTo(0.3, offset(1e-9));
        assertThat(ewma.samples()).isEqualTo(1);
    }

    @Test
    void standardErrorShrinksWithMoreSamplesOfAStationaryRate() {
        SplittableRandom rnd = new SplittableRandom(9);
        RhoEwma ewma = new RhoEwma(new RhoConfig(60_000, 60_000, 600_000, 10_000, 100));
        long t = 0;
        double sumSq = 0;
        int n = 0;
        for (int i = 0; i < 2000; i++) {
            t += 1000;
            double u = 0.4 + 0.1 * rnd.nextGaussian();
            ewma.update(t, 1000, bytesFor(Math.max(0, u), 1000), BW);
            if (i > 500 && i % 60 == 0) {
                sumSq += (ewma.rho() - 0.4) * (ewma.rho() - 0.4);
                n++;
            }
        }
        double empirical = Math.sqrt(sumSq / n);
        double reported = ewma.stdError();
        // seed 9: the reported SE (EW variance × Σw²) matches the spread of the EWMA around the truth
        assertThat(reported).isBetween(empirical / 2, empirical * 2);
    }
}
