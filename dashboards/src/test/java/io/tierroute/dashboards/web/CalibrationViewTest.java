package io.tierroute.dashboards.web;

import io.tierroute.dashboards.Snapshots;
import io.tierroute.schemas.avro.QuantileForestModel;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The forest's pooled target quantiles, and a malformed forest (one the gate rejected) read without overrunning it. */
class CalibrationViewTest {

    @Test
    void pooledQuantilesWeighEachLeafBySampleAndRows() {
        QuantileForestModel m = Snapshots.forest(); // leaves of 40 rows (50–200) and 60 rows (300–900)
        assertThat(CalibrationView.leafSampleProblem(m)).isNull();
        List<java.util.Map<String, Object>> q = CalibrationView.targetQuantiles(m);
        assertThat(q).extracting(e -> e.get("q")).containsExactlyElementsOf(
                java.util.Arrays.stream(CalibrationView.QUANTILES).boxed().toList());
        assertThat(q.get(0).get("value")).isEqualTo(50.0);   // 5 % of the weight: the short leaf's first sample
        assertThat(q.get(3).get("value")).isEqualTo(300.0);  // the median: the long leaf holds 60 % of the rows
        assertThat(q.get(7).get("value")).isEqualTo(900.0);
    }

    @Test
    void overlappingNegativeOrOverrunningLeafRangesAreNamedNotRead() {
        QuantileForestModel overlapping = QuantileForestModel.newBuilder(Snapshots.forest())
                .setLeafRows(List.of(40, 60, 10)).setLeafSampleOffsets(List.of(0, 2, 0, 2))
                .setLeafSamples(List.of(50f, 80f)).build();
        assertThat(CalibrationView.leafSampleProblem(overlapping)).isEqualTo("leaf 1 has the sample range [2, 0) of 2 samples");

        QuantileForestModel negative = QuantileForestModel.newBuilder(Snapshots.forest())
                .setLeafSampleOffsets(List.of(-1, 4, 8)).build();
        assertThat(CalibrationView.leafSampleProblem(negative)).startsWith("leaf 0 has the sample range [-1, 4)");

        QuantileForestModel overrunning = QuantileForestModel.newBuilder(Snapshots.forest())
                .setLeafSampleOffsets(List.of(0, 4, 9)).build();
        assertThat(CalibrationView.leafSampleProblem(overrunning)).startsWith("leaf 1 has the sample range [4, 9)");

        QuantileForestModel shortOffsets = QuantileForestModel.newBuilder(Snapshots.forest())
                .setLeafSampleOffsets(List.of(0, 8)).build();
        assertThat(CalibrationView.leafSampleProblem(shortOffsets)).contains("needs one more");

        QuantileForestModel nan = QuantileForestModel.newBuilder(Snapshots.forest())
                .setLeafSamples(List.of(50f, 80f, Float.NaN, 200f, 300f, 400f, 600f, 900f)).build();
        assertThat(CalibrationView.leafSampleProblem(nan)).isEqualTo("leaf 0 has the sample NaN");
    }
}
