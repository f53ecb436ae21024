package io.tierroute.dashboards.web;

import io.tierroute.dashboards.history.ScopeState;
import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileCoverage;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.snapshot.ModelCarrier;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The quantile forest of a scope's latest snapshot held in full: its calibration — coverage per
 * nominal quantile, measured by the fitter on rows held out of the forest's training sample
 * ({@code QuantileForestModel.calibration}) — and its shape. Entries that break the schema's rules
 * (quantile outside (0, 1), coverage outside [0, 1], negative rows) are dropped and counted, not
 * drawn. Also given: the training target's quantiles pooled over the forest's leaves (each leaf's
 * sorted samples weighted by the rows they stand for), i.e. what it predicts for a request it knows
 * nothing about.
 */
final class CalibrationView {

    static final double[] QUANTILES = {0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99};
    static final String COVERAGE_NOTE = "Coverage: the share of held-out rows (part of the training sample the "
            + "forest measured on was not fitted on) whose output length was at most the predicted quantile; a "
            + "calibrated model lies on the diagonal.";
    static final String NO_COVERAGE_NOTE = "This forest carries no calibration: it was trained before the field "
            + "existed or on too few rows to hold any out.";

    private final SnapshotHistory history;

    CalibrationView(SnapshotHistory history) {
        this.history = history;
    }

    private static String noModel(ParameterSnapshot s) {
        if (ModelCarrier.refersElsewhere(s)) { // its carrier came before this dashboard's retained history
            return "version " + s.getVersion() + " uses the quantile model of version " + s.getQuantileModelVersion()
                    + ", which this dashboard does not hold (see that version's forest summary)";
        }
        return "version " + s.getVersion() + " has no quantile model (d̂ falls back to max_tokens / 2)";
    }

    Map<String, Object> calibration(String scope) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scope", scope);
        Optional<ParameterSnapshot> s = history.latestFullSnapshot(scope);
        QuantileForestModel m = s.map(ParameterSnapshot::getQuantileModel).orElse(null);
        out.put("version", s.map(ParameterSnapshot::getVersion).orElse(null));
        // The newest snapshot held in full may be one the gate rejected: the page says so next to its figures.
        out.put("status", s.map(x -> x.getStatus().name()).orElse(null));
        out.put("activeVersion", history.scope(scope).map(ScopeState::activeVersion).orElse(null));
        out.put("servedVersion", history.scope(scope).map(ScopeState::servedVersion).orElse(null));
        out.put("present", m != null);
        if (m == null) { // the message says why; a note on a forest's calibration would speak of one that is not there
            out.put("coverage", List.of());
            out.put("message", s.isEmpty() ? "no snapshot yet" : noModel(s.get()));
            return out;
        }
        List<Map<String, Object>> coverage = new ArrayList<>();
        int invalid = 0;
        for (QuantileCoverage c : m.getCalibration()) {
            if (!(c.getQuantile() > 0 && c.getQuantile() < 1) || !(c.getCoverage() >= 0 && c.getCoverage() <= 1)
                    || c.getRows() < 0) {
                invalid++;
                continue;
            }
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("q", c.getQuantile());
            e.put("coverage", c.getCoverage());
            e.put("rows", c.getRows());
            coverage.add(e);
        }
        coverage.sort(java.util.Comparator.comparingDouble(e -> (Double) e.get("q")));
        out.put("coverage", coverage);
        out.put("invalidCoverageEntries", invalid);
        out.put("coverageNote", coverage.isEmpty() ? NO_COVERAGE_NOTE : COVERAGE_NOTE);
        out.put("modelVersion", s.map(ModelCarrier::versionOf).orElse(null)); // the record carrying the forest
        out.put("target", m.getTargetName());
        out.put("features", m.getFeatureNames());
        out.put("trainingRows", m.getTrainingRows());
        out.put("trees", m.getTreeRoots().size());
        out.put("leaves", m.getLeafRows().size());
        out.put("maxSamplesPerLeaf", m.getMaxSamplesPerLeaf());
        String malformed = leafSampleProblem(m);
        out.put("targetQuantiles", malformed == null ? targetQuantiles(m) : List.of());
        // A forest the gate rejected may be malformed: its shape is shown, its samples are not read past their end.
        out.put("targetQuantilesProblem", malformed);
        return out;
    }

    /**
     * Why the leaves' samples cannot be read (each leaf's range in {@code leafSamples} must lie within it, in order, and
     * stand for a known number of rows), or null when they can.
     */
    static String leafSampleProblem(QuantileForestModel m) {
        List<Float> samples = m.getLeafSamples();
        List<Integer> offsets = m.getLeafSampleOffsets();
        List<Integer> rows = m.getLeafRows();
        if (offsets.size() != rows.size() + 1) {
            return "leafSampleOffsets has " + offsets.size() + " entries for " + rows.size() + " leaves (needs one more)";
        }
        for (int leaf = 0; leaf < rows.size(); leaf++) {
            Integer from = offsets.get(leaf);
            Integer to = offsets.get(leaf + 1);
            if (from == null || to == null || from < 0 || to < from || to > samples.size()) {
                return "leaf " + leaf + " has the sample range [" + from + ", " + to + ") of " + samples.size()
                        + " samples";
            }
            if (rows.get(leaf) == null || rows.get(leaf) < 0) {
                return "leaf " + leaf + " stands for " + rows.get(leaf) + " rows";
            }
            for (int i = from; i < to; i++) {
                Float v = samples.get(i);
                if (v == null || !Float.isFinite(v)) {
                    return "leaf " + leaf + " has the sample " + v;
                }
            }
        }
        return null;
    }

    /** Weighted quantiles of all leaf samples; empty when the forest has none. Needs {@link #leafSampleProblem} null. */
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
            int to = offsets.get(leaf + 1);
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
