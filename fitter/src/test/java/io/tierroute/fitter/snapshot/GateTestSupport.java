package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.QuantileForestModel;
import java.util.List;
import java.util.Map;

final class GateTestSupport {
    private GateTestSupport() {
    }

    /** A one-tree forest: root split on isl at 1000, two leaves with 2 samples each. */
    static QuantileForestModel tinyForest(long trainingRows) {
        return QuantileForestModel.newBuilder()
            .setFeatureNames(List.of("isl", "model"))
            .setFeatureLevels(Map.of("model", List.of("llama", "qwen")))
            .setTargetName("outputTokens")
            .setTrainingRows(trainingRows)
            .setMaxSamplesPerLeaf(2)
            .setTreeRoots(List.of(0))
            .setNodeSplitFeature(List.of(0, -1, -1))
            .setNodeThreshold(List.of(1000.0, 0.0, 0.0))
            .setNodeLeft(List.of(1, -1, -1))
            .setNodeRight(List.of(2, -1, -1))
            .setNodeLeafId(List.of(-1, 0, 1))
            .setLeafRows(List.of(10, 12))
            .setLeafSampleOffsets(List.of(0, 2, 4))
            .setLeafSamples(List.of(100f, 200f, 400f, 800f))
            .build();
    }
}
