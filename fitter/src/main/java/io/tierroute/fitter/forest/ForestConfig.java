package io.tierroute.fitter.forest;

/**
 * Options of {@link QuantileForestTrainer}. {@link #defaults()} gives 50 trees of at most 64 leaves
 * (≥ 30 rows each) with up to 48 sample values per leaf, every predictor tried at every split: about
 * 0.7 MiB whatever the row count (the trainer lowers the per-leaf sample below {@code samplesPerLeaf}
 * if needed to stay inside {@code maxModelBytes}). Why few, large leaves with a large sample rather
 * than many small leaves: under the 1 MiB budget, numLeaves·(4k + 38) is fixed, and measured on the
 * accuracy tests the large-k forests keep the no-signal loss within 1.3 % of the unconditional
 * quantile (256 leaves with k = 10 were 2–3 % worse), while coverage and pinball gains are unchanged
 * within a point. mtry = all predictors: with p/2 the generated-data 0.9 coverage was 0.935 (splits
 * wasted on noise predictors leave leaves mixing different conditional distributions).
 *
 * @param trees          number of trees (≥ 1)
 * @param maxDepth       maximum tree depth (≥ 2)
 * @param maxNodes       maximum leaves per tree (≥ 2; Smile's {@code maxNodes})
 * @param nodeSize       minimum in-bag rows per leaf (≥ 1; Smile's {@code nodeSize})
 * @param mtry           predictors tried per split; 0 = all p non-constant predictors
 * @param subsample      Smile's {@code subsample}: 1 = bootstrap with replacement, < 1 = that fraction
 *                       without replacement
 * @param samplesPerLeaf k: maximum sample values kept per leaf (≥ 1)
 * @param maxLevels      most frequent levels kept per categorical predictor (others = unknown)
 * @param minLevelRows   rows a categorical level needs to be kept
 * @param maxModelBytes  size budget: numLeaves·(4k + 38) must stay below it (the schema's estimate)
 * @param seed           seed of the per-tree seeds
 */
public record ForestConfig(int trees, int maxDepth, int maxNodes, int nodeSize, int mtry, double subsample,
                           int samplesPerLeaf, int maxLevels, int minLevelRows, long maxModelBytes,
                           long seed) {

    public ForestConfig {
        require(trees >= 1, "trees >= 1");
        require(maxDepth >= 2, "maxDepth >= 2");
        require(maxNodes >= 2, "maxNodes >= 2");
        require(nodeSize >= 1, "nodeSize >= 1");
        require(mtry >= 0, "mtry >= 0");
        require(subsample > 0 && subsample <= 1, "subsample in (0, 1]");
        require(samplesPerLeaf >= 1, "samplesPerLeaf >= 1");
        require(maxLevels >= 0, "maxLevels >= 0");
        require(minLevelRows >= 1, "minLevelRows >= 1");
        require(maxModelBytes > 0, "maxModelBytes > 0");
    }

    /** 50 trees, depth ≤ 24, ≤ 64 leaves, node size 30, mtry all, bootstrap, k = 48, 1 MiB, seed 1. */
    public static ForestConfig defaults() {
        return new ForestConfig(50, 24, 64, 30, 0, 1.0, 48, 128, 10, 1L << 20, 1L);
    }

    public ForestConfig withTrees(int v) {
        return new ForestConfig(v, maxDepth, maxNodes, nodeSize, mtry, subsample, samplesPerLeaf, maxLevels,
            minLevelRows, maxModelBytes, seed);
    }

    public ForestConfig withMaxNodes(int v) {
        return new ForestConfig(trees, maxDepth, v, nodeSize, mtry, subsample, samplesPerLeaf, maxLevels,
            minLevelRows, maxModelBytes, seed);
    }

    public ForestConfig withSamplesPerLeaf(int v) {
        return new ForestConfig(trees, maxDepth, maxNodes, nodeSize, mtry, subsample, v, maxLevels,
            minLevelRows, maxModelBytes, seed);
    }

    public ForestConfig withSeed(long v) {
        return new ForestConfig(trees, maxDepth, maxNodes, nodeSize, mtry, subsample, samplesPerLeaf, maxLevels,
            minLevelRows, maxModelBytes, v);
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalArgumentException("ForestConfig: " + what);
        }
    }
}
