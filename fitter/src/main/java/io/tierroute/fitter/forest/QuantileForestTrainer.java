package io.tierroute.fitter.forest;

import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.avro.QuantileCoverage;
import io.tierroute.schemas.avro.QuantileForestModel;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import smile.base.cart.LeafNode;
import smile.base.cart.Node;
import smile.base.cart.OrdinalNode;
import smile.data.DataFrame;
import smile.data.Tuple;
import smile.data.formula.Formula;
import smile.data.type.StructType;
import smile.regression.RandomForest;
import smile.regression.RegressionTree;

/**
 * Trains a quantile regression forest (Meinshausen 2006) on Smile's {@link RandomForest} and exports
 * it as the compact Avro {@link QuantileForestModel}. See {@code package-info} for how training rows
 * are mapped to leaves. Stateless apart from its config; {@link #fit} is deterministic for a given
 * config (seed) and row order.
 */
public final class QuantileForestTrainer {

    /**
     * What an unknown value becomes in Smile's training frame: above every real value, so every
     * threshold Smile chooses (a midpoint between two distinct training values) is below it and an
     * unknown value always goes right — exactly what the evaluator does with NaN.
     */
    static final double MISSING = 1e12;

    /** Schema's per-leaf size estimate without the samples: numLeaves·(4k + 38) bytes. */
    static final int BYTES_PER_LEAF = 38;

    /** {@code m}'s size by the rule its budget was kept with (38 bytes a leaf, 4 a sample): at most maxModelBytes. */
    public static long estimatedBytes(QuantileForestModel m) {
        return (long) BYTES_PER_LEAF * m.getLeafRows().size() + 4L * m.getLeafSamples().size();
    }

    private static final Field ORDINAL_VALUE;

    static {
        AvroTrust.install(); // building records resolves nested generated classes (Avro 1.12.2 trust list)
        try {
            ORDINAL_VALUE = OrdinalNode.class.getDeclaredField("value");
            ORDINAL_VALUE.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new ExceptionInInitializerError("Smile's OrdinalNode.value is not readable: " + e);
        }
    }

    private final ForestConfig config;
    private final CalibrationConfig calibration;

    /** A trainer that measures calibration with {@link CalibrationConfig#defaults()}. */
    public QuantileForestTrainer(ForestConfig config) {
        this(config, CalibrationConfig.defaults());
    }

    public QuantileForestTrainer(ForestConfig config, CalibrationConfig calibration) {
        this.config = config;
        this.calibration = calibration;
    }

    public ForestConfig config() {
        return config;
    }

    public CalibrationConfig calibration() {
        return calibration;
    }

    /**
     * Trains on {@code rows} (at least 2). When the sample is large enough (see {@link CalibrationConfig}),
     * first measures calibration: a forest with the same config is fitted on the rows not held out and
     * its coverage per quantile measured on the held-out ones; then the returned forest is fitted on all
     * rows (so it is exactly the forest a fit without calibration gives) and carries that measurement in
     * its record's {@code calibration}.
     */
    public QuantileForest fit(List<OutputRow> rows) {
        int n = rows.size();
        if (n < 2) {
            throw new IllegalArgumentException("need at least 2 training rows, got " + n);
        }
        List<QuantileCoverage> coverage = List.of();
        int h = calibration.heldOutRows(n);
        if (h > 0) {
            boolean[] held = ForestCalibration.heldOutMask(n, h, config.seed());
            List<OutputRow> train = new ArrayList<>(n - h);
            List<OutputRow> test = new ArrayList<>(h);
            for (int i = 0; i < n; i++) {
                (held[i] ? test : train).add(rows.get(i));
            }
            coverage = ForestCalibration.measure(fitAll(train), test, calibration.quantiles());
        }
        QuantileForest forest = fitAll(rows);
        forest.model().setCalibration(coverage); // the record was built by this fit and is not shared yet
        return forest;
    }

