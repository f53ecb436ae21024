package io.tierroute.fitter.forest;

import io.tierroute.schemas.RecordCodec;
import io.tierroute.schemas.avro.QuantileForestModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import smile.base.cart.LeafNode;
import smile.data.Tuple;
import smile.data.type.StructType;
import smile.regression.RegressionTree;

/**
 * A trained quantile regression forest: the exported Avro record ({@link #model()}) and the fitter's
 * own predictor, which walks Smile's trees and merges the same per-leaf samples the record carries
 * (so the record's evaluator must give exactly the same answers; tests check it).
 */
public final class QuantileForest {

    /** Single-object codec of the model record (it is not a topic record, so not in {@code Codecs}). */
    public static final RecordCodec<QuantileForestModel> CODEC = RecordCodec.of(QuantileForestModel.class);

    /**
     * Tolerance of "cumulative weight reaches q": with per-tree weights 1/k_l (mass 1 per tree) the
     * q-quantile is the smallest value with cumulative weight ≥ q·numTrees − EPS, so sums that equal
     * q·numTrees in exact arithmetic count as reaching it whatever the summation order.
     */
    public static final double EPS = 1e-9;

    private final QuantileForestModel model;
    private final ForestFeatures features;
    private final RegressionTree[] trees;                        // null for a constant forest
    private final StructType xSchema;
    private final int[] toFeature;
    private final List<IdentityHashMap<LeafNode, float[]>> leafSamples;
    private final float[] constantSample;                        // when trees == null

    QuantileForest(QuantileForestModel model, ForestFeatures features, RegressionTree[] trees, StructType xSchema,
                   int[] toFeature, List<IdentityHashMap<LeafNode, float[]>> leafSamples) {
        this.model = model;
        this.features = features;
        this.trees = trees;
        this.xSchema = xSchema;
        this.toFeature = toFeature;
        this.leafSamples = leafSamples;
        this.constantSample = null;
    }

    private QuantileForest(QuantileForestModel model, ForestFeatures features, float[] constantSample) {
        this.model = model;
        this.features = features;
        this.trees = null;
        this.xSchema = null;
        this.toFeature = null;
        this.leafSamples = null;
        this.constantSample = constantSample;
    }

    /** No predictor varies: one tree that is a single leaf holding all targets. */
    static QuantileForest constant(ForestFeatures features, float[] y, int k) {
        float[] s = QuantileForestTrainer.leafSample(y, y.length, k);
        List<Float> samples = new ArrayList<>();
        for (float v : s) {
            samples.add(v);
        }
        QuantileForestModel m = QuantileForestModel.newBuilder()
            .setFeatureNames(ForestFeatures.NAMES).setFeatureLevels(features.levels())
            .setTargetName(ForestFeatures.TARGET).setTrainingRows(y.length).setMaxSamplesPerLeaf(k)
            .setTreeRoots(List.of(0)).setNodeSplitFeature(List.of(-1)).setNodeThreshold(List.of(0.0))
            .setNodeLeft(List.of(-1)).setNodeRight(List.of(-1)).setNodeLeafId(List.of(0))
            .setLeafRows(List.of(y.length)).setLeafSampleOffsets(List.of(0, s.length)).setLeafSamples(samples)
            .setCalibration(new ArrayList<>())
            .build();
        return new QuantileForest(m, features, s);
    }

    /** The exported model record. */
    public QuantileForestModel model() {
        return model;
    }

    public ForestFeatures features() {
        return features;
    }

    /** The model record, single-object encoded. */
    public byte[] encode() {
        return CODEC.encode(model);
    }

    public int numTrees() {
        return model.getTreeRoots().size();
    }

    public int numLeaves() {
        return model.getLeafRows().size();
    }

    /** The {@code q}-quantile (q in (0, 1)) of the output length of {@code row}, tokens. */
    public double predict(OutputRow row, double q) {
        return predict(features.encode(row), q);
    }

    /** As {@link #predict(OutputRow, double)} for an encoded feature vector (NaN = unknown). */
    public double predict(double[] x, double q) {
        return predict(x, new double[] {q})[0];
    }

    /** The {@code qs[i]}-quantiles (each in (0, 1), ascending) of one encoded feature vector, one leaf walk. */
    public double[] predict(double[] x, double[] qs) {
        for (int i = 0; i < qs.length; i++) {
            if (!(qs[i] > 0 && qs[i] < 1) || (i > 0 && qs[i] < qs[i - 1])) {
                throw new IllegalArgumentException("quantiles must be ascending, each in (0, 1): " + Arrays.toString(qs));
            }
        }
        if (trees == null) {
            return weightedQuantiles(List.of(constantSample), qs);
        }
        double[] xs = new double[toFeature.length];
        for (int j = 0; j < xs.length; j++) {
            xs[j] = QuantileForestTrainer.smileValue(x[toFeature[j]]);
        }
        Tuple t = Tuple.of(xs, xSchema);
        List<float[]> leaves = new ArrayList<>(trees.length);
        for (int i = 0; i < trees.length; i++) {
            leaves.add(leafSamples.get(i).get(trees[i].root().predict(t)));
        }
        return weightedQuantiles(leaves, qs);
    }

    /**
     * Meinshausen's weighted quantile of the reached leaves at each of the ascending {@code qs}, sharing one sort:
     * each leaf's k_l values weigh 1/k_l (one unit of mass per tree); the smallest value whose cumulative weight,
     * values ascending, reaches q·(number of leaves) − {@link #EPS}.
     */
    static double[] weightedQuantiles(List<float[]> leaves, double[] qs) {
        int m = 0;
        for (float[] l : leaves) {
            m += l.length;
        }
        long[] packed = new long[m]; // value bits (non-negative floats sort as ints) | leaf index
        int i = 0;
        for (int t = 0; t < leaves.size(); t++) {
            for (float v : leaves.get(t)) {
                packed[i++] = ((long) Float.floatToIntBits(v) << 32) | t;
            }
        }
        Arrays.sort(packed);
        double[] out = new double[qs.length];
        double cum = 0;
        int j = 0;
        for (int k = 0; k < qs.length; k++) {
            double target = qs[k] * leaves.size() - EPS;
            // advance to the first value whose cumulative weight reaches the target (or the last value)
            while (j < m - 1 && cum + 1.0 / leaves.get((int) packed[j]).length < target) {
                cum += 1.0 / leaves.get((int) packed[j]).length;
                j++;
            }
            out[k] = Float.intBitsToFloat((int) (packed[j] >>> 32));
        }
        return out;
    }
}
