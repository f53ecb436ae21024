package io.tierroute.fitter.snapshot;

import io.tierroute.fitter.forest.ForestCalibration;
import io.tierroute.schemas.avro.QuantileForestModel;

import java.util.ArrayList;
import java.util.List;

/**
 * The validation gate's check of a candidate's quantile forest (DESIGN.md §5; the gate's class comment lists it
 * under "Snapshot level"): a forest equal to the active one passes unchecked, one trained on too few rows is held,
 * a malformed one is rejected with every defect named.
 */
final class QuantileModelCheck {

    private QuantileModelCheck() {}

    /** {@code held}: the "held: …" reason when the model is held (else null); {@code rejections}: every defect found. */
    record Outcome(String held, List<String> rejections) {}

    /**
     * A model trained on too few rows is HELD (the active model, or none, stays: too little evidence
     * is not a defect, and must not cost the other parameters their update); a malformed one REJECTS.
     */
    static Outcome check(QuantileForestModel m, QuantileForestModel activeModel, long minTrainingRows) {
        List<String> rejections = new ArrayList<>();
        if (m == null || m.equals(activeModel)) {
            return new Outcome(null, rejections);
        }
        String l = "quantileModel";
        if (m.getTrainingRows() < minTrainingRows) {
            return new Outcome("held: " + l + " kept at " + (activeModel == null ? "none (d̂ from hints or max_tokens / 2)"
                : "the active model") + "; trained on " + m.getTrainingRows() + " rows < minimum " + minTrainingRows,
                rejections);
        }
        if (m.getTreeRoots().isEmpty()) {
            rejections.add(l + ": has no trees");
        }
        int nodes = m.getNodeSplitFeature().size();
        if (m.getNodeThreshold().size() != nodes || m.getNodeLeft().size() != nodes
                || m.getNodeRight().size() != nodes || m.getNodeLeafId().size() != nodes) {
            rejections.add(l + ": node arrays differ in length");
        }
        if (m.getLeafSampleOffsets().size() != m.getLeafRows().size() + 1) {
            rejections.add(l + ": leafSampleOffsets has " + m.getLeafSampleOffsets().size()
                + " entries, expected numLeaves + 1 = " + (m.getLeafRows().size() + 1));
        }
        for (Double t : m.getNodeThreshold()) {
            if (t == null || !Double.isFinite(t)) {
                rejections.add(l + ": a split threshold is " + t + ", not a finite number");
                break;
            }
        }
        checkStructure(m, l, rejections);
        for (String problem : ForestCalibration.problems(m)) {
            rejections.add(l + ": " + problem);
        }
        for (Float s : m.getLeafSamples()) {
            if (s == null || !Float.isFinite(s) || s < 0) {
                rejections.add(l + ": a leaf sample (output tokens) is " + s + ", not a finite value >= 0");
                break;
            }
        }
        return new Outcome(null, rejections);
    }

    /**
     * The structure the selector's evaluator needs (found in review: models it refuses to load used
     * to pass): split features among the model's feature names, child, root and leaf indices in range, at least one sample per leaf and at most
     * {@code maxSamplesPerLeaf}, offsets that never go down, each leaf's sample sorted. The evaluator
     * checks the same and more (feature levels, acyclic trees) when it loads a model.
     */
    private static void checkStructure(QuantileForestModel m, String l, List<String> rejections) {
        int nodes = m.getNodeSplitFeature().size();
        int leaves = m.getLeafRows().size();
        if (m.getMaxSamplesPerLeaf() < 1) {
            rejections.add(l + ": maxSamplesPerLeaf = " + m.getMaxSamplesPerLeaf() + " < 1");
        }
        for (Integer r : m.getTreeRoots()) {
            if (r == null || r < 0 || r >= nodes) {
                rejections.add(l + ": a tree root (" + r + ") is not a node index");
                break;
            }
        }
        int n = Math.min(nodes, Math.min(m.getNodeLeft().size(), Math.min(m.getNodeRight().size(), m.getNodeLeafId().size())));
        int features = m.getFeatureNames().size();
        for (int i = 0; i < n; i++) {
            Integer f = m.getNodeSplitFeature().get(i);
            if (f != null && f >= features) {
                rejections.add(l + ": node " + i + " splits on feature " + f + ", and the model names " + features);
                break;
            }
            boolean internal = f != null && f >= 0;
            Integer left = m.getNodeLeft().get(i);
            Integer right = m.getNodeRight().get(i);
            Integer leaf = m.getNodeLeafId().get(i);
            boolean ok = internal
                    ? left != null && right != null && left >= 0 && left < nodes && right >= 0 && right < nodes
                    : f != null && f == -1 && leaf != null && leaf >= 0 && leaf < leaves;
            if (!ok) {
                rejections.add(l + ": node " + i + " has a child or leaf index out of range");
                break;
            }
        }
        List<Integer> offsets = m.getLeafSampleOffsets();
        List<Float> samples = m.getLeafSamples();
        for (int leaf = 0; leaf + 1 < offsets.size(); leaf++) {
            Integer from = offsets.get(leaf);
            Integer to = offsets.get(leaf + 1);
            if (from == null || to == null || from < 0 || to > samples.size() || to - from < 1
                    || to - from > Math.max(1, m.getMaxSamplesPerLeaf())) {
                rejections.add(l + ": leaf " + leaf + " has an invalid sample range [" + from + ", " + to + ")");
                break;
            }
            boolean sorted = true;
            for (int i = from + 1; i < to && sorted; i++) {
                Float a = samples.get(i - 1);
                Float b = samples.get(i);
                sorted = a == null || b == null || a <= b;
            }
            if (!sorted) {
                rejections.add(l + ": leaf " + leaf + "'s sample is not sorted");
                break;
            }
        }
    }
}
