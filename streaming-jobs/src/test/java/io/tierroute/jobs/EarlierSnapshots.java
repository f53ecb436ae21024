package io.tierroute.jobs;

import io.tierroute.fitter.snapshot.FitResults;
import io.tierroute.fitter.snapshot.SnapshotAssembler;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Snapshots as an earlier run of the job left them on {@code tierroute.params}: fitted α_d and λ away from the DESIGN
 * defaults (50 µs/token, 1/120 s⁻¹), every other value a default, written straight to the topic under their keys.
 */
public final class EarlierSnapshots {
    static {
        AvroTrust.install(); // the builders below fill defaults by decoding them (Avro 1.12.2's class trust)
    }

    /** The window the earlier run fitted its values on. */
    public static final long FITTED_FROM_MS = 1_700_000_000_000L;
    public static final long FITTED_TO_MS = FITTED_FROM_MS + 3_600_000L;

    private EarlierSnapshots() {}

    /** An ACCEPTED snapshot of {@code scope} with α_d and λ fitted on 5,000 rows, no model, control sequence 0. */
    public static ParameterSnapshot accepted(String scope, long version, Long parent, double alphaD, double lambda) {
        ParameterSnapshot s = new SnapshotAssembler("earlier-run", () -> FITTED_TO_MS)
            .assemble(scope, version - 1, null, FitResults.empty());
        s.setParentVersion(parent);
        s.setStatus(SnapshotStatus.ACCEPTED);
        s.setAlphaD(fitted(alphaD, QualityKind.R2, 0.9));
        s.setLambda(fitted(lambda, QualityKind.STD_ERROR, lambda / 50));
        return s;
    }

    private static FittedValue fitted(double value, QualityKind kind, double quality) {
        return FittedValue.newBuilder().setValue(value).setSamples(5_000).setQuality(quality).setQualityKind(kind)
            .setStdError(value / 50).setWindowStartMs(FITTED_FROM_MS).setWindowEndMs(FITTED_TO_MS).build();
    }

    /** {@code s} carrying {@code model} in full (it names itself as the carrier). */
    public static ParameterSnapshot carrying(ParameterSnapshot s, QuantileForestModel model) {
        s.setQuantileModel(model);
        s.setQuantileModelVersion(s.getVersion());
        return s;
    }

    /** {@code s} naming the record of version {@code carrier} for its model. */
    public static ParameterSnapshot naming(ParameterSnapshot s, long carrier) {
        s.setQuantileModel(null);
        s.setQuantileModelVersion(carrier);
        return s;
    }

    /**
     * Two trees: isl ≤ 4096 ? {10, 20} : {100, 200, 300, 400}; and {50} (the shape of the selector's hand-built
     * forest), trained on {@code trainingRows} rows.
     */
    public static QuantileForestModel forest(long trainingRows) {
        return QuantileForestModel.newBuilder()
            .setFeatureNames(List.of("isl", "expectedTool"))
            .setFeatureLevels(Map.of("expectedTool", List.of("sql_query", "web_search")))
            .setTargetName("outputTokens").setTrainingRows(trainingRows).setMaxSamplesPerLeaf(4)
            .setTreeRoots(List.of(0, 3))
            .setNodeSplitFeature(List.of(0, -1, -1, -1))
            .setNodeThreshold(List.of(4096.0, 0.0, 0.0, 0.0))
            .setNodeLeft(List.of(1, -1, -1, -1))
            .setNodeRight(List.of(2, -1, -1, -1))
            .setNodeLeafId(List.of(-1, 0, 1, 2))
            .setLeafRows(List.of(2, 60, 100))
            .setLeafSampleOffsets(List.of(0, 2, 6, 7))
            .setLeafSamples(List.of(10f, 20f, 100f, 200f, 300f, 400f, 50f))
            .build();
    }

    /** {@code s} as a params record under its key. */
    public static ProducerRecord<byte[], byte[]> record(ParameterSnapshot s) {
        return new ProducerRecord<>(Topics.PARAMS, key(s.getScope().toString(), s.getVersion()),
            Codecs.PARAMETER_SNAPSHOT.encode(s));
    }

    /** A tombstone of {@code version} of {@code scope} ({@code snapshots trim}). */
    public static ProducerRecord<byte[], byte[]> tombstone(String scope, long version) {
        return new ProducerRecord<>(Topics.PARAMS, key(scope, version), null);
    }

    private static byte[] key(String scope, long version) {
        return Topics.paramsKey(scope, version).getBytes(StandardCharsets.UTF_8);
    }
}
