package io.tierroute.selector.kafka;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.protocol.WorkerRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Which snapshot bandwidths override the workers' configured links, and what ρ means on the link in use (no broker:
 * the converter alone).
 */
class SnapshotConverterTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final long T1 = T0 + 600_000L;

    private final SnapshotConverter converter =
            new SnapshotConverter(new WorkerRegistry(List.of("w0", "w1")), CostParameters.DEFAULTS, 0.5);

    /** What the fitter writes for a tier no snapshot has fitted: the DESIGN default, samples 0, window [0, 0). */
    private static FittedValue neverFitted(double bytesPerSecond) {
        return evidence(bytesPerSecond, 0, 0, 0);
    }

    /** A peak fitted in this version on 600 link samples over [T0, T1). */
    private static FittedValue fitted(double bytesPerSecond) {
        // built field by field: a deep copy (newBuilder(other)) of a record with an enum needs AvroTrust installed
        return FittedValue.newBuilder().setValue(bytesPerSecond).setSamples(600).setQuality(0.01 * bytesPerSecond)
                .setQualityKind(QualityKind.STD_ERROR).setStdError(null).setWindowStartMs(T0).setWindowEndMs(T1).build();
    }

    /** A fit of an earlier version carried on (inherited or held): samples 0, the fit's window. */
    private static FittedValue carriedFit(double bytesPerSecond) {
        return evidence(bytesPerSecond, 0, T0, T1);
    }

    private static FittedValue evidence(double value, long samples, long startMs, long endMs) {
        return FittedValue.newBuilder().setValue(value).setSamples(samples).setQuality(0)
                .setQualityKind(QualityKind.NONE).setStdError(null).setWindowStartMs(startMs).setWindowEndMs(endMs)
                .build();
    }

    private static ParameterSnapshot withBandwidths(FittedValue cpu, FittedValue nvme, FittedValue remote) {
        return KafkaFixture.snapshot("default", 1).setBandwidths(List.of(
                new TierBandwidth(io.tierroute.schemas.avro.Tier.CPU, cpu),
                new TierBandwidth(io.tierroute.schemas.avro.Tier.NVME, nvme),
                new TierBandwidth(io.tierroute.schemas.avro.Tier.REMOTE, remote))).build();
    }

    /** The CPU BW_t {@code cpu} (NVMe and remote never fitted) and w0's CPU ρ measured against it. */
    private static ParameterSnapshot withCpuRhoOfW0(FittedValue cpu, double rho) {
        return KafkaFixture.snapshot("default", 1)
                .setBandwidths(withBandwidths(cpu, neverFitted(7e9), neverFitted(25e9)).getBandwidths())
                .setRho(List.of(KafkaFixture.rho("w0", io.tierroute.schemas.avro.Tier.CPU, rho))).build();
    }

    private static double override(ParameterSet ps, Tier t) {
        return ps.bandwidthOverride(t.ordinal());
    }

    @Test
    void aNeverFittedDefaultLeavesTheConfiguredLinksInForce() {
        ParameterSet ps = converter.convert(withBandwidths(neverFitted(64e9), neverFitted(7e9), neverFitted(25e9)),
                "test", null);

        for (Tier t : Tier.values()) {
            assertThat(override(ps, t)).as("override of %s (NaN: the worker's configured link)", t).isNaN();
        }
        assertThat(ps.cost().alphaP()).as("the snapshot's scalars still apply").isEqualTo(1.5);
    }

    @Test
    void aFittedOrCarriedFitBandwidthOverridesTheConfiguredLink() {
        ParameterSet ps = converter.convert(withBandwidths(fitted(50e9), carriedFit(6e9), neverFitted(25e9)),
                "test", null);

        assertThat(override(ps, Tier.CPU)).as("fitted in this version").isEqualTo(50e9);
        assertThat(override(ps, Tier.NVME)).as("fitted earlier, carried on").isEqualTo(6e9);
        assertThat(override(ps, Tier.REMOTE)).as("never fitted").isNaN();
    }

    @Test
    void rhoMeasuredAgainstADefaultIsRescaledToTheConfiguredLink() {
        // The job measured w0's CPU link at ρ 0.1875 of the 64 GB/s default: 12 GB/s moved. On w0's configured
        // 16 GB/s link that is 0.75; on a 128 GB/s one 0.09375.
        ParameterSet ps = converter.convert(withCpuRhoOfW0(neverFitted(64e9), 0.1875), "test", null);

        int cpu = Tier.CPU.ordinal();
        assertThat(ps.rho(0, cpu)).as("as published").isEqualTo(0.1875);
        assertThat(ps.rhoReference(cpu)).isEqualTo(64e9);
        assertThat(ps.rhoOn(0, cpu, 16e9)).isEqualTo(0.75);
        assertThat(ps.rhoOn(0, cpu, 128e9)).isEqualTo(0.09375);
        assertThat(ps.rhoOn(0, cpu, 8e9)).as("more than the link carries: saturated").isEqualTo(1.0);
        assertThat(ps.rhoOn(1, cpu, 16e9)).as("no ρ published for w1").isZero();
    }

    @Test
    void aRhoOnItsLinksOwnReferenceIsRescaledFromThatReference() {
        // w0's NVMe link, seen at 14 GB/s, is measured against 14 GB/s while the tier's BW_t is the never-fitted
        // 7 GB/s: 12 GB/s moved is ρ 12/14 on w0's 14 GB/s link, past ρ_thr; from the tier's 7 GB/s it would be 1.
        io.tierroute.schemas.avro.WorkerTierRho fast = KafkaFixture.rho("w0", io.tierroute.schemas.avro.Tier.NVME, 12.0 / 14);
        fast.setReferenceBytesPerSecond(14e9);
        ParameterSnapshot s = KafkaFixture.snapshot("default", 1)
                .setBandwidths(withBandwidths(neverFitted(64e9), neverFitted(7e9), neverFitted(25e9)).getBandwidths())
                .setRho(List.of(fast, KafkaFixture.rho("w1", io.tierroute.schemas.avro.Tier.NVME, 0.5))).build();
        ParameterSet ps = converter.convert(s, "test", null);

        int nvme = Tier.NVME.ordinal();
        assertThat(ps.rhoOn(0, nvme, 14e9)).isEqualTo(12.0 / 14);
        assertThat(ps.rhoOn(0, nvme, 28e9)).isCloseTo(6.0 / 14, org.assertj.core.api.Assertions.within(1e-12));
        assertThat(ps.rhoOn(1, nvme, 14e9)).as("w1 on the tier's 7 GB/s").isEqualTo(0.25);
    }

    @Test
    void aRhoAgesFromItsWindowsEndButNeverFromAfterTheSnapshotWasCreated() {
        long created = 1_765_000_000_000L;
        ParameterSnapshot s = KafkaFixture.snapshot("default", 1).setCreatedAtMs(created).setRho(List.of(
                KafkaFixture.rho("w0", io.tierroute.schemas.avro.Tier.CPU, 0.5, created - 3_000),
                KafkaFixture.rho("w1", io.tierroute.schemas.avro.Tier.CPU, 0.5, created + 3_600_000))).build();
        ParameterSet ps = converter.convert(s, "test", null);
        assertThat(ps.oldestRhoAsOfMs()).isEqualTo(created - 3_000);
        ParameterSet w0Aged = ps.withRhoMeasuredBefore(created - 1_000);
        assertThat(w0Aged.rho(0, Tier.CPU.ordinal())).isZero();
        assertThat(w0Aged.rho(1, Tier.CPU.ordinal())).as("an engine clock an hour ahead: as of the snapshot's creation")
                .isEqualTo(0.5);
        assertThat(w0Aged.oldestRhoAsOfMs()).isEqualTo(created);
    }

    @Test
    void aRhoReferenceOutsideBandwidthsBoundsMakesTheSnapshotUnusable() {
        io.tierroute.schemas.avro.WorkerTierRho bad = KafkaFixture.rho("w0", io.tierroute.schemas.avro.Tier.NVME, 0.5);
        bad.setReferenceBytesPerSecond(Double.NaN);
        ParameterSnapshot s = KafkaFixture.snapshot("default", 1).setRho(List.of(bad)).build();

        assertThatThrownBy(() -> converter.convert(s, "test", null))
                .isInstanceOf(SnapshotConverter.UnusableSnapshotException.class)
                .hasMessageContaining("rho[w0][NVME].referenceBytesPerSecond");
    }

    @Test
    void rhoOnAnOverriddenLinkIsThePublishedValue() {
        ParameterSet ps = converter.convert(withCpuRhoOfW0(fitted(50e9), 0.3), "test", null);

        int cpu = Tier.CPU.ordinal();
        assertThat(ps.rhoOn(0, cpu, ps.bandwidthOverride(cpu))).isEqualTo(0.3);
    }

    @Test
    void aNeverFittedBandwidthIsStillCheckedAgainstItsBounds() {
        ParameterSnapshot s = withBandwidths(neverFitted(64e15), neverFitted(7e9), neverFitted(25e9));

        assertThatThrownBy(() -> converter.convert(s, "test", null))
                .isInstanceOf(SnapshotConverter.UnusableSnapshotException.class)
                .hasMessageContaining("bandwidths[CPU]");
    }

    /** The fixture forest with a cycle (its first node its own left child): the evaluator refuses it, the gate did not. */
    private static io.tierroute.schemas.avro.QuantileForestModel cyclicForest() {
        io.tierroute.schemas.avro.QuantileForestModel m = KafkaFixture.forest();
        java.util.List<Integer> left = new java.util.ArrayList<>(m.getNodeLeft());
        int root = m.getTreeRoots().get(0);
        left.set(root, root);
        return io.tierroute.schemas.avro.QuantileForestModel.newBuilder(m).setNodeLeft(left).build();
    }

    /**
     * A forest the evaluator refuses no longer makes the whole version unusable (every later version naming it was
     * refused too, and the selector stayed on an old one until the next training): its scalars apply with the output
     * model in use, and the caller hears why. {@code convert} alone still refuses it.
     */
    @Test
    void aForestTheEvaluatorRefusesLeavesTheRestOfTheVersionUsable() {
        ParameterSet withModel = converter.convert(KafkaFixture.snapshot("default", 1)
                .setQuantileModel(KafkaFixture.forest()).build(), "t", null);
        assertThat(withModel.outputModel()).isNotNull();

        ParameterSnapshot bad = KafkaFixture.snapshot("default", 2).setQuantileModel(cyclicForest())
                .setAlphaP(fitted(77.0)).build();
        assertThatThrownBy(() -> converter.convert(bad, "t", null))
                .isInstanceOf(SnapshotConverter.UnusableSnapshotException.class).hasMessageContaining("not a tree");

        SnapshotConverter.Conversion kept = converter.convertKeepingModel(bad, "t", null, withModel);
        assertThat(kept.forestRefused()).startsWith("quantileModel is not a valid quantile forest").contains("not a tree");
        assertThat(kept.parameters().version()).isEqualTo(2);
        assertThat(kept.parameters().cost().alphaP()).as("the scalars apply").isEqualTo(77.0);
        assertThat(kept.parameters().outputModel()).as("the model in use").isSameAs(withModel.outputModel());
        assertThat(kept.parameters().outputModelVersion()).isEqualTo(withModel.outputModelVersion());

        SnapshotConverter.Conversion none = converter.convertKeepingModel(bad, "t", null, null);
        assertThat(none.parameters().outputModel()).as("no model in use: none").isNull();
        assertThat(converter.convertKeepingModel(KafkaFixture.snapshot("default", 3).build(), "t", null, withModel)
                .forestRefused()).isNull();
    }
}
