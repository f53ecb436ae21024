package io.tierroute.selector.params;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.selector.bench.ForestPredictBenchmark;
import io.tierroute.selector.params.OutputLengthModel.OutputFeatures;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class ForestOutputModelTest {
    static {
        io.tierroute.schemas.AvroTrust.install(); // the generated builders' default values need the trust list
    }

    // ---- the fitter's own predictions (fixture written by fitter's ForestFixtureTest) ----

    @Test
    void matchesTheFittersPredictionsOnItsCommittedFixture() throws IOException {
        ForestOutputModel model = ForestOutputModel.decode(resource("/forest/qrf-fixture.bin"));
        assertThat(model.numTrees()).isEqualTo(20);
        String[] lines = new String(resource("/forest/qrf-fixture-expected.csv"), StandardCharsets.UTF_8).split("\n");
        int checked = 0;
        for (String line : Arrays.copyOfRange(lines, 1, lines.length)) {
            String[] c = line.split(",", -1);
            OutputFeatures f = new OutputFeatures(Integer.parseInt(c[0]), str(c[1]), str(c[2]), integer(c[3]),
                str(c[4]), Integer.parseInt(c[5]), Long.parseLong(c[6]), integer(c[7]));
            double q = Double.parseDouble(c[8]);
            assertThat(model.predict(f, q)).as("line %s", line).isEqualTo(Double.parseDouble(c[9]));
            checked++;
        }
        assertThat(checked).isGreaterThan(2_000);
    }

    // ---- a hand-built model with answers worked out from the schema doc ----

    /** Tree 0: isl <= 4096 ? leaf 0 {10, 20} : leaf 1 {100, 200, 300, 400}; tree 1: leaf 2 {50}. */
    static QuantileForestModel tiny() {
        return QuantileForestModel.newBuilder()
            .setFeatureNames(List.of("isl", "expectedTool"))
            .setFeatureLevels(Map.of("expectedTool", List.of("sql_query", "web_search")))
            .setTargetName("outputTokens").setTrainingRows(100).setMaxSamplesPerLeaf(4)
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

    private static OutputFeatures isl(int isl) {
        return new OutputFeatures(isl, "m", null, null, null, 1024, 0L, null);
    }

    @Test
    void handBuiltForestGivesTheWeightedQuantilesOfTheSchema() {
        ForestOutputModel m = ForestOutputModel.from(tiny());
        // isl 100: {10, 20} weight 1/4 each, {50} weight 1/2 -> cumulative 10:.25 20:.5 50:1
        assertThat(m.predict(isl(100), 0.2)).isEqualTo(10);
        assertThat(m.predict(isl(100), 0.25)).isEqualTo(10); // exactly reaches q
        assertThat(m.predict(isl(100), 0.5)).isEqualTo(20);
        assertThat(m.predict(isl(100), 0.51)).isEqualTo(50);
        assertThat(m.predict(isl(4096), 0.9)).isEqualTo(50); // <= goes left
        // isl 5000: {100..400} weight 1/8 each, {50} 1/2 -> 50:.5 100:.625 200:.75 300:.875 400:1
        assertThat(m.predict(isl(5000), 0.5)).isEqualTo(50);
        assertThat(m.predict(isl(5000), 0.6)).isEqualTo(100);
        assertThat(m.predict(isl(5000), 0.75)).isEqualTo(200);
        assertThat(m.predict(isl(5000), 0.99)).isEqualTo(400);
        // extreme quantiles
        assertThat(m.predict(isl(5000), 1e-12)).isEqualTo(50);
        assertThat(m.predict(isl(5000), 1 - 1e-12)).isEqualTo(400);
        assertThat(ForestOutputModel.select(new float[] {3, 1, 2}, new double[] {1, 1, 1}, 0, 3, -1)).isEqualTo(1);
        float[] many = new float[100];
        double[] ones = new double[100];
        for (int i = 0; i < 100; i++) {
            many[i] = 100 - i;
            ones[i] = 1;
        }
        assertThat(ForestOutputModel.select(many, ones, 0, 100, -1)).isEqualTo(1);
        assertThat(ForestOutputModel.select(many.clone(), ones, 0, 100, 1e9)).isEqualTo(100);
        // NaN goes right
        assertThat(m.predict(new double[] {Double.NaN, Double.NaN}, 0.99)).isEqualTo(400);
        assertThat(m.featureNames()).containsExactly("isl", "expectedTool");
        assertThat(m.numLeaves()).isEqualTo(3);
    }

    @Test
    void categoricalValuesAreEncodedAsLevelIndicesAndUnknownsAsNaN() {
        ForestOutputModel m = ForestOutputModel.from(ForestPredictBenchmark.syntheticModel(3, 8, 4, 1));
        double[] x = new double[9];
        m.encode(new OutputFeatures(700, "qwen-32b", "lora-1", 3, "web_search", 2048, 127L, 55), x);
        assertThat(x).containsExactly(700, 2, 1, 3, 1, 2048, Double.NaN, 127, 55);
        m.encode(new OutputFeatures(0, "other", null, null, "nope", 0, 128L, null), x);
        assertThat(x).containsExactly(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, Double.NaN,
            Double.NaN, Double.NaN);
    }

    // ---- the quickselect against a sort, on production-sized random forests ----

    @Test
    void quickselectEqualsTheSortedCumulativeDefinition() {
        for (int[] shape : new int[][] {{50, 64, 48}, {50, 256, 8}, {7, 33, 5}}) {
            QuantileForestModel rec = ForestPredictBenchmark.syntheticModel(shape[0], shape[1], shape[2], shape[1]);
            ForestOutputModel m = ForestOutputModel.from(rec);
            SplittableRandom r = new SplittableRandom(3);
            double[] x = new double[9];
            for (int i = 0; i < 2_000; i++) {
                OutputFeatures f = ForestPredictBenchmark.randomFeatures(r);
                m.encode(f, x);
                double q = i % 4 == 0 ? (1 + r.nextInt(99)) / 100.0 : r.nextDouble() * 0.999 + 0.0005;
                assertThat(m.predict(f, q)).as("shape %s, q %s", Arrays.toString(shape), q)
                    .isEqualTo(naive(rec, x, q));
            }
        }
        // heavy ties
        float[] v = new float[500];
        double[] w = new double[500];
        SplittableRandom r = new SplittableRandom(5);
        for (int trial = 0; trial < 500; trial++) {
            double total = 0;
            for (int i = 0; i < v.length; i++) {
                v[i] = r.nextInt(6);
                w[i] = 1.0 / (1 + r.nextInt(8));
                total += w[i];
            }
            double target = r.nextDouble() * total;
            float expected = naiveSelect(v, w, target);
            assertThat(ForestOutputModel.select(v.clone(), w.clone(), 0, v.length, target)).isEqualTo(expected);
        }
    }

    private static double naive(QuantileForestModel m, double[] x, double q) {
        int trees = m.getTreeRoots().size();
        List<double[]> pairs = new ArrayList<>();
        for (int root : m.getTreeRoots()) {
            int n = root;
            while (m.getNodeSplitFeature().get(n) >= 0) {
                n = x[m.getNodeSplitFeature().get(n)] <= m.getNodeThreshold().get(n)
                    ? m.getNodeLeft().get(n) : m.getNodeRight().get(n);
            }
            int l = m.getNodeLeafId().get(n);
            int from = m.getLeafSampleOffsets().get(l);
            int to = m.getLeafSampleOffsets().get(l + 1);
            for (int i = from; i < to; i++) {
                pairs.add(new double[] {m.getLeafSamples().get(i), 1.0 / (to - from)});
            }
        }
        pairs.sort(Comparator.comparingDouble(p -> p[0]));
        double cum = 0;
        for (double[] p : pairs) {
            cum += p[1];
            if (cum >= q * trees - ForestOutputModel.EPS) {
                return p[0];
            }
        }
        return pairs.get(pairs.size() - 1)[0];
    }

    private static float naiveSelect(float[] v, double[] w, double target) {
        Integer[] idx = new Integer[v.length];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, Comparator.comparingDouble(i -> v[i]));
        // cumulative weight at the end of each distinct value
        double cum = 0;
        for (int j = 0; j < idx.length; j++) {
            cum += w[idx[j]];
            boolean lastOfValue = j + 1 == idx.length || v[idx[j + 1]] != v[idx[j]];
            if (lastOfValue && cum >= target) {
                return v[idx[j]];
            }
        }
        return v[idx[idx.length - 1]];
    }

    // ---- thread safety and allocation ----

    @Test
    void concurrentPredictionsEqualSequentialOnes() throws Exception {
        ForestOutputModel m = ForestOutputModel.from(ForestPredictBenchmark.syntheticModel(50, 64, 48, 9));
        SplittableRandom r = new SplittableRandom(11);
        OutputFeatures[] fs = new OutputFeatures[2_000];
        double[] qs = new double[fs.length];
        double[] expected = new double[fs.length];
        for (int i = 0; i < fs.length; i++) {
            fs[i] = ForestPredictBenchmark.randomFeatures(r);
            qs[i] = 0.01 + 0.98 * r.nextDouble();
            expected[i] = m.predict(fs[i], qs[i]);
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int offset = t * 500;
                futures.add(pool.submit(() -> {
                    int ok = 0;
                    for (int rep = 0; rep < 3; rep++) {
                        for (int j = 0; j < fs.length; j++) {
                            int i = (j + offset) % fs.length;
                            ok += m.predict(fs[i], qs[i]) == expected[i] ? 1 : 0;
                        }
                    }
                    return ok;
                }));
            }
            for (Future<Integer> f : futures) {
                assertThat(f.get()).isEqualTo(3 * fs.length);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void predictionAllocatesNothingAfterWarmUp() {
        Assumptions.assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean b
            && b.isThreadAllocatedMemorySupported(), "this JVM cannot count a thread's allocated bytes");
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        ForestOutputModel m = ForestOutputModel.from(ForestPredictBenchmark.syntheticModel(50, 64, 48, 2));
        OutputFeatures f = new OutputFeatures(1_500, "llama-8b", "lora-1", 2, "sql_query", 2048, 17L, 300);
        double sink = 0;
        for (int i = 0; i < 20_000; i++) {
            sink += m.predict(f, 0.01 + (i % 98) / 100.0);
        }
        long tid = Thread.currentThread().getId();
        long before = bean.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 10_000; i++) {
            sink += m.predict(f, 0.01 + (i % 98) / 100.0);
        }
        long bytes = bean.getThreadAllocatedBytes(tid) - before;
        System.out.printf("ForestOutputModel: %d bytes allocated over 10 000 predictions (sink %.0f)%n", bytes, sink);
        assertThat(bytes).isLessThan(10_000);
    }

    // ---- validation on load ----

    @Test
    void invalidRecordsAreRejectedNamingTheProblem() {
        rejects(b -> b.setNodeLeft(List.of(7, -1, -1, -1)), "nodeLeft[0] = 7");
        rejects(b -> b.setNodeRight(List.of(-2, -1, -1, -1)), "nodeRight[0] = -2");
        rejects(b -> b.setNodeThreshold(List.of(Double.NaN, 0.0, 0.0, 0.0)), "nodeThreshold[0] = NaN");
        rejects(b -> b.setNodeThreshold(List.of(4096.0, 0.0, 0.0)), "nodeThreshold has 3 entries");
        rejects(b -> b.setNodeSplitFeature(List.of(2, -1, -1, -1)), "nodeSplitFeature[0] = 2");
        rejects(b -> b.setNodeSplitFeature(List.of(-3, -1, -1, -1)), "nodeSplitFeature[0] = -3");
        rejects(b -> b.setNodeLeafId(List.of(-1, 0, 5, 2)), "nodeLeafId[2] = 5");
        rejects(b -> b.setNodeLeafId(List.of(0, 0, 1, 2)), "nodeLeafId[0] = 0 on an internal node");
        rejects(b -> b.setTreeRoots(List.of(0, 4)), "treeRoots[1] = 4");
        rejects(b -> b.setTreeRoots(List.of()), "treeRoots is empty");
        rejects(b -> b.setTreeRoots(List.of(0, 1)), "node 1 is reached twice");
        rejects(b -> b.setNodeLeft(List.of(0, -1, -1, -1)), "node 0 is reached twice");
        rejects(b -> b.setLeafSampleOffsets(List.of(0, 2, 6)), "leafRows has 3 entries");
        rejects(b -> b.setLeafSampleOffsets(List.of(1, 2, 6, 7)), "leafSampleOffsets[0] = 1");
        rejects(b -> b.setLeafSampleOffsets(List.of(0, 2, 6, 8)), "leafSampleOffsets[3] = 8");
        rejects(b -> b.setLeafSampleOffsets(List.of(0, 6, 2, 7)), "leaf 0 has 6 sample values");
        rejects(b -> b.setLeafSamples(List.of(10f, 20f, 100f, 200f, 300f, 400f, Float.NaN)), "leafSamples[6] = NaN");
        rejects(b -> b.setLeafSamples(List.of(20f, 10f, 100f, 200f, 300f, 400f, 50f)), "not sorted");
        rejects(b -> b.setMaxSamplesPerLeaf(0), "maxSamplesPerLeaf = 0");
        rejects(b -> b.setFeatureNames(List.of("isl", "colour")), "'colour' is not a known feature");
        rejects(b -> b.setFeatureLevels(Map.of("isl", List.of("a"))), "levels for numeric feature 'isl'");
        rejects(b -> b.setFeatureLevels(Map.of("expectedTool", List.of("a", "a"))), "repeated");
        ForestOutputModel ok = ForestOutputModel.from(tiny());
        assertThatThrownBy(() -> ok.predict(isl(1), 1.0)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("quantile");
        assertThatThrownBy(() -> ok.predict(isl(1), Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ok.predict(new double[3], 0.5)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("3 values");
        assertThatThrownBy(() -> ForestOutputModel.from(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLeafsThresholdIsNeverReadSoANullOneLoads() {
        QuantileForestModel m = QuantileForestModel.newBuilder(tiny())
            .setNodeThreshold(java.util.Arrays.asList(4096.0, null, null, null)).build();
        assertThat(ForestOutputModel.from(m).predict(isl(100), 0.5))
            .isEqualTo(ForestOutputModel.from(tiny()).predict(isl(100), 0.5));
    }

    private static void rejects(Consumer<QuantileForestModel.Builder> edit, String message) {
        QuantileForestModel.Builder b = QuantileForestModel.newBuilder(tiny());
        edit.accept(b);
        QuantileForestModel m = b.build();
        assertThatThrownBy(() -> ForestOutputModel.from(m)).as(message)
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = ForestOutputModelTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    private static String str(String s) {
        return s.isEmpty() ? null : s;
    }

    private static Integer integer(String s) {
        return s.isEmpty() ? null : Integer.valueOf(s);
    }
}
