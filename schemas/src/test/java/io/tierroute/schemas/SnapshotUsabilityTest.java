package io.tierroute.schemas;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.WorkerTierRho;
import io.tierroute.schemas.snapshot.SnapshotUsability;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/** What makes a snapshot's values unusable to a selector, named as the field a reader finds it in. */
class SnapshotUsabilityTest {

    static {
        AvroTrust.install(); // building the sample deep-copies its forest's records through Avro's class check
    }

    /** A fresh accepted sample with {@code change} made. */
    private static ParameterSnapshot with(Consumer<ParameterSnapshot> change) {
        ParameterSnapshot s = Samples.parameterSnapshot(true);
        change.accept(s);
        return s;
    }

    @Test
    void aSnapshotThatPassedTheGateIsUsable() {
        assertThat(SnapshotUsability.problem(with(s -> { }))).isEmpty();
        assertThat(SnapshotUsability.problem(with(s -> {
            s.setBandwidths(List.of());
            s.setRho(List.of());
        })))
                .as("no bandwidth and no ρ: the configured links, ρ 0").isEmpty();
    }

    @Test
    void aScalarThatIsNotFiniteOrOutOfItsBoundsIsNamedWithItsValue() {
        assertThat(SnapshotUsability.problem(with(s -> s.setAlphaP(Samples.unfitted(Double.NaN)))))
                .hasValue("alphaP must be finite, got NaN");
        assertThat(SnapshotUsability.problem(with(s -> s.setAlphaP(Samples.unfitted(0)))))
                .hasValue("alphaP = 0 is outside its physical bounds (0, 10000] µs/token");
        assertThat(SnapshotUsability.problem(with(s -> s.setLambda(Samples.unfitted(2)))))
                .hasValue("lambda = 2 is outside its physical bounds [0.000001, 1] 1/s");
        assertThat(SnapshotUsability.problem(with(s -> s.setKvWaitScale(Samples.unfitted(-0.1)))))
                .hasValue("kvWaitScale = -0.1 is outside its physical bounds [0, 1] (dimensionless)");
    }

    @Test
    void aBandwidthOfHbmOrOutOfBoundsIsNamedWithItsTier() {
        assertThat(SnapshotUsability.problem(with(s -> s.setBandwidths(List.of(bandwidth(Tier.HBM, 3e12))))))
                .hasValue("bandwidths: HBM has no transfer bandwidth, got 3.0E12");
        assertThat(SnapshotUsability.problem(with(s -> s.setBandwidths(List.of(bandwidth(Tier.NVME, 1e5))))))
                .hasValue("bandwidths[NVME] = 100000 is outside its physical bounds (1000000, 1E+13] bytes/s");
        assertThat(SnapshotUsability.problem(with(s -> s.setBandwidths(
                List.of(bandwidth(Tier.CPU, Double.POSITIVE_INFINITY))))))
                .hasValue("bandwidths[CPU] must be finite, got Infinity");
    }

    @Test
    void aRhoOrItsReferenceOutOfBoundsIsNamedWithItsWorkerAndTier() {
        assertThat(SnapshotUsability.problem(with(s -> s.setRho(List.of(rho("w7", 1.5, null))))))
                .hasValue("rho[w7][CPU] = 1.5 is outside its physical bounds [0, 1] (dimensionless)");
        assertThat(SnapshotUsability.problem(with(s -> s.setRho(List.of(rho("w7", 0.5, Double.NaN))))))
                .hasValue("rho[w7][CPU].referenceBytesPerSecond = NaN is outside its physical bounds "
                        + "(1000000, 1E+13] bytes/s");
    }

    @Test
    void theFirstRefusedValueIsNamedScalarsBeforeBandwidthsBeforeRho() {
        List<WorkerTierRho> rho = new ArrayList<>(List.of(rho("w7", 2, null)));
        ParameterSnapshot bad = with(s -> {
            s.setAlphaD(Samples.unfitted(-1));
            s.setBandwidths(List.of(bandwidth(Tier.HBM, 1e9)));
            s.setRho(rho);
        });
        assertThat(SnapshotUsability.problem(bad)).get().asString().startsWith("alphaD = -1");
    }

    private static TierBandwidth bandwidth(Tier t, double v) {
        return TierBandwidth.newBuilder().setTier(t).setBytesPerSecond(Samples.unfitted(v)).build();
    }

    private static WorkerTierRho rho(String worker, double v, Double reference) {
        FittedValue f = Samples.unfitted(v);
        return WorkerTierRho.newBuilder().setWorker(worker).setTier(Tier.CPU).setRho(f)
                .setReferenceBytesPerSecond(reference).build();
    }
}
