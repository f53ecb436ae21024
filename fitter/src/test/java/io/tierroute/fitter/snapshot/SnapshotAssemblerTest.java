package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.snapshot.SnapshotParameter;
import static io.tierroute.fitter.snapshot.SnapshotFixtures.T0;
import static io.tierroute.fitter.snapshot.SnapshotFixtures.T1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import io.tierroute.fitter.bandwidth.LinkKey;
import io.tierroute.fitter.bandwidth.RhoConfig;
import io.tierroute.fitter.bandwidth.RhoOutcome;
import io.tierroute.fitter.bandwidth.RhoTracker;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.WorkerTierRho;
import io.tierroute.schemas.snapshot.FittedProvenance;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SnapshotAssemblerTest {
    static final long NOW = 1_700_000_999_000L;
    final SnapshotAssembler assembler = new SnapshotAssembler("params-job", () -> NOW);

    @Test
    void firstSnapshotCarriesEveryFittedValueWithItsEvidence() {
        ParameterSnapshot s = assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000));

        assertThat(s.getScope()).isEqualTo("default");
        assertThat(s.getVersion()).isEqualTo(1);
        assertThat(s.getParentVersion()).isNull();
        assertThat(s.getProducer()).isEqualTo("params-job");
        assertThat(s.getCreatedAtMs()).isEqualTo(NOW);
        assertThat(s.getStatus()).isEqualTo(SnapshotStatus.CANDIDATE);
        assertThat(s.getRejectReasons()).isEmpty();

        FittedValue ad = s.getAlphaD();
        assertThat(ad.getValue()).isEqualTo(50.0);
        assertThat(ad.getStdError()).isCloseTo(0.5, offset(1e-12));
        assertThat(ad.getSamples()).isEqualTo(10_000);
        assertThat(ad.getQualityKind()).isEqualTo(QualityKind.R2);
        assertThat(ad.getQuality()).isEqualTo(0.9);
        assertThat(ad.getWindowStartMs()).isEqualTo(T0);
        assertThat(ad.getWindowEndMs()).isEqualTo(T1);
        assertThat(s.getAlphaWf2().getValue()).isEqualTo(4000.0);
        assertThat(s.getQSlack().getValue()).isEqualTo(4.0);
        assertThat(s.getQSlack().getStdError()).isNull();

        assertThat(s.getLambda().getValue()).isEqualTo(1.0 / 120);
        assertThat(s.getLambda().getQualityKind()).isEqualTo(QualityKind.STD_ERROR);
        assertThat(s.getLambda().getSamples()).isEqualTo(5000);

        assertThat(s.getBandwidths()).extracting(TierBandwidth::getTier)
            .containsExactlyInAnyOrder(Tier.CPU, Tier.NVME, Tier.REMOTE);
        assertThat(s.getRho()).extracting(WorkerTierRho::getWorker).containsExactly("w1", "w2");
        assertThat(s.getRho().get(0).getRho().getValue()).isEqualTo(0.3);
        assertThat(s.getQuantileModel()).isNull();
    }

    @Test
    void uncoveredParametersCarryDefaultsWithZeroSamplesWhenThereIsNoActiveSnapshot() {
        ParameterSnapshot s = assembler.assemble("pool-a", 0, null, FitResults.empty());
        for (SnapshotParameter p : SnapshotParameter.SCALARS) {
            FittedValue v = p.get(s);
            assertThat(v.getValue()).as(p.field()).isEqualTo(p.defaultValue());
            assertThat(v.getSamples()).as(p.field()).isZero();
            assertThat(v.getQualityKind()).isEqualTo(QualityKind.NONE);
            assertThat(v.getStdError()).isNull();
            assertThat(FittedProvenance.neverFitted(v)).as(p.field() + ": window [0, 0)").isTrue();
        }
        assertThat(s.getBandwidths()).hasSize(3).allSatisfy(tb -> {
            assertThat(tb.getBytesPerSecond().getValue()).isEqualTo(SnapshotAssembler.DEFAULT_BANDWIDTHS.get(tb.getTier()));
            assertThat(tb.getBytesPerSecond().getSamples()).isZero();
            assertThat(FittedProvenance.neverFitted(tb.getBytesPerSecond())).as(tb.getTier() + ": window [0, 0)").isTrue();
        });
        assertThat(s.getRho()).isEmpty();
        // and the gate accepts the all-default snapshot
        assertThat(new ValidationGate(GateConfig.DEFAULTS).validate(s, null).accepted()).isTrue();
    }

    @Test
    void uncoveredParametersCarryTheActiveValues() {
        ParameterSnapshot first = assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000));
        ParameterSnapshot active = ParameterSnapshot.newBuilder(first).setStatus(SnapshotStatus.ACCEPTED)
            .setQuantileModel(GateTestSupport.tinyForest(5000)).build();
        // only λ refitted; no regression, no telemetry
        FitResults onlyLambda = new FitResults(null, null, null, SnapshotFixtures.decay(1.0 / 100, 0.03, 6000), null);
        ParameterSnapshot s = assembler.assemble("default", 1, active, onlyLambda);

        assertThat(s.getVersion()).isEqualTo(2);
        assertThat(s.getParentVersion()).isEqualTo(1L);
        assertThat(s.getAlphaD().getValue()).isEqualTo(50.0);
        assertThat(s.getAlphaD().getSamples()).isZero();
        assertThat(s.getAlphaD().getQualityKind()).isEqualTo(QualityKind.NONE);
        assertThat(s.getLambda().getValue()).isEqualTo(1.0 / 100);
        assertThat(s.getLambda().getSamples()).isEqualTo(6000);
        assertThat(s.getBandwidths()).filteredOn(tb -> tb.getTier() == Tier.NVME).singleElement()
            .satisfies(tb -> assertThat(tb.getBytesPerSecond().getValue()).isEqualTo(6e9));
        assertThat(s.getRho()).as("ρ is live telemetry and is not carried").isEmpty();
        assertThat(s.getQuantileModel()).isEqualTo(active.getQuantileModel());

        GateResult r = new ValidationGate(GateConfig.DEFAULTS).validate(s, active);
        assertThat(r.rejections()).isEmpty();
        assertThat(r.accepted()).isTrue();
    }

    /**
     * A peak is a lower bound of a link's speed: a lightly used NVMe link (a 38 MB load a minute, found in review) peaks
     * at 38 MB/s, which as BW_t priced the tier 184× too high. Below half the configured speed a peak is carried over;
     * from half up it lowers BW_t; above the configured speed it raises it.
     */
    @Test
    void aPeakBelowHalfTheConfiguredSpeedIsNoEvidenceOfTheLinksSpeed() {
        double nvme = SnapshotAssembler.DEFAULT_BANDWIDTHS.get(Tier.NVME);
        for (double peak : new double[] {3.8e7, 0.49 * nvme, 0.5 * nvme, 0.8 * nvme, 1.5 * nvme}) {
            FitResults fits = new FitResults(null, null, Map.of(Tier.NVME, SnapshotFixtures.bandwidth(peak, 900)),
                null, null);
            FittedValue v = bandwidth(assembler.assemble("default", 0, null, fits), Tier.NVME);
            if (peak < 0.5 * nvme) {
                assertThat(v.getValue()).as("peak %s: carried", peak).isEqualTo(nvme);
                assertThat(v.getSamples()).isZero();
            } else {
                assertThat(v.getValue()).as("peak %s: fitted", peak).isEqualTo(peak);
                assertThat(v.getSamples()).isEqualTo(900);
            }
        }
        // An active BW_t from such a peak (published before the rule): a peak above it raises it (the gate holds the
        // jump once, then applies it), nothing is rejected, and without a peak above it it is carried.
        ParameterSnapshot lowActive = ParameterSnapshot.newBuilder(assembler.assemble("default", 0, null,
                new FitResults(null, null, Map.of(Tier.NVME, SnapshotFixtures.bandwidth(0.6 * nvme, 900)), null, null)))
            .setStatus(SnapshotStatus.ACCEPTED).build();
        bandwidth(lowActive, Tier.NVME).setValue(3.8e7);
        ValidationGate gate = new ValidationGate(GateConfig.DEFAULTS);
        FitResults lightPeak = new FitResults(null, null, Map.of(Tier.NVME, SnapshotFixtures.bandwidth(1e9, 900)), null,
            null);
        ParameterSnapshot raised = assembler.assemble("default", 1, lowActive, lightPeak);
        assertThat(bandwidth(raised, Tier.NVME).getValue()).as("a peak above the value in force").isEqualTo(1e9);
        GateResult r = gate.validate(raised, lowActive);
        assertThat(r.accepted()).as("rejections %s", r.rejections()).isTrue();
        ParameterSnapshot held = ParameterSnapshot.newBuilder(r.snapshot()).setStatus(SnapshotStatus.ACCEPTED).build();
        ParameterSnapshot next = assembler.assemble("default", 2, held, lightPeak);
        GateResult r2 = gate.validate(next, held);
        assertThat(r2.accepted()).as("rejections %s", r2.rejections()).isTrue();
        assertThat(bandwidth(r2.snapshot(), Tier.NVME).getValue()).as("applied once the hold is behind it").isEqualTo(1e9);
        ParameterSnapshot carried = assembler.assemble("default", 1, lowActive, FitResults.empty());
        assertThat(bandwidth(carried, Tier.NVME).getValue()).isEqualTo(3.8e7);
        assertThat(gate.validate(carried, lowActive).accepted()).isTrue();
    }

    /**
     * A value an earlier version fitted and this one only inherits keeps that fit's window (samples 0), through
     * any number of versions, so the selector can tell it from a default; a default inherited stays [0, 0).
     */
    @Test
    void anInheritedFitKeepsItsWindowAndAnInheritedDefaultStaysADefault() {
        FitResults bandwidthsOnly = new FitResults(null, null,
            Map.of(Tier.CPU, SnapshotFixtures.bandwidth(50e9, 1000)), null, null);
        ParameterSnapshot v1 = ParameterSnapshot.newBuilder(assembler.assemble("default", 0, null, bandwidthsOnly))
            .setStatus(SnapshotStatus.ACCEPTED).build();
        ParameterSnapshot v2 = ParameterSnapshot.newBuilder(assembler.assemble("default", 1, v1, FitResults.empty()))
            .setStatus(SnapshotStatus.ACCEPTED).build();
        ParameterSnapshot v3 = assembler.assemble("default", 2, v2, FitResults.empty());

        for (ParameterSnapshot s : List.of(v2, v3)) {
            FittedValue cpu = bandwidth(s, Tier.CPU);
            assertThat(cpu.getValue()).isEqualTo(50e9);
            assertThat(cpu.getSamples()).as("not fitted in v" + s.getVersion()).isZero();
            assertThat(cpu.getQualityKind()).isEqualTo(QualityKind.NONE);
            assertThat(cpu.getStdError()).isNull();
            assertThat(cpu.getWindowStartMs()).as("the v1 fit's window in v" + s.getVersion()).isEqualTo(T0);
            assertThat(cpu.getWindowEndMs()).isEqualTo(T1);
            assertThat(FittedProvenance.neverFitted(cpu)).isFalse();
            FittedValue nvme = bandwidth(s, Tier.NVME);
            assertThat(nvme.getValue()).isEqualTo(SnapshotAssembler.DEFAULT_BANDWIDTHS.get(Tier.NVME));
            assertThat(FittedProvenance.neverFitted(nvme)).as("the NVMe default in v" + s.getVersion()).isTrue();
            assertThat(FittedProvenance.neverFitted(s.getAlphaP())).as("α_p, never fitted").isTrue();
        }
        assertThat(new ValidationGate(GateConfig.DEFAULTS).validate(v3, v2).accepted()).isTrue();

        // the scalars the same way: fitted in v1 (window [T0, T1)), inherited by v2
        ParameterSnapshot fittedV1 = ParameterSnapshot.newBuilder(
                assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000)))
            .setStatus(SnapshotStatus.ACCEPTED).build();
        ParameterSnapshot inherited = assembler.assemble("default", 1, fittedV1, FitResults.empty());
        for (SnapshotParameter p : List.of(SnapshotParameter.ALPHA_D, SnapshotParameter.LAMBDA)) {
            assertThat(p.get(inherited).getSamples()).as(p.field()).isZero();
            assertThat(p.get(inherited).getWindowStartMs()).as(p.field()).isEqualTo(T0);
            assertThat(p.get(inherited).getWindowEndMs()).as(p.field()).isEqualTo(T1);
        }
    }

    static FittedValue bandwidth(ParameterSnapshot s, Tier t) {
        return s.getBandwidths().stream().filter(tb -> tb.getTier() == t).findFirst().orElseThrow().getBytesPerSecond();
    }

    @Test
    void versionIsLatestRecordedPlusOneEvenPastRejectedVersions() {
        ParameterSnapshot first = assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000));
        ParameterSnapshot active = ParameterSnapshot.newBuilder(first).setVersion(5).build();
        ParameterSnapshot s = assembler.assemble("default", 7, active, FitResults.empty());
        assertThat(s.getVersion()).isEqualTo(8);
        assertThat(s.getParentVersion()).isEqualTo(5L);
        assertThat(assembler.assemble("default", 2, active, FitResults.empty()).getVersion()).isEqualTo(6);
        assertThatThrownBy(() -> assembler.assemble("other", 7, active, FitResults.empty()))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fromTheRealRhoTracker() {
        RhoTracker tracker = new RhoTracker(RhoConfig.defaults());
        SplittableRandom rnd = new SplittableRandom(42);
        double bw = 64e9;
        for (int i = 1; i <= 300; i++) {
            for (String w : new String[] {"w2", "w1"}) {
                // w1's link tops out near its speed (a peak that speaks for it), w2's is lightly used
                double u = (w.equals("w1") ? 0.9 : 0.1) * (1 + 0.05 * (rnd.nextDouble() - 0.5));
                RhoOutcome o = tracker.update(new LinkKey(w, "CPU"), T0 + i * 1000L, 1000, (long) (u * bw), bw);
                assertThat(o.accepted()).isTrue();
            }
            // An idle remote link: its peak of 0 bytes/s must not get the snapshot rejected (found in review).
            assertThat(tracker.update(new LinkKey("w1", "REMOTE"), T0 + i * 1000L, 1000, 0, 25e9).accepted()).isTrue();
        }
        FitResults fits = FitResults.of(SnapshotFixtures.latency(10_000), tracker,
            SnapshotFixtures.decay(1.0 / 120, 0.03, 5000), null);
        ParameterSnapshot s = assembler.assemble("default", 0, null, fits);

        assertThat(s.getRho()).hasSize(3);
        WorkerTierRho w1 = s.getRho().get(0);
        assertThat(w1.getWorker()).isEqualTo("w1");
        assertThat(w1.getTier()).isEqualTo(Tier.CPU);
        assertThat(w1.getRho().getValue()).isCloseTo(0.9, offset(0.03));
        assertThat(w1.getRho().getSamples()).isEqualTo(300);
        TierBandwidth cpu = s.getBandwidths().stream().filter(tb -> tb.getTier() == Tier.CPU).findFirst().orElseThrow();
        assertThat(cpu.getBytesPerSecond().getSamples()).isEqualTo(600);
        assertThat(cpu.getBytesPerSecond().getValue()).isBetween(0.9 * bw, 0.93 * bw);
        TierBandwidth nvme = s.getBandwidths().stream().filter(tb -> tb.getTier() == Tier.NVME).findFirst().orElseThrow();
        assertThat(nvme.getBytesPerSecond().getSamples()).isZero();
        TierBandwidth remote = s.getBandwidths().stream().filter(tb -> tb.getTier() == Tier.REMOTE).findFirst().orElseThrow();
        assertThat(remote.getBytesPerSecond().getSamples()).isZero();
        assertThat(remote.getBytesPerSecond().getValue()).isEqualTo(25e9);

        GateResult r = new ValidationGate(GateConfig.DEFAULTS).validate(s, null);
        assertThat(r.rejections()).isEmpty();
        assertThat(r.held()).isEmpty();
        assertThat(r.accepted()).isTrue();
    }
}
