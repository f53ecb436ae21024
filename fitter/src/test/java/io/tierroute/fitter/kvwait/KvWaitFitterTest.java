package io.tierroute.fitter.kvwait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.tierroute.schemas.snapshot.SnapshotParameter;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KvWaitFitterTest {

    static final double TAU0 = 6_000;   // µs per predicted token at no resident KV
    static final double ALPHA = 0.02;   // µs per predicted token per resident KV token

    /**
     * Rows whose decode time per predicted token is exactly {@code TAU0 + ALPHA·KV} (times {@code 1 + noise}), and
     * whose realised excess wait is {@code trueScale·W} on the rows that overflow (every third).
     */
    static List<KvWaitRow> rows(int n, double trueScale, double noise, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<KvWaitRow> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            double kv = 10_000 + rnd.nextDouble() * 200_000;
            double dHat = 100 + rnd.nextInt(900);
            double perToken = (TAU0 + ALPHA * kv) * (1 + noise * (rnd.nextDouble() - 0.5));
            double missing = i % 3 == 0 ? rnd.nextDouble() * 40_000 : 0;
            double inflightDecode = 500 + rnd.nextDouble() * 5_000;
            int inFlight = 1 + rnd.nextInt(12);
            double w = AdmissionWait.micros(missing, kv, inflightDecode, inFlight, TAU0, ALPHA);
            double predictedPrefill = 50_000, predictedQueue = 20_000;
            // realised: the predicted prefill and queue, plus trueScale of the wait
            out.add(new KvWaitRow(1_700_000_000_000L + i, kv, dHat, missing, inflightDecode, inFlight, predictedPrefill, predictedQueue,
                    2 + rnd.nextInt(500), perToken * dHat, predictedQueue + trueScale * w, predictedPrefill));
        }
        return out;
    }

    @Test
    void recoversTheDecodeStepAndTheScaleFromExactRows() {
        KvWaitFit fit = KvWaitFitter.fit(rows(600, 0.4, 0.0, 1));
        assertThat(fit.tau0Us()).isCloseTo(TAU0, offset(1e-6 * TAU0));
        assertThat(fit.perKvTokenUs()).isCloseTo(ALPHA, offset(1e-9));
        assertThat(fit.decodeR2()).isCloseTo(1.0, offset(1e-9));
        assertThat(fit.scale()).isCloseTo(0.4, offset(1e-9));
        assertThat(fit.waitRows()).isEqualTo(200);
        assertThat(fit.decodeRows()).isEqualTo(600);
        // exact rows: no residual, so no error; the window spans the rows' event times
        assertThat(fit.perKvTokenStdError()).isCloseTo(0.0, offset(1e-9));
        assertThat(fit.tau0().samples()).isEqualTo(600);
        assertThat(fit.scaleEstimate().samples()).isEqualTo(200);
        assertThat(fit.tau0().windowStartMs()).isEqualTo(1_700_000_000_000L);
        assertThat(fit.tau0().windowEndMs()).isEqualTo(1_700_000_000_000L + 600);
    }

    @Test
    void unusableRowsAreLeftOutAndCountedNotAllowedToSpoilTheFit() {
        List<KvWaitRow> rows = new ArrayList<>(rows(600, 0.4, 0.0, 1));
        KvWaitRow r = rows.get(0);
        rows.add(new KvWaitRow(r.eventTimeMs(), Double.POSITIVE_INFINITY, r.predictedOutputTokens(), r.missingKvTokens(),
                r.inflightDecodeTokens(), r.inFlight(), r.predictedPrefillUs(), r.predictedQueueUs(), r.outputTokens(),
                r.decodeUs(), r.queueWaitUs(), r.prefillUs()));
        rows.add(new KvWaitRow(r.eventTimeMs(), r.kvUsedTokens(), 1e-300, r.missingKvTokens(), r.inflightDecodeTokens(),
                r.inFlight(), r.predictedPrefillUs(), r.predictedQueueUs(), r.outputTokens(), r.decodeUs(), r.queueWaitUs(),
                r.prefillUs()));
        rows.add(new KvWaitRow(r.eventTimeMs(), r.kvUsedTokens(), r.predictedOutputTokens(), 30_000, r.inflightDecodeTokens(),
                r.inFlight(), r.predictedPrefillUs(), r.predictedQueueUs(), r.outputTokens(), r.decodeUs(), Double.NaN,
                r.prefillUs()));
        KvWaitFit fit = KvWaitFitter.fit(rows);
        assertThat(fit.skippedRows()).as("the infinite KV and the NaN wait; the tiny d̂ only leaves the decode step")
                .isEqualTo(2);
        assertThat(fit.decodeRows()).isEqualTo(600);
        assertThat(fit.fitted()).isTrue();
        assertThat(fit.perKvTokenUs()).isCloseTo(ALPHA, offset(1e-9));
        assertThat(fit.scale()).as("no NaN k from a row's NaN wait").isCloseTo(0.4, offset(1e-9));
        assertThat(KvWaitFitter.fit(rows.subList(600, 603)).skippedRows()).isEqualTo(2);
    }

    @Test
    void rowsBeyondTheRegressionsSanityCapsAreLeftOutAndCounted() {
        // a missing timestamp taken as the epoch: a queue wait (or decode time) of ~1.7e15 µs, finite and ≥ 0
        List<KvWaitRow> rows = new ArrayList<>(rows(600, 0.4, 0.0, 1));
        KvWaitRow r = rows.get(0);
        rows.add(new KvWaitRow(r.eventTimeMs(), r.kvUsedTokens(), r.predictedOutputTokens(), 0, r.inflightDecodeTokens(),
                r.inFlight(), r.predictedPrefillUs(), r.predictedQueueUs(), r.outputTokens(), r.decodeUs(), 1.7e15,
                r.prefillUs()));
        rows.add(new KvWaitRow(r.eventTimeMs(), r.kvUsedTokens(), r.predictedOutputTokens(), r.missingKvTokens(),
                r.inflightDecodeTokens(), r.inFlight(), r.predictedPrefillUs(), r.predictedQueueUs(), r.outputTokens(),
                1.7e15, r.queueWaitUs(), r.prefillUs()));
        KvWaitFit fit = KvWaitFitter.fit(rows);
        assertThat(fit.skippedRows()).isEqualTo(2);
        assertThat(fit.scale()).as("k, not driven to 0 by the control with a 1.7e15 µs excess").isCloseTo(0.4, offset(1e-9));
        assertThat(fit.perKvTokenUs()).isCloseTo(ALPHA, offset(1e-9));
        assertThat(fit.tau0Us()).isCloseTo(TAU0, offset(1e-6 * TAU0));
        assertThat(fit.decodeRows()).isEqualTo(600);
    }

    /**
     * A client whose output hints say 1 token on 2,000-token answers: 2,000 steps per predicted token. A fifth of the
     * rows so put the mean decode time per predicted token, and τ₀, past its 1 s bound, where the gate rejected every
     * snapshot. Such rows leave the decode step (they still count for the scale).
     */
    @Test
    void aDecodeTimePerPredictedTokenBeyondTauZerosBoundIsNoDecodeStep() {
        List<KvWaitRow> rows = new ArrayList<>(rows(600, 0.4, 0.0, 1));
        for (KvWaitRow r : List.copyOf(rows.subList(0, 150))) {
            double perToken = TAU0 + ALPHA * r.kvUsedTokens();
            rows.add(new KvWaitRow(r.eventTimeMs(), r.kvUsedTokens(), 1, 0, r.inflightDecodeTokens(), r.inFlight(),
                    r.predictedPrefillUs(), r.predictedQueueUs(), 2_000, perToken * 2_000, r.predictedQueueUs(),
                    r.prefillUs()));
        }
        assertThat(rows.get(600).decodeTimePastTauZerosBound()).as("each such row alone is beyond the bound").isTrue();
        assertThat(rows.get(0).decodeTimePastTauZerosBound()).isFalse();
        KvWaitFit fit = KvWaitFitter.fit(rows);
        assertThat(fit.decodeRows()).isEqualTo(600);
        assertThat(fit.skippedRows()).isZero();
        assertThat(fit.tau0Us()).isCloseTo(TAU0, offset(1e-6 * TAU0));
        assertThat(fit.perKvTokenUs()).isCloseTo(ALPHA, offset(1e-9));
        assertThat(SnapshotParameter.DECODE_STEP_US.inBounds(fit.tau0Us())).isTrue();
    }

    /**
     * 1-token hints on 50-token answers at a high KV, 1 % of the rows, each within τ₀'s bound: the slope went past the
     * gate's bound on α (10 µs per KV token), where every snapshot of the scope was rejected. It stops at the bound, with
     * the intercept fitted beside it (KV 20,000), or at 0 when that would be negative (KV 50,000: the line through the
     * origin, whose slope stops there too), and with an error of +∞, so the gate holds it (AdmissionWaitGateTest).
     */
    @Test
    void aSlopePastTheGatesBoundStopsThere() {
        for (double outlierKv : new double[] {20_000, 50_000}) {
            List<KvWaitRow> rows = lowKvRowsWithHintsOfOneToken(outlierKv);
            KvWaitFit fit = KvWaitFitter.fit(rows);
            assertThat(fit.decodeRows()).as("every row is within τ₀'s bound").isEqualTo(2_020);
            assertThat(fit.perKvTokenUs()).isEqualTo(KvWaitFitter.MAX_ALPHA);
            assertThat(fit.perKvToken().stdError().getAsDouble()).as("no measurement of α: the gate holds it")
                    .isEqualTo(Double.POSITIVE_INFINITY);
            double meanY = rows.stream().mapToDouble(r -> r.decodeUs() / r.predictedOutputTokens()).average().orElseThrow();
            double meanX = rows.stream().mapToDouble(KvWaitRow::kvUsedTokens).average().orElseThrow();
            double beside = meanY - KvWaitFitter.MAX_ALPHA * meanX;
            assertThat(beside > 0).as("KV " + outlierKv + ": the intercept beside the bound is positive")
                    .isEqualTo(outlierKv == 20_000);
            assertThat(fit.tau0Us()).isCloseTo(Math.max(0, beside), offset(1e-6 * meanY));
            assertThat(SnapshotParameter.DECODE_STEP_US.inBounds(fit.tau0Us())).isTrue();
            assertThat(fit.decodeR2()).isBetween(0.0, 1.0);
        }
    }

    /** 2,000 rows at KV 500–4,000 (a 15 ms step + 0.5 µs per KV token) and 20 with 1-token hints at {@code kv}. */
    private static List<KvWaitRow> lowKvRowsWithHintsOfOneToken(double kv) {
        SplittableRandom rnd = new SplittableRandom(11);
        List<KvWaitRow> rows = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            double x = 500 + rnd.nextDouble() * 3_500;
            double dHat = 100 + rnd.nextInt(400);
            rows.add(new KvWaitRow(1_700_000_000_000L + i, x, dHat, 0, 1_000, 4, 50_000, 20_000, 2 + rnd.nextInt(500),
                    (15_000 + 0.5 * x) * dHat, 20_000, 50_000));
        }
        for (int i = 0; i < 20; i++) {
            rows.add(new KvWaitRow(1_700_000_002_000L + i, kv, 1, 0, 1_000, 4, 50_000, 20_000, 50, 9.9e5, 20_000,
                    50_000));
        }
        return rows;
    }

    @Test
    void noisyDecodeTimesStillGiveTheSlope() {
        KvWaitFit fit = KvWaitFitter.fit(rows(5_000, 0.7, 0.3, 2));
        assertThat(fit.perKvTokenUs()).isCloseTo(ALPHA, offset(0.1 * ALPHA));
        assertThat(fit.tau0Us()).isCloseTo(TAU0, offset(0.1 * TAU0));
        assertThat(fit.scale()).isCloseTo(0.7, offset(0.05));
        // the standard errors a naive recomputation gives (oracle below)
        double[] se = naiveStandardErrors(rows(5_000, 0.7, 0.3, 2), fit.tau0Us(), fit.perKvTokenUs());
        assertThat(fit.tau0StdError()).isCloseTo(se[0], offset(1e-6 * se[0]));
        assertThat(fit.perKvTokenStdError()).isCloseTo(se[1], offset(1e-6 * se[1]));
        assertThat(fit.perKvToken().qualityKind()).isEqualTo(io.tierroute.fitter.QualityKind.STD_ERROR);
    }

    /** OLS standard errors of intercept and slope, the textbook way (two passes over the rows). */
    static double[] naiveStandardErrors(List<KvWaitRow> rows, double a, double b) {
        List<double[]> xy = new ArrayList<>();
        for (KvWaitRow r : rows) {
            xy.add(new double[] {r.kvUsedTokens(), r.decodeUs() / r.predictedOutputTokens()});
        }
        double mx = xy.stream().mapToDouble(p -> p[0]).average().orElseThrow();
        double sxx = xy.stream().mapToDouble(p -> (p[0] - mx) * (p[0] - mx)).sum();
        double ssr = xy.stream().mapToDouble(p -> Math.pow(p[1] - a - b * p[0], 2)).sum();
        double s2 = ssr / (xy.size() - 2);
        return new double[] {Math.sqrt(s2 * (1.0 / xy.size() + mx * mx / sxx)), Math.sqrt(s2 / sxx)};
    }

    @Test
    void whatEveryRequestWaitedIsNotTheWaitForHbm() {
        // the whole fleet queues: every request, overflowing or not, waits 3 s beyond C_prefill + C_queue
        List<KvWaitRow> rows = new ArrayList<>();
        for (KvWaitRow r : rows(600, 0.4, 0.0, 8)) {
            rows.add(new KvWaitRow(r.eventTimeMs(), r.kvUsedTokens(), r.predictedOutputTokens(), r.missingKvTokens(),
                    r.inflightDecodeTokens(), r.inFlight(), r.predictedPrefillUs(), r.predictedQueueUs(),
                    r.outputTokens(), r.decodeUs(), r.queueWaitUs() + 3_000_000, r.prefillUs()));
        }
        KvWaitFit fit = KvWaitFitter.fit(rows);
        assertThat(fit.scale()).isCloseTo(0.4, offset(1e-9));
        // without the control the 3 s would be read as wait for HBM
        double swy = 0, sww = 0;
        for (KvWaitRow r : rows) {
            double w = AdmissionWait.micros(r.missingKvTokens(), r.kvUsedTokens(), r.inflightDecodeTokens(),
                    r.inFlight(), fit.tau0Us(), fit.perKvTokenUs());
            if (w > 0) {
                swy += w * (r.queueWaitUs() + r.prefillUs() - r.predictedPrefillUs() - r.predictedQueueUs());
                sww += w * w;
            }
        }
        assertThat(swy / sww).isGreaterThan(0.7);
    }

    @Test
    void theScaleIsClampedToOneAndNeverNegative() {
        KvWaitFit high = KvWaitFitter.fit(rows(600, 3.0, 0.0, 3));
        assertThat(high.unclampedScale()).isCloseTo(3.0, offset(1e-9));
        assertThat(high.scale()).isEqualTo(1.0);
        // nothing realised beyond the prediction: k = 0 (the excess wait is clamped at 0, never negative)
        KvWaitFit none = KvWaitFitter.fit(rows(600, 0.0, 0.0, 4));
        assertThat(none.scale()).isEqualTo(0.0);
    }

    @Test
    void fewerThanSixteenWaitingRowsLeaveTheScaleAtOne() {
        List<KvWaitRow> rows = new ArrayList<>();
        for (KvWaitRow r : rows(600, 0.2, 0.0, 5)) {
            rows.add(rows.size() < 45 ? r // 15 of these overflow (every third)
                    : new KvWaitRow(r.eventTimeMs(), r.kvUsedTokens(), r.predictedOutputTokens(), 0, r.inflightDecodeTokens(), r.inFlight(),
                    r.predictedPrefillUs(), r.predictedQueueUs(), r.outputTokens(), r.decodeUs(), r.queueWaitUs(),
                    r.prefillUs()));
        }
        KvWaitFit fit = KvWaitFitter.fit(rows);
        assertThat(fit.waitRows()).isEqualTo(15);
        assertThat(fit.scale()).isEqualTo(1.0);
        assertThat(fit.fitted()).isTrue();
        assertThat(fit.scaleFitted()).isFalse();
        assertThat(fit.scaleEstimate()).as("too few rows: the value in force is carried").isNull();
    }

    @Test
    void tooFewDecodeRowsGiveNoWaitTerm() {
        List<KvWaitRow> rows = rows(63, 0.5, 0.0, 6);
        assertThat(KvWaitFitter.fit(rows)).isEqualTo(KvWaitFit.NONE);
        assertThat(KvWaitFit.NONE.fitted()).isFalse();
        assertThat(KvWaitFit.NONE.tau0()).isNull();
        assertThat(KvWaitFit.NONE.perKvToken()).isNull();
        // single-token outputs and rows with no KV resident say nothing about a decode step
        List<KvWaitRow> useless = new ArrayList<>();
        for (KvWaitRow r : rows(200, 0.5, 0.0, 7)) {
            useless.add(new KvWaitRow(r.eventTimeMs(), useless.size() % 2 == 0 ? 0 : r.kvUsedTokens(), r.predictedOutputTokens(),
                    r.missingKvTokens(), r.inflightDecodeTokens(), r.inFlight(), r.predictedPrefillUs(),
                    r.predictedQueueUs(), useless.size() % 2 == 0 ? r.outputTokens() : 1, r.decodeUs(),
                    r.queueWaitUs(), r.prefillUs()));
        }
        assertThat(KvWaitFitter.fit(useless)).isEqualTo(KvWaitFit.NONE);
    }

    @Test
    void aFallingDecodeTimeIsNoSlope() {
        List<KvWaitRow> rows = new ArrayList<>();
        double sum = 0;
        for (int i = 0; i < 100; i++) {
            double kv = 1_000 + 1_000 * i;
            double perToken = 9_000 - 0.01 * kv; // falls with KV
            sum += perToken;
            rows.add(new KvWaitRow(i, kv, 10, 0, 100, 2, 0, 0, 10, perToken * 10, 0, 0));
        }
        KvWaitFit fit = KvWaitFitter.fit(rows);
        assertThat(fit.perKvTokenUs()).isEqualTo(0.0);
        assertThat(fit.tau0Us()).isCloseTo(sum / 100, offset(1e-6));
        assertThat(fit.decodeR2()).isEqualTo(0.0);
    }

    @Test
    void aNegativeInterceptFitsTheLineThroughTheOrigin() {
        // Per-token decode time 0.05 µs per resident KV token, no fixed part, measured on KV from 100 k to 200 k with
        // noise whose slope alone would put τ₀ below 0: the fit is the line through 0, not a clamped τ₀ beside the slope
        // fitted with a negative one.
        List<KvWaitRow> rows = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            double kv = 100_000 + 500 * i;
            double perToken = 0.05 * kv * (i % 2 == 0 ? 0.9 : 1.1) + (i < 100 ? -400 : 400); // steeper than 0.05
            rows.add(new KvWaitRow(i, kv, 10, 0, 100, 2, 0, 0, 10, perToken * 10, 0, 0));
        }
        KvWaitFit fit = KvWaitFitter.fit(rows);
        assertThat(fit.tau0Us()).isZero();
        assertThat(fit.tau0StdError()).as("the unconstrained intercept's: 0 was not estimated").isGreaterThan(100);
        double sxy = 0, sxx = 0, sy = 0;
        for (KvWaitRow r : rows) {
            double y = r.decodeUs() / r.predictedOutputTokens();
            sxy += r.kvUsedTokens() * y;
            sxx += r.kvUsedTokens() * r.kvUsedTokens();
            sy += y;
        }
        double alpha = sxy / sxx;
        assertThat(fit.perKvTokenUs()).isCloseTo(alpha, offset(1e-12));
        double ssr = 0, sst = 0;
        for (KvWaitRow r : rows) {
            double y = r.decodeUs() / r.predictedOutputTokens();
            ssr += (y - alpha * r.kvUsedTokens()) * (y - alpha * r.kvUsedTokens());
            sst += (y - sy / rows.size()) * (y - sy / rows.size());
        }
        assertThat(fit.perKvTokenStdError()).isCloseTo(Math.sqrt(ssr / (rows.size() - 1) / sxx), offset(1e-9));
        assertThat(fit.decodeR2()).isCloseTo(1 - ssr / sst, offset(1e-6));
        double meanKv = 150_000 - 250;
        double meanPerToken = rows.stream().mapToDouble(r -> r.decodeUs() / 10).average().orElseThrow();
        assertThat(fit.perKvTokenUs() * meanKv).as("the line meets the data at their mean")
                .isCloseTo(meanPerToken, org.assertj.core.data.Percentage.withPercentage(2));
    }

    @Test
    void theWaitFormulaTermByTerm() {
        // 30 k tokens missing of 120 k resident: a quarter of the 4 requests' mean 250 remaining tokens, at 8 ms each
        assertThat(AdmissionWait.micros(30_000, 120_000, 1_000, 4, 5_600, 0.02)).isCloseTo(0.25 * 250 * 8_000,
                offset(1e-6));
        // more missing than resident: every request must leave (the share is capped at 1)
        assertThat(AdmissionWait.micros(500_000, 120_000, 1_000, 4, 5_600, 0.02)).isCloseTo(250 * 8_000, offset(1e-6));
        assertThat(AdmissionWait.micros(0, 120_000, 1_000, 4, 5_600, 0.02)).isZero();
        assertThat(AdmissionWait.micros(30_000, 120_000, 1_000, 0, 5_600, 0.02)).isZero();
        assertThat(AdmissionWait.micros(30_000, 0, 1_000, 4, 5_600, 0.02)).isZero();
    }
}
