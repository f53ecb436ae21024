package io.tierroute.selector.bench;

import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.selector.params.ForestOutputModel;
import io.tierroute.selector.params.OutputLengthModel.OutputFeatures;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One {@link ForestOutputModel#predict(OutputFeatures, double)} call (target: p99 ≤ 20 µs for any
 * quantile). The model is production-sized and worst-case for the merge: {@code trees} random,
 * unbalanced trees (grown by splitting a random leaf until {@code leaves} leaves, so depths reach
 * ~20) over the nine known features, every leaf holding the full {@code k} samples (the fitter's
 * default forest: 50 trees × 64 leaves × k = 48, ≈ 0.7 MiB; the schema's example 50 × 256 × 8 is
 * cheaper to merge). Each call takes the next of 4 096 pre-drawn requests and a quantile drawn from
 * (0.01, 0.99).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ForestPredictBenchmark {

    @Param({"50"})
    public int trees;

    @Param({"64"})
    public int leaves;

    @Param({"48"})
    public int k;

    private ForestOutputModel model;
    private OutputFeatures[] requests;
    private double[] quantiles;
    private int next;

    @Setup
    public void setup() {
        model = ForestOutputModel.from(syntheticModel(trees, leaves, k, 42));
        SplittableRandom r = new SplittableRandom(7);
        requests = new OutputFeatures[4096];
        quantiles = new double[4096];
        for (int i = 0; i < requests.length; i++) {
            requests[i] = randomFeatures(r);
            quantiles[i] = 0.01 + 0.98 * r.nextDouble();
        }
    }

    @Benchmark
    public double predict() {
        int i = next++ & 4095;
        return model.predict(requests[i], quantiles[i]);
    }

    static final String[] MODELS = {"llama-8b", "llama-70b", "qwen-32b"};
    static final String[] TOOLS = {"sql_query", "web_search", "code_exec"};

    /** A request over the same value ranges as {@link #syntheticModel}'s thresholds. */
    public static OutputFeatures randomFeatures(SplittableRandom r) {
        return new OutputFeatures(r.nextInt(32_768), MODELS[r.nextInt(3)], r.nextBoolean() ? null : "lora-1",
            r.nextInt(4) == 0 ? null : r.nextInt(8), r.nextInt(4) == 0 ? null : TOOLS[r.nextInt(3)],
            1 << (8 + r.nextInt(7)), r.nextInt(200), r.nextBoolean() ? null : r.nextInt(2_000));
    }

    /**
     * A random forest in the record layout: each tree starts as one leaf and repeatedly splits a
     * random leaf (random feature, random threshold in the feature's range) until it has
     * {@code leavesPerTree} leaves; every leaf gets {@code k} sorted values in [0, 8192).
     */
    public static QuantileForestModel syntheticModel(int trees, int leavesPerTree, int k, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<String> names = List.of("isl", "model", "lora", "stepIndex", "expectedTool", "maxTokens",
            "outputHint", "prefixGroup", "previousStepOutputTokens");
        double[] range = {32_768, 3, 2, 8, 3, 16_384, 4_096, 128, 2_000};
        List<String> groups = new ArrayList<>();
        for (int g = 0; g < 128; g++) {
            groups.add(Integer.toString(g));
        }
        List<Integer> roots = new ArrayList<>();
        List<Integer> feature = new ArrayList<>();
        List<Double> threshold = new ArrayList<>();
        List<Integer> left = new ArrayList<>();
        List<Integer> right = new ArrayList<>();
        for (int t = 0; t < trees; t++) {
            int root = feature.size();
            roots.add(root);
            List<Integer> open = new ArrayList<>(List.of(root));
            addNode(feature, threshold, left, right);
            while (open.size() < leavesPerTree) {
                int n = open.remove(r.nextInt(open.size()));
                int f = r.nextInt(names.size());
                feature.set(n, f);
                threshold.set(n, Math.floor(r.nextDouble() * range[f]) + 0.5);
                left.set(n, feature.size());
                open.add(feature.size());
                addNode(feature, threshold, left, right);
                right.set(n, feature.size());
                open.add(feature.size());
                addNode(feature, threshold, left, right);
            }
        }
        List<Integer> leafId = new ArrayList<>();
        List<Integer> leafRows = new ArrayList<>();
        List<Integer> offsets = new ArrayList<>(List.of(0));
        List<Float> samples = new ArrayList<>();
        for (int n = 0; n < feature.size(); n++) {
            if (feature.get(n) >= 0) {
                leafId.add(-1);
                continue;
            }
            leafId.add(leafRows.size());
            leafRows.add(k * 10);
            float[] v = new float[k];
            for (int j = 0; j < k; j++) {
                v[j] = r.nextInt(8_192);
            }
            Arrays.sort(v);
            for (float x : v) {
                samples.add(x);
            }
            offsets.add(samples.size());
        }
        return QuantileForestModel.newBuilder()
            .setFeatureNames(names)
            .setFeatureLevels(Map.of("model", List.of(MODELS), "lora", List.of("lora-0", "lora-1"),
                "expectedTool", List.of(TOOLS), "prefixGroup", groups))
            .setTargetName("outputTokens").setTrainingRows(50_000L).setMaxSamplesPerLeaf(k)
            .setTreeRoots(roots).setNodeSplitFeature(feature).setNodeThreshold(threshold)
            .setNodeLeft(left).setNodeRight(right).setNodeLeafId(leafId)
            .setLeafRows(leafRows).setLeafSampleOffsets(offsets).setLeafSamples(samples)
            .build();
    }

    private static void addNode(List<Integer> feature, List<Double> threshold, List<Integer> left,
                                List<Integer> right) {
        feature.add(-1);
        threshold.add(0.0);
        left.add(-1);
        right.add(-1);
    }
}