    /** One forest on all of {@code rows} (at least 2), with an empty calibration. */
    private QuantileForest fitAll(List<OutputRow> rows) {
        int n = rows.size();
        ForestFeatures features = ForestFeatures.fit(rows, config.maxLevels(), config.minLevelRows());
        int p = ForestFeatures.NAMES.size();
        double[][] x = new double[n][];
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = features.encode(rows.get(i));
            y[i] = rows.get(i).outputTokens();
        }
        // Predictors with a single value (after unknown -> MISSING) cannot split: leave them out of
        // Smile's frame so mtry draws among informative ones.
        List<Integer> active = new ArrayList<>();
        for (int f = 0; f < p; f++) {
            double first = smileValue(x[0][f]);
            for (int i = 1; i < n; i++) {
                if (smileValue(x[i][f]) != first) {
                    active.add(f);
                    break;
                }
            }
        }
        if (active.isEmpty()) {
            return QuantileForest.constant(features, y, sampleSize(1));
        }
        int a = active.size();
        double[][] data = new double[n][a + 1];
        String[] names = new String[a + 1];
        for (int j = 0; j < a; j++) {
            names[j] = ForestFeatures.NAMES.get(active.get(j));
        }
        names[a] = ForestFeatures.TARGET;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < a; j++) {
                data[i][j] = smileValue(x[i][active.get(j)]);
            }
            data[i][a] = y[i];
        }
        DataFrame df = DataFrame.of(data, names);
        int mtry = config.mtry() == 0 ? a : Math.min(config.mtry(), a);
        RegressionTree[] trees = fitTrees(df, mtry);
        Formula formula = Formula.lhs(ForestFeatures.TARGET);
        StructType xSchema = formula.x(df).schema();
        int[] toFeature = new int[xSchema.length()];
        for (int j = 0; j < toFeature.length; j++) {
            toFeature[j] = ForestFeatures.NAMES.indexOf(xSchema.field(j).name);
        }
        DataFrame xdf = formula.x(df);
        Tuple[] tuples = new Tuple[n];
        for (int i = 0; i < n; i++) {
            tuples[i] = xdf.get(i);
        }
        // Leaf of every training row in every tree, found by walking Smile's own nodes.
        List<IdentityHashMap<LeafNode, FloatList>> perTree = IntStream.range(0, trees.length).parallel()
            .mapToObj(t -> {
                IdentityHashMap<LeafNode, FloatList> m = new IdentityHashMap<>();
                Node root = trees[t].root();
                for (int i = 0; i < n; i++) {
                    m.computeIfAbsent(root.predict(tuples[i]), k -> new FloatList()).add(y[i]);
                }
                return m;
            }).toList();
        int numLeaves = 0;
        for (RegressionTree tree : trees) {
            numLeaves += tree.root().leafs();
        }
        int k = sampleSize(numLeaves);

        Export ex = new Export(toFeature, k);
        List<IdentityHashMap<LeafNode, float[]>> leafSamples = new ArrayList<>();
        for (int t = 0; t < trees.length; t++) {
            IdentityHashMap<LeafNode, float[]> samples = new IdentityHashMap<>();
            IdentityHashMap<LeafNode, Integer> leafIds = new IdentityHashMap<>();
            ex.roots.add(ex.export(trees[t].root(), perTree.get(t), samples, leafIds));
            leafSamples.add(samples);
            // The exported arrays must route every training row to the leaf Smile routes it to.
            Node root = trees[t].root();
            int flatRoot = ex.roots.get(t);
            for (int i = 0; i < n; i++) {
                int expected = leafIds.get(root.predict(tuples[i]));
                int got = ex.walk(flatRoot, x[i]);
                if (got != expected) {
                    throw new IllegalStateException("tree " + t + ", row " + i + ": exported tree reaches leaf "
                        + got + ", Smile's reaches " + expected);
                }
            }
        }
        QuantileForestModel model = ex.toRecord(features, n);
        return new QuantileForest(model, features, trees, xSchema, toFeature, leafSamples);
    }

    /**
     * One {@code RandomForest.fit(…, ntrees = 1, …, seed_t)} per tree, {@code threads} trees at a time
     * on plain threads. Why not one {@code fit} with all trees: Smile seeds a thread-local RNG per tree
     * inside a parallel stream, and a worker that waits on a tree's inner parallel split search may
     * steal another tree's task, which re-seeds the same thread's RNG mid-tree — the forest then
     * depends on scheduling. A single-tree fit runs its tree on the calling thread (its inner parallel
     * streams only evaluate splits, which draw no random numbers), so tree t depends on seed_t only.
     */
    private RegressionTree[] fitTrees(DataFrame df, int mtry) {
        // Smile only seeds a tree when its seed is > 1 (otherwise the thread's RNG runs on unseeded).
        long[] seeds = new SplittableRandom(config.seed()).longs(config.trees(), 2, Long.MAX_VALUE).toArray();
        int threads = Math.max(1, Math.min(config.trees(), Runtime.getRuntime().availableProcessors()));
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "qrf-trainer");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<RegressionTree>> futures = new ArrayList<>();
            for (long s : seeds) {
                futures.add(pool.submit(() -> RandomForest.fit(Formula.lhs(ForestFeatures.TARGET), df, 1, mtry,
                    config.maxDepth(), config.maxNodes(), config.nodeSize(), config.subsample(),
                    LongStream.of(s)).trees()[0]));
            }
            RegressionTree[] trees = new RegressionTree[seeds.length];
            for (int t = 0; t < trees.length; t++) {
                trees[t] = futures.get(t).get();
            }
            return trees;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while training", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Smile failed to fit a tree: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    private int sampleSize(int numLeaves) {
        long perLeaf = config.maxModelBytes() / numLeaves;
        long k = Math.min(config.samplesPerLeaf(), (perLeaf - BYTES_PER_LEAF) / 4);
        if (k < 1) {
            throw new IllegalStateException(numLeaves + " leaves cannot fit in " + config.maxModelBytes()
                + " bytes even with one sample per leaf: lower trees or maxNodes");
        }
        return (int) k;
    }

    static double smileValue(double v) {
        return Double.isNaN(v) ? MISSING : v;
    }

    /**
     * The per-leaf sample of the schema: all targets sorted if there are at most k, else the k values
     * at ranks (i + 0.5)/k, i.e. sorted[⌊(i + 0.5)·n/k⌋].
     */
    static float[] leafSample(float[] targets, int count, int k) {
        float[] sorted = Arrays.copyOf(targets, count);
        Arrays.sort(sorted);
        if (count <= k) {
            return sorted;
        }
        float[] s = new float[k];
        for (int i = 0; i < k; i++) {
            s[i] = sorted[(int) Math.min(count - 1, Math.floor((i + 0.5) * count / k))];
        }
        return s;
    }

    /** Flattens Smile trees into the record's parallel arrays (pre-order). */
    private static final class Export {
        final int[] toFeature;
        final int k;
        final List<Integer> roots = new ArrayList<>();
        final List<Integer> feature = new ArrayList<>();
        final List<Double> threshold = new ArrayList<>();
        final List<Integer> left = new ArrayList<>();
        final List<Integer> right = new ArrayList<>();
        final List<Integer> leafId = new ArrayList<>();
        final List<Integer> leafRows = new ArrayList<>();
        final List<Integer> offsets = new ArrayList<>(List.of(0));
        final List<Float> samples = new ArrayList<>();

        Export(int[] toFeature, int k) {
            this.toFeature = toFeature;
            this.k = k;
        }

        int export(Node node, Map<LeafNode, FloatList> targets, IdentityHashMap<LeafNode, float[]> sampleOut,
                   IdentityHashMap<LeafNode, Integer> idOut) {
            int id = feature.size();
            feature.add(-1);
            threshold.add(0.0);
            left.add(-1);
            right.add(-1);
            leafId.add(-1);
            if (node instanceof OrdinalNode o) {
                double thr;
                try {
                    thr = ORDINAL_VALUE.getDouble(o);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
                feature.set(id, toFeature[o.feature()]);
                threshold.set(id, thr);
                int l = export(o.trueChild(), targets, sampleOut, idOut);
                int r = export(o.falseChild(), targets, sampleOut, idOut);
                left.set(id, l);
                right.set(id, r);
            } else if (node instanceof LeafNode leaf) {
                FloatList t = targets.get(leaf);
                if (t == null || t.size == 0) {
                    throw new IllegalStateException("a Smile leaf received no training row");
                }
                int l = leafRows.size();
                leafId.set(id, l);
                leafRows.add(t.size);
                float[] s = leafSample(t.values, t.size, k);
                for (float v : s) {
                    samples.add(v);
                }
                offsets.add(samples.size());
                sampleOut.put(leaf, s);
                idOut.put(leaf, l);
            } else {
                throw new IllegalStateException("unexpected Smile node " + node.getClass().getName()
                    + " (all predictors are numeric, so only OrdinalNode splits are expected)");
            }
            return id;
        }

        int walk(int n, double[] x) {
            while (feature.get(n) >= 0) {
                n = x[feature.get(n)] <= threshold.get(n) ? left.get(n) : right.get(n);
            }
            return leafId.get(n);
        }

        QuantileForestModel toRecord(ForestFeatures features, long rows) {
            return QuantileForestModel.newBuilder()
                .setFeatureNames(ForestFeatures.NAMES)
                .setFeatureLevels(features.levels())
                .setTargetName(ForestFeatures.TARGET)
                .setTrainingRows(rows)
                .setMaxSamplesPerLeaf(k)
                .setTreeRoots(roots)
                .setNodeSplitFeature(feature).setNodeThreshold(threshold)
                .setNodeLeft(left).setNodeRight(right).setNodeLeafId(leafId)
                .setLeafRows(leafRows).setLeafSampleOffsets(offsets).setLeafSamples(samples)
                .setCalibration(new ArrayList<>())
                .build();
        }
    }

    /** Growable float array. */
    static final class FloatList {
        float[] values = new float[8];
        int size;

        void add(float v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }
    }
}
