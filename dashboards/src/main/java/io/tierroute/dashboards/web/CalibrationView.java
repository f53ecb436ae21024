package io.tierroute.dashboards.web;

import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the latest snapshot held in full says about its quantile forest. The schema
 * ({@code QuantileForestModel}) carries no held-out coverage per quantile, so none is invented:
 * {@code coverage} is null with a note saying so. What is there is shown instead: the forest's
 * shape and the distribution of the training target kept in its leaves (each leaf's sorted samples
 * weighted by the in-bag rows they stand for, pooled over all trees), i.e. the quantiles the forest
 * predicts for a request it knows nothing about.
 */
final class CalibrationView {

    static final double[] QUANTILES = {0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99};
    static final String COVERAGE_NOTE = "The snapshot carries no coverage per quantile: QuantileForestModel has "
            + "no held-out coverage field, and measuring it needs completions joined with decisions, which the "
            + "dashboard does not read. Shown instead: the training target's quantiles pooled over the forest's leaves.";

    private final SnapshotHistory history;

    CalibrationView(SnapshotHistory history) {
        this.history = history;
    }

    Map<String, Object> calibration(String scope) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scope", scope);
        Optional<ParameterSnapshot> s = history.latestFullSnapshot(scope);
        QuantileForestModel m = s.map(ParameterSnapshot::getQuantileModel).orElse(null);
        out.put("version", s.map(ParameterSnapshot::getVersion).orElse(null));
        out.put("present", m != null);
        out.put("coverage", null);
        out.put("coverageNote", COVERAGE_NOTE);
        if (m == null) {
            out.put("message", s.isEmpty() ? "no snapshot yet" : "version " + s.get().getVersion()
                    + " has no quantile model (d̂ falls back to max_tokens / 2)");
            return out;
        }
        out.put("target", m.getTargetName());
        out.put("features", m.getFeatureNames());
        out.put("trainingRows", m.getTrainingRows());
        out.put("trees", m.getTreeRoots().size());
        out.put("leaves", m.getLeafRows().size());
        out.put("maxSamplesPerLeaf", m.getMaxSamplesPerLeaf());
        out.put("targetQuantiles", targetQuantiles(m));
        return out;
    }

    /** Weighted quantiles of all leaf samples; empty when the forest has none. */
    static List<Map<String, Object>> targetQuantiles(QuantileForestModel m) {
        List<Float> samples = m.getLeafSamples();
        List<Integer> offsets = m.getLeafSampleOffsets();
        List<Integer> rows = m.getLeafRows();
        int n = samples.size();
        if (n == 0 || offsets.size() != rows.size() + 1) {
            return List.of();
        }
        double[] value = new double[n];
        double[] weight = new double[n];
        int k = 0;
        for (int leaf = 0; leaf < rows.size(); leaf++) {
            int from = offsets.get(leaf);
            int to = Math.min(offsets.get(leaf + 1), n);
            for (int i = from; i < to; i++) {
                value[k] = samples.get(i);
                weight[k] = (double) rows.get(leaf) / Math.max(1, to - from);
                k++;
            }
        }
        Integer[] order = new Integer[k];
        for (int i = 0; i < k; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(value[a], value[b]));
        double total = 0;
        for (int i = 0; i < k; i++) {
            total += weight[i];
        }
        List<Map<String, Object>> out = new ArrayList<>();
        if (total <= 0) {
            return out;
        }
        int j = 0;
        double cum = 0;
        for (double q : QUANTILES) {
            while (j < k - 1 && cum + weight[order[j]] < q * total) {
                cum += weight[order[j]];
                j++;
            }
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("q", q);
            e.put("value", value[order[j]]);
            out.add(e);
        }
        return out;
    }
}
