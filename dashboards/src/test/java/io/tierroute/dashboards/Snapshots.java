package io.tierroute.dashboards;

import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.ForestFeatureSchema;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.avro.QuantileCoverage;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.WorkerTierRho;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Builders of the snapshots the tests publish. */
public final class Snapshots {
    static {
        // Building a ParameterSnapshot fills the v4 fields' FittedValue defaults through Avro's class check
        // (STACK.md, Avro trap); production code decodes through Codecs first, which trusts the package.
        AvroTrust.install();
    }


    public static final long T0 = 1_760_000_000_000L; // a fixed creation time; versions are a minute apart
    public static final List<String> WORKERS = List.of("w0", "w1", "w2");

    private Snapshots() {}

    public static FittedValue fv(double v, long samples) {
        return FittedValue.newBuilder().setValue(v).setSamples(samples).setQuality(0.9).setQualityKind(QualityKind.R2)
                .setStdError(v / 100).setWindowStartMs(T0 - 600_000).setWindowEndMs(T0).build();
    }

    /** An accepted snapshot whose alphaP is {@code version + 0.5}, with ρ for every worker and a forest. */
    public static ParameterSnapshot.Builder accepted(String scope, long version) {
        List<WorkerTierRho> rho = new ArrayList<>();
        for (int i = 0; i < WORKERS.size(); i++) {
            rho.add(new WorkerTierRho(WORKERS.get(i), Tier.CPU, fv(0.1 + 0.35 * i, 500), null));
            rho.add(new WorkerTierRho(WORKERS.get(i), Tier.NVME, fv(0.05 * (version % 5), 500), i == 0 ? 14e9 : null));
        }
        return ParameterSnapshot.newBuilder().setScope(scope).setVersion(version)
                .setParentVersion(version > 1 ? version - 1 : null).setProducer("parameter-fitter")
                .setCreatedAtMs(T0 + version * 60_000).setStatus(SnapshotStatus.ACCEPTED).setRejectReasons(List.of())
                .setAlphaP(fv(version + 0.5, 1000 * version)).setAlphaP2(fv(0.0, 1000)).setAlphaD(fv(40 + version, 800))
                .setAlphaD2(fv(0.002, 800)).setAlphaT(fv(1.1, 300)).setAlphaHo(fv(90, 200)).setQSlack(fv(3, 200))
                .setAlphaWf(fv(4000, 100)).setLambda(fv(0.01, 100)).setAlphaWf2(fv(10, 100))
                .setBandwidths(List.of(new TierBandwidth(Tier.CPU, fv(6.4e10, 50))))
                .setRho(rho).setQuantileModel(forest()).setControlSequence(0);
    }

    /** A snapshot the gate rejected (its alphaP jumped), with the reason. */
    public static ParameterSnapshot.Builder rejected(String scope, long version) {
        return accepted(scope, version).setStatus(SnapshotStatus.REJECTED).setAlphaP(fv(40.0, 30))
                .setRejectReasons(List.of("alphaP jumped ×12 against version " + (version - 1)));
    }

    /** One tree: isl ≤ 1000 → a leaf of short outputs, else a leaf of long ones. */
    public static QuantileForestModel forest() {
        return QuantileForestModel.newBuilder().setFeatureNames(ForestFeatureSchema.NAMES).setFeatureLevels(Map.of())
                .setTargetName(ForestFeatureSchema.TARGET).setTrainingRows(100).setMaxSamplesPerLeaf(4)
                .setTreeRoots(List.of(0)).setNodeSplitFeature(List.of(ForestFeatureSchema.ISL, -1, -1))
                .setNodeThreshold(List.of(1000.0, 0.0, 0.0)).setNodeLeft(List.of(1, -1, -1))
                .setNodeRight(List.of(2, -1, -1)).setNodeLeafId(List.of(-1, 0, 1)).setLeafRows(List.of(40, 60))
                .setLeafSampleOffsets(List.of(0, 4, 8))
                .setLeafSamples(List.of(50f, 80f, 120f, 200f, 300f, 400f, 600f, 900f))
                .setCalibration(List.of(new QuantileCoverage(0.1, 0.12, 20L), new QuantileCoverage(0.5, 0.45, 20L),
                        new QuantileCoverage(0.9, 0.95, 20L)))
                .build();
    }
}
