package io.tierroute.fitter.forest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierroute.schemas.avro.QuantileCoverage;
import io.tierroute.schemas.avro.QuantileForestModel;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The trainer's held-out calibration (coverage per quantile) and its validation. */
class ForestCalibrationTest {

    private static final ForestConfig SMALL = ForestConfig.defaults().withTrees(20).withSeed(5);

    @Test
    void calibrationMatchesCoverageOnIndependentRowsAndLeavesTheForestUnchanged() {
        List<OutputRow> rows = SyntheticOutputs.rows(31, 5_000, true);
        QuantileForest calibrated = new QuantileForestTrainer(SMALL).fit(rows);
        List<QuantileCoverage> cal = calibrated.model().getCalibration();
        List<Double> qs = CalibrationConfig.defaults().quantiles();
        assertThat(cal).extracting(QuantileCoverage::getQuantile).containsExactlyElementsOf(qs);
        assertThat(cal).allSatisfy(c -> assertThat(c.getRows()).isEqualTo(1_000L));
        assertThat(ForestCalibration.problems(calibrated.model())).isEmpty();

        // The published forest is the one a fit without calibration gives, bit for bit.
        QuantileForest plain = new QuantileForestTrainer(SMALL, CalibrationConfig.off()).fit(rows);
        assertThat(plain.model().getCalibration()).isEmpty();
        QuantileForestModel withoutCal = QuantileForestModel.newBuilder(calibrated.model()).setCalibration(List.of()).build();
        assertThat(withoutCal).isEqualTo(plain.model());

        // The held-out estimate agrees with the coverage of the published forest on 5 000 fresh rows.
        List<OutputRow> fresh = SyntheticOutputs.rows(32, 5_000, true);
        List<QuantileCoverage> truth = ForestCalibration.measure(calibrated, fresh, qs);
        for (int i = 0; i < qs.size(); i++) {
            double q = qs.get(i);
            System.out.printf("QRF calibration q=%.2f: held-out coverage %.4f (1 000 rows), fresh-row coverage %.4f "
                + "(5 000 rows)%n", q, cal.get(i).getCoverage(), truth.get(i).getCoverage());
            // 3.5 standard errors of the 1 000-row estimate, plus 1 point for the 80 % vs 100 % training sample
            double tolerance = 3.5 * Math.sqrt(q * (1 - q) / 1_000) + 0.01;
            assertThat(cal.get(i).getCoverage()).as("q=%s", q).isCloseTo(truth.get(i).getCoverage(),
                org.assertj.core.data.Offset.offset(tolerance));
        }
    }

    /**
     * The hint is never a split: the selector asks the forest only for a request without one (with NaN), and a split
     * on it sent every such request to the side of the large hints. Here the hint is the output itself, the strongest
     * predictor a tree could take.
     */
    @Test
    void noTreeSplitsOnTheHint() {
        List<OutputRow> rows = new java.util.ArrayList<>();
        for (OutputRow r : SyntheticOutputs.rows(41, 2_000, true)) {
            rows.add(new OutputRow(r.inputTokens(), r.model(), r.lora(), r.stepIndex(), r.expectedTool(), r.maxTokens(),
                    rows.size() % 2 == 0 ? (Integer) r.outputTokens() : null, r.prefixGroupId(),
                    r.previousStepOutputTokens(), r.outputTokens()));
        }
        QuantileForestModel m = new QuantileForestTrainer(SMALL).fit(rows).model();
        int hint = m.getFeatureNames().stream().map(CharSequence::toString).toList().indexOf("outputHint");
        assertThat(hint).isGreaterThanOrEqualTo(0);
        assertThat(m.getNodeSplitFeature()).as("splits").isNotEmpty().doesNotContain(hint);
    }

    @Test
    void aSampleTooSmallToHoldOutGetsNoCalibration() {
        QuantileForest f = new QuantileForestTrainer(SMALL).fit(SyntheticOutputs.rows(3, 60, true));
        assertThat(f.model().getCalibration()).as("60 rows hold out 12 < 20").isEmpty();
        assertThat(f.model().getTrainingRows()).isEqualTo(60);
    }

    @Test
    void heldOutRowsFollowTheConfig() {
        CalibrationConfig c = CalibrationConfig.defaults();
        assertThat(c.heldOutRows(97)).as("19.4 rounds to 19 < 20").isZero();
        assertThat(c.heldOutRows(100)).isEqualTo(20);
        assertThat(c.heldOutRows(1_000)).isEqualTo(200);
        assertThat(c.heldOutRows(1_000_000)).isEqualTo(5_000);
        assertThat(CalibrationConfig.off().heldOutRows(1_000_000)).isZero();
        boolean[] mask = ForestCalibration.heldOutMask(1_000, 200, 7);
        int held = 0;
        for (boolean b : mask) {
            held += b ? 1 : 0;
        }
        assertThat(held).isEqualTo(200);
        assertThat(ForestCalibration.heldOutMask(1_000, 200, 7)).isEqualTo(mask);
        assertThatThrownBy(() -> new CalibrationConfig(0.2, 20, 5_000, List.of(0.9, 0.5)))
            .hasMessageContaining("strictly ascending");
        assertThatThrownBy(() -> new CalibrationConfig(1.0, 20, 5_000, List.of(0.5)))
            .hasMessageContaining("heldOutFraction");
    }

    @Test
    void multiQuantilePredictionEqualsOneAtATime() {
        QuantileForest f = new QuantileForestTrainer(SMALL, CalibrationConfig.off()).fit(SyntheticOutputs.rows(8, 2_000, true));
        double[] qs = {0.05, 0.1, 0.5, 0.5, 0.9, 0.99};
        for (OutputRow r : SyntheticOutputs.rows(9, 200, true)) {
            double[] x = f.features().encode(r);
            double[] all = f.predict(x, qs);
            for (int i = 0; i < qs.length; i++) {
                assertThat(all[i]).isEqualTo(f.predict(r, qs[i]));
            }
        }
        assertThatThrownBy(() -> f.predict(new double[ForestFeatures.NAMES.size()], new double[] {0.9, 0.5}))
            .hasMessageContaining("ascending");
    }

    @Test
    void problemsNameEveryBadEntry() {
        QuantileForestModel m = new QuantileForestTrainer(SMALL, CalibrationConfig.off())
            .fit(SyntheticOutputs.rows(3, 200, true)).model();
        m.setCalibration(List.of(new QuantileCoverage(0.5, Double.NaN, 10L), new QuantileCoverage(0.4, 0.4, -2L),
            new QuantileCoverage(Double.NaN, 0.5, 1L)));
        assertThat(ForestCalibration.problems(m)).containsExactly(
            "calibration coverage at q=0.5 is NaN, not in [0, 1]",
            "calibration quantiles are not strictly ascending (0.4 after 0.5)",
            "calibration rows at q=0.4 is -2 < 0",
            "calibration quantile NaN is not in (0, 1)");
    }
}
