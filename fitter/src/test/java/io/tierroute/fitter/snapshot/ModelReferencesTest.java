package io.tierroute.fitter.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.ModelCarrier;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelReferencesTest {
    private final SnapshotAssembler assembler = new SnapshotAssembler("test", () -> SnapshotFixtures.T1);

    private ParameterSnapshot gated(long version, QuantileForestModel model) {
        ParameterSnapshot s = assembler.assemble("default", version - 1, null, SnapshotFixtures.good(10_000));
        s.setQuantileModel(model);
        s.setStatus(SnapshotStatus.ACCEPTED);
        return s;
    }

    @Test
    void aModelNoRecordCarriesYetTravelsInFullUnderItsOwnVersion() {
        QuantileForestModel m = GateTestSupport.tinyForest(5000);
        ParameterSnapshot out = ModelReferences.forPublication(gated(7, m), List.of());
        assertThat(out.getQuantileModel()).isSameAs(m);
        assertThat(out.getQuantileModelVersion()).isEqualTo(7L);
        assertThat(ModelCarrier.problem(out)).isNull();
    }

    @Test
    void aModelAnEarlierRecordCarriedIsNamedNotRepeated() {
        QuantileForestModel carried = GateTestSupport.tinyForest(5000);
        ParameterSnapshot in = gated(9, QuantileForestModel.newBuilder(carried).build()); // equal, another object
        ParameterSnapshot out = ModelReferences.forPublication(in, List.of(
            new ModelReferences.Carrier(3, GateTestSupport.tinyForest(6000)), new ModelReferences.Carrier(5, carried)));
        assertThat(out.getQuantileModel()).isNull();
        assertThat(out.getQuantileModelVersion()).isEqualTo(5L);
        assertThat(ModelCarrier.refersElsewhere(out)).isTrue();
        assertThat(ModelCarrier.problem(out)).isNull();
        assertThat(in.getQuantileModel()).as("the gated snapshot keeps its model (the job stores it)").isNotNull();
        assertThat(out.getAlphaP()).isEqualTo(in.getAlphaP());
    }

    @Test
    void aDifferentModelIsCarriedAgainAndNoModelNamesNothing() {
        QuantileForestModel retrained = GateTestSupport.tinyForest(7000);
        ParameterSnapshot out = ModelReferences.forPublication(gated(9, retrained),
            List.of(new ModelReferences.Carrier(5, GateTestSupport.tinyForest(5000))));
        assertThat(out.getQuantileModel()).isSameAs(retrained);
        assertThat(out.getQuantileModelVersion()).isEqualTo(9L);

        ParameterSnapshot none = ModelReferences.forPublication(gated(10, null),
            List.of(new ModelReferences.Carrier(5, GateTestSupport.tinyForest(5000))));
        assertThat(none.getQuantileModel()).isNull();
        assertThat(none.getQuantileModelVersion()).isNull();
        assertThat(ModelCarrier.versionOf(none)).isNull();
    }

    @Test
    void theActiveSnapshotsCarrierIsTheVersionItNamesOrItselfForAnOlderWriter() {
        QuantileForestModel m = GateTestSupport.tinyForest(5000);
        ParameterSnapshot named = gated(12, m);
        named.setQuantileModelVersion(4L);
        assertThat(ModelReferences.carrierOf(named).version()).isEqualTo(4);
        ParameterSnapshot legacy = gated(12, m); // written before quantileModelVersion existed: inline, unnamed
        assertThat(ModelReferences.carrierOf(legacy).version()).isEqualTo(12);
        assertThat(ModelReferences.carrierOf(gated(12, null))).isNull();
        assertThat(ModelReferences.carrierOf(null)).isNull();
    }

    @Test
    void aReferenceToTheFutureOrToAnotherRecordWhileCarryingIsAProblem() {
        ParameterSnapshot ahead = gated(5, null);
        ahead.setQuantileModelVersion(8L);
        assertThat(ModelCarrier.problem(ahead)).contains("not an earlier version");
        ParameterSnapshot both = gated(5, GateTestSupport.tinyForest(5000));
        both.setQuantileModelVersion(3L);
        assertThat(ModelCarrier.problem(both)).contains("carries its model itself");
    }
}
