package io.tierroute.dashboards.history;

import io.tierroute.schemas.avro.QuantileForestModel;

import java.util.List;

/**
 * The shape of a snapshot's quantile forest, kept for every version (the forest itself only for
 * the latest few).
 */
public record ForestSummary(String target, List<String> features, long trainingRows, int trees, int nodes,
                            int leaves, int maxSamplesPerLeaf, int leafSamples) {

    static ForestSummary of(QuantileForestModel m) {
        return new ForestSummary(m.getTargetName(), List.copyOf(m.getFeatureNames()), m.getTrainingRows(),
                m.getTreeRoots().size(), m.getNodeSplitFeature().size(), m.getLeafRows().size(),
                m.getMaxSamplesPerLeaf(), m.getLeafSamples().size());
    }
}
