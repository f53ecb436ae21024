package io.tierroute.fitter.forest;

import io.tierroute.schemas.ForestFeatureSchema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The predictors and their encoding into a feature vector x (the {@code featureNames} /
 * {@code featureLevels} convention of the Avro {@code QuantileForestModel}). Numeric predictors are
 * their value, NaN when unknown. A categorical predictor is the index of its value in the level list
 * ({@code featureLevels[name]}), NaN when unknown or not a kept level. Levels are the values seen in
 * ≥ {@code minLevelRows} training rows (at most {@code maxLevels}, most frequent first), then ordered by
 * their mean target ascending, so a threshold split on the index separates low-output from
 * high-output levels (the classic optimal ordering of a categorical predictor for a squared-error
 * split). The prefix-group id is categorical with its decimal string as the level.
 *
 * <p>Immutable; the level tables are fitted once from the training rows.
 */
public final class ForestFeatures {

    /** Feature names in vector order (the shared vocabulary in {@link ForestFeatureSchema}). */
    public static final List<String> NAMES = ForestFeatureSchema.NAMES;

    public static final int ISL = ForestFeatureSchema.ISL;
    public static final int MODEL = ForestFeatureSchema.MODEL;
    public static final int LORA = ForestFeatureSchema.LORA;
    public static final int STEP = ForestFeatureSchema.STEP;
    public static final int TOOL = ForestFeatureSchema.TOOL;
    public static final int MAX_TOKENS = ForestFeatureSchema.MAX_TOKENS;
    public static final int HINT = ForestFeatureSchema.HINT;
    public static final int PREFIX_GROUP = ForestFeatureSchema.PREFIX_GROUP;
    public static final int PREVIOUS_OUTPUT = ForestFeatureSchema.PREVIOUS_OUTPUT;

    /** Indices of the categorical predictors. */
    static final int[] CATEGORICAL = java.util.stream.IntStream.range(0, NAMES.size())
        .filter(ForestFeatureSchema::isCategorical).toArray();

    /** Target name in the model record. */
    public static final String TARGET = ForestFeatureSchema.TARGET;

    private final Map<String, List<String>> levels;          // feature name -> levels, index order
    private final List<Map<String, Integer>> index;          // per feature (null for numeric)

    private ForestFeatures(Map<String, List<String>> levels) {
        this.levels = Collections.unmodifiableMap(levels);
        List<Map<String, Integer>> idx = new ArrayList<>();
        for (int f = 0; f < NAMES.size(); f++) {
            List<String> lv = levels.get(NAMES.get(f));
            if (lv == null) {
                idx.add(null);
            } else {
                Map<String, Integer> m = new HashMap<>();
                for (int i = 0; i < lv.size(); i++) {
                    m.put(lv.get(i), i);
                }
                idx.add(m);
            }
        }
        this.index = idx;
    }

    /** Fits the level tables of the categorical predictors on {@code rows}. */
    public static ForestFeatures fit(List<OutputRow> rows, int maxLevels, int minLevelRows) {
        Map<String, List<String>> levels = new LinkedHashMap<>();
        for (int f : CATEGORICAL) {
            Map<String, long[]> stats = new HashMap<>(); // value -> {count, sum of targets}
            for (OutputRow r : rows) {
                String v = categoricalValue(r, f);
                if (v != null) {
                    long[] s = stats.computeIfAbsent(v, k -> new long[2]);
                    s[0]++;
                    s[1] += r.outputTokens();
                }
            }
            List<Map.Entry<String, long[]>> kept = new ArrayList<>();
            for (Map.Entry<String, long[]> e : stats.entrySet()) {
                if (e.getValue()[0] >= minLevelRows) {
                    kept.add(e);
                }
            }
            kept.sort((a, b) -> a.getValue()[0] != b.getValue()[0]
                ? Long.compare(b.getValue()[0], a.getValue()[0]) : a.getKey().compareTo(b.getKey()));
            if (kept.size() > maxLevels) {
                kept = new ArrayList<>(kept.subList(0, maxLevels));
            }
            kept.sort((a, b) -> {
                int c = Double.compare((double) a.getValue()[1] / a.getValue()[0],
                    (double) b.getValue()[1] / b.getValue()[0]);
                return c != 0 ? c : a.getKey().compareTo(b.getKey());
            });
            List<String> lv = new ArrayList<>();
            for (Map.Entry<String, long[]> e : kept) {
                lv.add(e.getKey());
            }
            levels.put(NAMES.get(f), List.copyOf(lv));
        }
        return new ForestFeatures(levels);
    }

    /** featureLevels of the model record: every categorical predictor, its levels in index order. */
    public Map<String, List<String>> levels() {
        return levels;
    }

    /** The feature vector of {@code row}; NaN = unknown. */
    public double[] encode(OutputRow r) {
        double[] x = new double[NAMES.size()];
        x[ISL] = num(r.inputTokens());
        x[STEP] = num(r.stepIndex());
        x[MAX_TOKENS] = num(r.maxTokens());
        // Never known where the forest is asked: a request with a hint uses it (d̂'s order), so the selector asks only
        // without one, with NaN. Learned from, a split on it sent those NaN requests among the large-hint rows (NaN
        // goes right) and biased d̂ upward; left unknown here, no tree splits on it. The name stays in the vector: the
        // record's layout is the selector's too (ForestFeatureSchema).
        x[HINT] = Double.NaN;
        x[PREVIOUS_OUTPUT] = num(r.previousStepOutputTokens());
        for (int f : CATEGORICAL) {
            String v = categoricalValue(r, f);
            Integer i = v == null ? null : index.get(f).get(v);
            x[f] = i == null ? Double.NaN : i;
        }
        return x;
    }

    static String categoricalValue(OutputRow r, int f) {
        return switch (f) {
            case MODEL -> r.model();
            case LORA -> r.lora();
            case TOOL -> r.expectedTool();
            case PREFIX_GROUP -> r.prefixGroupId() == null ? null : Long.toString(r.prefixGroupId());
            default -> throw new IllegalArgumentException("not categorical: " + f);
        };
    }

    private static double num(Integer v) {
        return v == null ? Double.NaN : v;
    }
}
