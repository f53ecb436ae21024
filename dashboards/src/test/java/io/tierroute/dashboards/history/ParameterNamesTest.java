package io.tierroute.dashboards.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.dashboards.Snapshots;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The dashboard shows every fitted scalar of the snapshot schema with a unit, the admission wait's τ₀, α and k included. */
class ParameterNamesTest {

    @Test
    void everyScalarOfTheSchemaHasAChartAndAUnit() {
        ParameterSnapshot s = Snapshots.accepted("default", 3).setDecodeStepUs(Snapshots.fv(2000, 400))
            .setDecodeStepKvUs(Snapshots.fv(0.01, 400)).setKvWaitScale(Snapshots.fv(0.6, 250)).build();
        Map<String, Fitted> values = ParameterNames.fittedValues(s);
        assertThat(values.keySet()).containsSubsequence(
            Arrays.stream(SnapshotParameter.SCALARS).map(SnapshotParameter::field).toList());
        for (SnapshotParameter p : SnapshotParameter.SCALARS) {
            assertThat(ParameterNames.unit(p.field())).as(p.field()).isNotEmpty();
        }
        assertThat(values.get("decodeStepUs").value()).isEqualTo(2000);
        assertThat(values.get("decodeStepKvUs").value()).isEqualTo(0.01);
        assertThat(values.get("kvWaitScale").value()).isEqualTo(0.6);
        assertThat(ParameterNames.unit("decodeStepUs")).isEqualTo("µs/token");
        assertThat(ParameterNames.unit("decodeStepKvUs")).isEqualTo("µs/token²");
        assertThat(ParameterNames.unit("kvWaitScale")).isEqualTo("×");
    }
}
