package io.tierroute.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.snapshot.ForestStructure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** The one structure check of a quantile forest that the fitter's gate and the selector's evaluator both run. */
class ForestStructureTest {
    static {
        AvroTrust.install(); // the generated builders' default values need the trust list
    }

    /** {@link Samples#tinyForest}: two trees, a split on isl over two leaves and a one-leaf stump. */
    static QuantileForestModel forest() {
        return Samples.tinyForest();
    }

    static QuantileForestModel with(UnaryOperator<QuantileForestModel.Builder> change) {
        return change.apply(QuantileForestModel.newBuilder(forest())).build();
    }

    static <T> List<T> set(List<T> list, int i, T v) {
        List<T> copy = new ArrayList<>(list);
        copy.set(i, v);
        return copy;
    }

    @Test
    void aWellFormedForestHasNoDefect() {
        assertThat(ForestStructure.defect(forest())).isEmpty();
        assertThat(ForestStructure.defect(with(b -> b.setFeatureNames(set(forest().getFeatureNames(), 2, "prefixGroup"))
            .setFeatureLevels(Map.of("prefixGroup", List.of("7", "-3")))))).as("prefix groups: distinct longs").isEmpty();
    }

    @Test
    void eachDefectIsNamedByItsFieldAndValue() {
        QuantileForestModel f = forest();
        Map<String, QuantileForestModel> bad = new LinkedHashMap<>();
        bad.put("the model is null", null);
        bad.put("featureNames[0] = 'colour' is not a known feature", with(b -> b.setFeatureNames(set(f.getFeatureNames(), 0, "colour"))));
        bad.put("featureNames has 'isl' twice", with(b -> b.setFeatureNames(set(f.getFeatureNames(), 1, "isl"))));
        bad.put("featureLevels has levels for numeric feature 'isl'", with(b -> b.setFeatureLevels(Map.of("isl", List.of("a")))));
        bad.put("featureLevels has levels for 'model', which is not in featureNames",
            with(b -> b.setFeatureLevels(Map.of("model", List.of("llama")))));
        List<String> withPrefixGroup = set(f.getFeatureNames(), 2, "prefixGroup");
        bad.put("featureLevels[prefixGroup][0] = 'seven' is not a long", with(b -> b.setFeatureNames(withPrefixGroup)
            .setFeatureLevels(Map.of("prefixGroup", List.of("seven")))));
        bad.put("featureLevels[prefixGroup] has level 7 twice", with(b -> b.setFeatureNames(withPrefixGroup)
            .setFeatureLevels(Map.of("prefixGroup", List.of("7", "-3", "7")))));
        bad.put("featureLevels[expectedTool][1] is null or repeated",
            with(b -> b.setFeatureLevels(Map.of("expectedTool", List.of("sql_query", "sql_query")))));
        bad.put("treeRoots is empty", with(b -> b.setTreeRoots(List.of())));
        bad.put("nodeLeft has 3 entries but nodeSplitFeature has 4", with(b -> b.setNodeLeft(List.of(1, -1, -1))));
        bad.put("nodeThreshold[0] = NaN is not finite", with(b -> b.setNodeThreshold(set(f.getNodeThreshold(), 0, Double.NaN))));
        bad.put("nodeSplitFeature[0] = 3 is not a feature index (< 3)", with(b -> b.setNodeSplitFeature(set(f.getNodeSplitFeature(), 0, 3))));
        bad.put("nodeSplitFeature[1] = -2 (must be a feature index or -1)",
            with(b -> b.setNodeSplitFeature(set(f.getNodeSplitFeature(), 1, -2))));
        bad.put("nodeRight[0] = 9 is not a node index (0..3)", with(b -> b.setNodeRight(set(f.getNodeRight(), 0, 9))));
        bad.put("nodeLeafId[0] = 0 on an internal node (must be -1)", with(b -> b.setNodeLeafId(set(f.getNodeLeafId(), 0, 0))));
        bad.put("leaf node 1 has children", with(b -> b.setNodeLeft(set(f.getNodeLeft(), 1, 2))));
        bad.put("nodeLeafId[3] = 3 is not a leaf number (0..2)", with(b -> b.setNodeLeafId(set(f.getNodeLeafId(), 3, 3))));
        bad.put("treeRoots[1] = 4 is not a node index (0..3)", with(b -> b.setTreeRoots(List.of(0, 4))));
        bad.put("node 0 is reached twice (tree 0): not a tree", with(b -> b.setNodeLeft(set(f.getNodeLeft(), 0, 0))));
        bad.put("node 1 is reached twice (tree 0): not a tree", with(b -> b.setNodeRight(set(f.getNodeRight(), 0, 1))));
        bad.put("node 3 is reached twice (tree 1): not a tree", with(b -> b.setNodeLeft(set(f.getNodeLeft(), 0, 3))
            .setNodeLeafId(f.getNodeLeafId())));
        bad.put("leafRows has 2 entries but leafSampleOffsets implies 3 leaves", with(b -> b.setLeafRows(List.of(3, 640))));
        bad.put("leafSamples[2] = -1.0 is not a finite value >= 0", with(b -> b.setLeafSamples(set(f.getLeafSamples(), 2, -1f))));
        bad.put("leafSamples[2] = NaN is not a finite value >= 0", with(b -> b.setLeafSamples(set(f.getLeafSamples(), 2, Float.NaN))));
        bad.put("maxSamplesPerLeaf = 0 < 1", with(b -> b.setMaxSamplesPerLeaf(0)));
        bad.put("leafSampleOffsets[0] = 1, must be 0", with(b -> b.setLeafSampleOffsets(set(f.getLeafSampleOffsets(), 0, 1))));
        bad.put("leafSampleOffsets[3] = 10 but leafSamples has 11 values",
            with(b -> b.setLeafSampleOffsets(set(f.getLeafSampleOffsets(), 3, 10))));
        bad.put("leaf 0 has 5 sample values; must be 1..4", with(b -> b.setLeafSampleOffsets(List.of(0, 5, 7, 11))));
        bad.put("leafRows[1] = 2 is below its 4 sample values", with(b -> b.setLeafRows(set(f.getLeafRows(), 1, 2))));
        bad.put("leaf 1's sample is not sorted at leafSamples[4]", with(b -> b.setLeafSamples(set(f.getLeafSamples(), 4, 10f))));
        bad.put("nodeLeft[2] is null", with(b -> b.setNodeLeft(set(f.getNodeLeft(), 2, null))));
        bad.put("leafSampleOffsets[1] = 12 is past the 11 values of leafSamples",
            with(b -> b.setLeafSampleOffsets(List.of(0, 12, 7, 11)).setMaxSamplesPerLeaf(20).setLeafRows(List.of(20, 20, 20))));
        bad.put("nodeLeafId[3] = 1 is the leaf of another node as well", with(b -> b.setNodeLeafId(set(f.getNodeLeafId(), 3, 1))));
        for (Map.Entry<String, QuantileForestModel> e : bad.entrySet()) {
            assertThat(ForestStructure.defect(e.getValue())).as(e.getKey()).hasValueSatisfying(
                d -> assertThat(d).startsWith(e.getKey()));
        }
    }
}
