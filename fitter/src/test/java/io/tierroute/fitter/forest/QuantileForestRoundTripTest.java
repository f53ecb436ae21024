package io.tierroute.fitter.forest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierroute.schemas.avro.QuantileForestModel;
import java.util.List;
import org.junit.jupiter.api.Test;

class QuantileForestRoundTripTest {

    private static final double[] QS = {0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99};

    @Test
    void exportedRecordPredictsExactlyWhatTheFitterPredicts() {
        List<OutputRow> train = SyntheticOutputs.rows(11, 6_000, true);
        ForestConfig cfg = ForestConfig.defaults().withTrees(30).withMaxNodes(128).withSamplesPerLeaf(8).withSeed(3);
        QuantileForest forest = new QuantileForestTrainer(cfg).fit(train);
        byte[] bytes = forest.encode();
        QuantileForestModel decoded = QuantileForest.CODEC.decode(bytes);
        assertThat(decoded).isEqualTo(forest.model());
        assertThat(decoded.getMaxSamplesPerLeaf()).isEqualTo(8);
        assertThat(decoded.getTreeRoots()).hasSize(30);
        // every tree's leaves count all training rows once
        int leaves = decoded.getLeafRows().size();
        long rows = decoded.getLeafRows().stream().mapToLong(Integer::longValue).sum();
        assertThat(rows).isEqualTo(30L * train.size());
        assertThat(decoded.getLeafSampleOffsets()).hasSize(leaves + 1);

        List<OutputRow> test = SyntheticOutputs.rows(12, 1_500, true);
        int compared = 0;
        for (OutputRow r : test) {
            double[] x = forest.features().encode(r);
            for (double q : QS) {
                double own = forest.predict(r, q);
                double ref = ReferenceForest.predict(decoded, x, q);
                assertThat(own).as("row %s q %s", r, q).isEqualTo(ref);
                compared++;
            }
        }
        // unknown categorical levels and all-unknown rows go right everywhere and still predict
        OutputRow unknown = new OutputRow(null, "never-seen", "x", null, "nope", null, null, 999_999L, null, 0);
        double[] xu = forest.features().encode(unknown);
        for (double q : QS) {
            assertThat(forest.predict(unknown, q)).isEqualTo(ReferenceForest.predict(decoded, xu, q));
        }
        System.out.printf("round trip: %d predictions equal; %d trees, %d leaves, k=%d, %,d bytes%n",
            compared, forest.numTrees(), leaves, decoded.getMaxSamplesPerLeaf(), bytes.length);
    }

    @Test
    void sameSeedSameModel() {
        List<OutputRow> train = SyntheticOutputs.rows(5, 2_000, true);
        ForestConfig cfg = ForestConfig.defaults().withTrees(10).withMaxNodes(32).withSeed(9);
        assertThat(new QuantileForestTrainer(cfg).fit(train).model())
            .isEqualTo(new QuantileForestTrainer(cfg).fit(train).model());
    }

    @Test
    void categoricalLevelsAreOrderedByMeanTargetAndRareOnesDropped() {
        List<OutputRow> train = SyntheticOutputs.rows(7, 4_000, true);
        QuantileForest forest = new QuantileForestTrainer(ForestConfig.defaults().withTrees(5).withMaxNodes(16))
            .fit(train);
        assertThat(forest.model().getFeatureNames()).isEqualTo(ForestFeatures.NAMES);
        // model factor 0.5 < 1 < 2 => llama-8b, llama-70b, qwen-32b
        assertThat(forest.model().getFeatureLevels().get("model"))
            .containsExactly("llama-8b", "llama-70b", "qwen-32b");
        assertThat(forest.model().getFeatureLevels().get("expectedTool"))
            .containsExactly("sql_query", "code_exec", "web_search");
        assertThat(forest.model().getFeatureLevels()).containsKeys("lora", "prefixGroup");
        assertThat(forest.model().getFeatureLevels()).doesNotContainKeys("isl", "maxTokens");
    }

    @Test
    void constantPredictorsGiveASingleLeafForest() {
        List<OutputRow> train = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            train.add(OutputRow.ofInputOnly(500, i));
        }
        QuantileForest forest = new QuantileForestTrainer(ForestConfig.defaults().withSamplesPerLeaf(200)).fit(train);
        assertThat(forest.numLeaves()).isEqualTo(1);
        assertThat(forest.predict(OutputRow.ofInputOnly(7, 0), 0.5)).isEqualTo(49.0);
        assertThat(forest.predict(OutputRow.ofInputOnly(7, 0), 0.9)).isEqualTo(89.0);
    }

    @Test
    void badInputsAreRejected() {
        assertThatThrownBy(() -> OutputRow.ofInputOnly(-1, 3)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("inputTokens");
        assertThatThrownBy(() -> ForestConfig.defaults().withTrees(0)).isInstanceOf(IllegalArgumentException.class);
        QuantileForestTrainer tiny = new QuantileForestTrainer(ForestConfig.defaults());
        assertThatThrownBy(() -> tiny.fit(List.of(OutputRow.ofInputOnly(1, 1))))
            .isInstanceOf(IllegalArgumentException.class);
        QuantileForest f = new QuantileForestTrainer(ForestConfig.defaults().withTrees(3).withMaxNodes(8))
            .fit(SyntheticOutputs.rows(1, 300, true));
        assertThatThrownBy(() -> f.predict(OutputRow.ofInputOnly(1, 0), 1.0))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void leafSampleFollowsTheSchemaRanks() {
        float[] t = new float[100];
        for (int i = 0; i < 100; i++) {
            t[i] = 99 - i;
        }
        assertThat(QuantileForestTrainer.leafSample(t, 100, 4)).containsExactly(12f, 37f, 62f, 87f);
        assertThat(QuantileForestTrainer.leafSample(t, 3, 4)).containsExactly(97f, 98f, 99f);
    }
}
