package io.tierroute.selector.params;

import io.tierroute.schemas.ForestFeatureSchema;
import io.tierroute.schemas.RecordCodec;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.snapshot.ForestStructure;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The fitter's quantile regression forest (Meinshausen 2006), evaluated from its Avro
 * {@link QuantileForestModel} (see that schema's doc for the layout and the prediction rule). The
 * record is validated ({@link ForestStructure}, the check the fitter's gate runs too) and copied once into flat
 * primitive arrays; {@link #predict} walks every tree
 * to its leaf, merges the reached leaves' samples (leaf l's k_l values weigh 1/(T·k_l), so every tree
 * carries mass 1/T) and returns the smallest value whose cumulative weight reaches q. No sort: the
 * reached samples' weights go into value buckets (the float's exponent and top 4 mantissa bits, so
 * 16 buckets per octave, monotone for values ≥ 0); a scan finds the bucket where the cumulative
 * weight reaches q, and a weighted quickselect picks the exact value among that bucket's samples
 * (a few dozen at most in practice). Cost O(Σ k_l + buckets spanned).
 *
 * <p>Feature names it understands (the fitter's {@code ForestFeatures}): numeric {@code isl},
 * {@code stepIndex}, {@code maxTokens}, {@code outputHint}, {@code previousStepOutputTokens};
 * categorical (index into {@code featureLevels[name]}) {@code model}, {@code lora},
 * {@code expectedTool}, {@code prefixGroup} (decimal id). Null or unknown values are NaN, which goes
 * right at every split. {@link OutputFeatures} carries no output hint, so {@code outputHint} is
 * always NaN on the {@link #predict(OutputFeatures, double)} path; {@link #predict(double[], double)}
 * takes a full vector.
 *
 * <p>Immutable and thread-safe; a prediction allocates nothing after a thread's first call (per-thread
 * scratch arrays).
 */
public final class ForestOutputModel implements OutputLengthModel {

    /** Value buckets: float bits >>> 19 keep the exponent and 4 mantissa bits (16 buckets per octave). */
    private static final int BUCKET_SHIFT = 19;
    private static final int BUCKETS = (0x7F800000 >>> BUCKET_SHIFT) + 1;

    /** Tolerance of "cumulative weight reaches q" (in units of one tree's mass); same as the fitter's. */
    static final double EPS = 1e-9;

    /** Known feature names, index = the source constants of {@link ForestFeatureSchema}. */
    static final List<String> KNOWN_FEATURES = ForestFeatureSchema.NAMES;

    private static volatile RecordCodec<QuantileForestModel> codec;

    private final List<String> featureNames;
    private final int[] source;                      // per feature: F_* it is read from
    private final Map<String, Integer>[] stringLevels; // per feature (model, lora, tool), else null
    private final long[] prefixIds;                  // sorted prefix-group levels (if a prefixGroup feature)
    private final int[] prefixIndex;                 // their level indices
    private final int numTrees;
    private final int[] roots;
    private final int[] splitFeature;
    private final double[] threshold;
    private final int[] left;
    private final int[] right;
    private final int[] leafId;
    private final int[] sampleOffsets;
    private final float[] samples;
    private final double[] leafWeight;               // 1/k_l
    private final int maxMerged;                     // Σ over trees of the tree's largest leaf sample
    private final long trainingRows;
    private final ThreadLocal<Scratch> scratch;

    /** Copies a model {@link ForestStructure} found well formed into flat arrays. */
    private ForestOutputModel(QuantileForestModel m) {
        List<String> names = m.getFeatureNames();
        int p = names.size();
        this.featureNames = List.copyOf(names);
        this.source = new int[p];
        @SuppressWarnings("unchecked")
        Map<String, Integer>[] levels = new Map[p];
        Map<String, List<String>> featureLevels = m.getFeatureLevels() == null ? Map.of() : m.getFeatureLevels();
        long[] pIds = new long[0];
        int[] pIdx = new int[0];
        for (int f = 0; f < p; f++) {
            int s = KNOWN_FEATURES.indexOf(names.get(f));
            source[f] = s;
            if (!ForestFeatureSchema.isCategorical(s)) {
                continue;
            }
            List<String> lv = featureLevels.getOrDefault(names.get(f), List.of());
            if (s == ForestFeatureSchema.PREFIX_GROUP) {
                long[][] pairs = new long[lv.size()][];
                for (int i = 0; i < lv.size(); i++) {
                    pairs[i] = new long[] {Long.parseLong(lv.get(i)), i};
                }
                Arrays.sort(pairs, (a, b) -> Long.compare(a[0], b[0]));
                pIds = new long[pairs.length];
                pIdx = new int[pairs.length];
                for (int i = 0; i < pairs.length; i++) {
                    pIds[i] = pairs[i][0];
                    pIdx[i] = (int) pairs[i][1];
                }
            } else {
                Map<String, Integer> map = new HashMap<>();
                for (int i = 0; i < lv.size(); i++) {
                    map.put(lv.get(i), i);
                }
                levels[f] = map;
            }
        }
        this.stringLevels = levels;
        this.prefixIds = pIds;
        this.prefixIndex = pIdx;

        this.roots = ints(m.getTreeRoots());
        this.numTrees = roots.length;
        this.splitFeature = ints(m.getNodeSplitFeature());
        this.threshold = m.getNodeThreshold().stream().mapToDouble(t -> t == null ? Double.NaN : t).toArray(); // a leaf's is never read
        this.left = ints(m.getNodeLeft());
        this.right = ints(m.getNodeRight());
        this.leafId = ints(m.getNodeLeafId());
        this.sampleOffsets = ints(m.getLeafSampleOffsets());
        List<Float> sampleList = m.getLeafSamples();
        this.samples = new float[sampleList.size()];
        for (int i = 0; i < samples.length; i++) {
            samples[i] = sampleList.get(i) + 0.0f; // -0.0 -> 0.0 (bucketing uses the raw bits)
        }
        int numLeaves = sampleOffsets.length - 1;
        this.leafWeight = new double[numLeaves];
        for (int l = 0; l < numLeaves; l++) {
            leafWeight[l] = 1.0 / (sampleOffsets[l + 1] - sampleOffsets[l]);
        }
        // The largest sample per tree sizes the scratch buffer (every walk ends: the trees are trees).
        int[] stack = new int[splitFeature.length + 1];
        long merged = 0;
        for (int root : roots) {
            int top = 0;
            stack[top++] = root;
            int largest = 0;
            while (top > 0) {
                int n = stack[--top];
                if (splitFeature[n] >= 0) {
                    stack[top++] = left[n];
                    stack[top++] = right[n];
                } else {
                    int l = leafId[n];
                    largest = Math.max(largest, sampleOffsets[l + 1] - sampleOffsets[l]);
                }
            }
            merged += largest;
        }
        this.maxMerged = (int) merged;
        this.trainingRows = m.getTrainingRows();
        this.scratch = ThreadLocal.withInitial(() -> new Scratch(maxMerged, featureNames.size(), numTrees));
    }

    /** Builds the evaluator from a model record; {@link IllegalArgumentException} naming what is wrong. */
    public static ForestOutputModel from(QuantileForestModel model) {
        if (model == null) {
            throw new IllegalArgumentException("QuantileForestModel is null");
        }
        Optional<String> defect = ForestStructure.defect(model); // the fitter's gate runs the same check
        if (defect.isPresent()) {
            throw new IllegalArgumentException("Invalid QuantileForestModel: " + defect.get());
        }
        return new ForestOutputModel(model);
    }

    /** Decodes a single-object encoded {@link QuantileForestModel} and builds the evaluator. */
    public static ForestOutputModel decode(byte[] bytes) {
        RecordCodec<QuantileForestModel> c = codec;
        if (c == null) {
            c = RecordCodec.of(QuantileForestModel.class);
            codec = c;
        }
        return from(c.decode(bytes));
    }

    @Override
    public double predict(OutputFeatures features, double quantile) {
        Scratch s = scratch.get();
        encode(features, s.x);
        return predictWith(s, s.x, quantile);
    }

    /** The q-quantile for a feature vector indexed like {@link #featureNames()} (NaN = unknown). */
    public double predict(double[] x, double quantile) {
        if (x.length != featureNames.size()) {
            throw new IllegalArgumentException("feature vector has " + x.length + " values, model has "
                + featureNames.size() + " features");
        }
        return predictWith(scratch.get(), x, quantile);
    }

    /** Writes the feature vector of {@code f} into {@code x} (length {@link #featureNames()}.size()). */
    public void encode(OutputFeatures f, double[] x) {
        for (int i = 0; i < source.length; i++) {
            x[i] = switch (source[i]) {
                case ForestFeatureSchema.ISL -> f.inputTokens();
                case ForestFeatureSchema.MODEL -> level(i, f.model());
                case ForestFeatureSchema.LORA -> level(i, f.lora());
                case ForestFeatureSchema.STEP -> f.stepIndex() == null ? Double.NaN : f.stepIndex();
                case ForestFeatureSchema.TOOL -> level(i, f.expectedTool());
                case ForestFeatureSchema.MAX_TOKENS -> f.maxTokens();
                case ForestFeatureSchema.PREFIX_GROUP -> prefixLevel(f.prefixGroupId());
                case ForestFeatureSchema.PREVIOUS_OUTPUT -> f.previousStepOutputTokens() == null ? Double.NaN : f.previousStepOutputTokens();
                default -> Double.NaN; // ForestFeatureSchema.HINT: not in OutputFeatures
            };
        }
    }

    public List<String> featureNames() {
        return featureNames;
    }

    public int numTrees() {
        return numTrees;
    }

    public int numLeaves() {
        return leafWeight.length;
    }

    public long trainingRows() {
        return trainingRows;
    }

    private double level(int feature, String value) {
        if (value == null) {
            return Double.NaN;
        }
        Integer i = stringLevels[feature].get(value);
        return i == null ? Double.NaN : i;
    }

    private double prefixLevel(long id) {
        int i = Arrays.binarySearch(prefixIds, id);
        return i < 0 ? Double.NaN : prefixIndex[i];
    }

    private double predictWith(Scratch s, double[] x, double q) {
        if (!(q > 0 && q < 1)) {
            throw new IllegalArgumentException("quantile must be in (0, 1): " + q);
        }
        // 1. Walk every tree; add each reached sample's weight to its value bucket (the top bits of the
        //    float: monotone for values >= 0, 16 buckets per octave).
        int[] reached = s.leaves;
        double[] bucket = s.buckets;
        int minB = Integer.MAX_VALUE;
        int maxB = -1;
        for (int t = 0; t < numTrees; t++) {
            int n = roots[t];
            int f;
            while ((f = splitFeature[n]) >= 0) {
                n = x[f] <= threshold[n] ? left[n] : right[n]; // NaN: false -> right
            }
            int l = leafId[n];
            reached[t] = l;
            double w = leafWeight[l];
            int to = sampleOffsets[l + 1];
            for (int i = sampleOffsets[l]; i < to; i++) {
                bucket[Float.floatToRawIntBits(samples[i]) >>> BUCKET_SHIFT] += w;
            }
            minB = Math.min(minB, Float.floatToRawIntBits(samples[sampleOffsets[l]]) >>> BUCKET_SHIFT);
            maxB = Math.max(maxB, Float.floatToRawIntBits(samples[to - 1]) >>> BUCKET_SHIFT);
        }
        // 2. The bucket where the cumulative weight reaches the target (the last one if rounding
        //    leaves the total just short of it).
        double target = q * numTrees - EPS;
        double cum = 0;
        int b = minB;
        for (; b < maxB; b++) {
            double next = cum + bucket[b];
            if (next >= target) {
                break;
            }
            cum = next;
        }
        Arrays.fill(bucket, minB, maxB + 1, 0.0);
        // 3. Exact weighted selection among that bucket's values (each leaf's sample is sorted).
        float[] vals = s.values;
        double[] wts = s.weights;
        int m = 0;
        for (int t = 0; t < numTrees; t++) {
            int l = reached[t];
            double w = leafWeight[l];
            int to = sampleOffsets[l + 1];
            for (int i = sampleOffsets[l]; i < to; i++) {
                int bb = Float.floatToRawIntBits(samples[i]) >>> BUCKET_SHIFT;
                if (bb > b) {
                    break;
                }
                if (bb == b) {
                    vals[m] = samples[i];
                    wts[m++] = w;
                }
            }
        }
        return select(vals, wts, 0, m, target - cum);
    }

    /**
     * Smallest value in v[lo, hi) whose cumulative weight (values ascending) reaches {@code target}:
     * weighted quickselect with a three-way partition around a median-of-three pivot.
     */
    static float select(float[] v, double[] w, int lo, int hi, double target) {
        while (true) {
            if (hi - lo <= 24) {
                for (int i = lo + 1; i < hi; i++) { // insertion sort of the small rest
                    float a = v[i];
                    double b = w[i];
                    int j = i - 1;
                    while (j >= lo && v[j] > a) {
                        v[j + 1] = v[j];
                        w[j + 1] = w[j];
                        j--;
                    }
                    v[j + 1] = a;
                    w[j + 1] = b;
                }
                double cum = 0;
                for (int i = lo; i < hi; i++) {
                    cum += w[i];
                    if (cum >= target) {
                        return v[i];
                    }
                }
                return v[hi - 1];
            }
            int mid = (lo + hi) >>> 1;
            float a = v[lo];
            float b = v[mid];
            float c = v[hi - 1];
            float pivot = a < b ? (b < c ? b : Math.max(a, c)) : (a < c ? a : Math.max(b, c));
            int lt = lo;
            int i = lo;
            int gt = hi - 1;
            double wLess = 0;
            double wEqual = 0;
            while (i <= gt) {
                float x = v[i];
                if (x < pivot) {
                    wLess += w[i];
                    swap(v, w, lt++, i++);
                } else if (x > pivot) {
                    swap(v, w, i, gt--);
                } else {
                    wEqual += w[i];
                    i++;
                }
            }
            // [lo, lt) < pivot, [lt, gt] == pivot, (gt, hi) > pivot
            if (lt > lo && wLess >= target) {
                hi = lt;
            } else if (wLess + wEqual >= target || gt + 1 >= hi) {
                return pivot;
            } else {
                target -= wLess + wEqual;
                lo = gt + 1;
            }
        }
    }

    private static void swap(float[] v, double[] w, int i, int j) {
        float a = v[i];
        v[i] = v[j];
        v[j] = a;
        double b = w[i];
        w[i] = w[j];
        w[j] = b;
    }

    private static final class Scratch {
        final float[] values;
        final double[] weights;
        final double[] x;
        final int[] leaves;
        final double[] buckets = new double[BUCKETS]; // all zero between predictions

        Scratch(int merged, int features, int trees) {
            values = new float[merged];
            weights = new double[merged];
            x = new double[features];
            leaves = new int[trees];
        }
    }

    private static int[] ints(List<Integer> list) {
        int[] a = new int[list.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = list.get(i);
        }
        return a;
    }
}
