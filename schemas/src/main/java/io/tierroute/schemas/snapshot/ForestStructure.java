package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.ForestFeatureSchema;
import io.tierroute.schemas.avro.QuantileForestModel;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a {@link QuantileForestModel} is a forest the selector's evaluator can walk: feature names it knows, once
 * each; levels only for categorical features (prefix groups as distinct longs, other levels distinct and non-null);
 * node arrays of one length; internal nodes splitting on a feature with a finite threshold and two children in range;
 * leaves numbered in range, each the leaf of one node, with 1..maxSamplesPerLeaf sorted, finite, non-negative sample values and at least as many
 * rows; offsets from 0 to the sample count; and every tree a tree (no node reached twice, so no cycle and no shared
 * subtree, and every walk ends). The fitter's gate and the selector's evaluator run this one check, so that a model the
 * gate accepts is one the selectors load: with two checks, the gate's lighter one passed forests (a cycle, an unknown
 * feature) that every selector then refused. O(nodes + samples).
 */
public final class ForestStructure {

    private ForestStructure() {
    }

    /**
     * The first defect found, worded as the field and value at fault; empty for a well-formed forest. Never throws: a
     * check that failed on a layout it did not foresee is a defect too (a throw here would fail the fitting job's
     * publish at every restart).
     */
    public static Optional<String> defect(QuantileForestModel m) {
        try {
            check(m);
            return Optional.empty();
        } catch (Defect d) {
            return Optional.of(d.getMessage());
        } catch (RuntimeException e) {
            return Optional.of("malformed in a way the check did not name (" + e + ")");
        }
    }

    /** Thrown inside the check with the defect; never leaves this class. */
    private static final class Defect extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Defect(String message) {
            super(message, null, false, false);
        }
    }

    private static void check(QuantileForestModel m) {
        if (m == null) {
            throw new Defect("the model is null");
        }
        int features = checkFeatures(m);
        List<Integer> roots = required(m.getTreeRoots(), "treeRoots");
        if (roots.isEmpty()) {
            throw new Defect("treeRoots is empty");
        }
        int[] split = ints(required(m.getNodeSplitFeature(), "nodeSplitFeature"), "nodeSplitFeature");
        int nodes = split.length;
        List<Double> threshold = required(m.getNodeThreshold(), "nodeThreshold");
        int[] left = ints(required(m.getNodeLeft(), "nodeLeft"), "nodeLeft");
        int[] right = ints(required(m.getNodeRight(), "nodeRight"), "nodeRight");
        int[] leafId = ints(required(m.getNodeLeafId(), "nodeLeafId"), "nodeLeafId");
        sameLength(nodes, threshold.size(), "nodeThreshold");
        sameLength(nodes, left.length, "nodeLeft");
        sameLength(nodes, right.length, "nodeRight");
        sameLength(nodes, leafId.length, "nodeLeafId");
        int leaves = checkLeaves(m);
        boolean[] leafUsed = new boolean[leaves];
        for (int n = 0; n < nodes; n++) {
            int f = split[n];
            if (f >= 0) {
                if (f >= features) {
                    throw new Defect("nodeSplitFeature[" + n + "] = " + f + " is not a feature index (< " + features + ")");
                }
                Double t = threshold.get(n);
                if (t == null || !Double.isFinite(t)) {
                    throw new Defect("nodeThreshold[" + n + "] = " + t + " is not finite");
                }
                nodeIndex(left[n], nodes, "nodeLeft", n);
                nodeIndex(right[n], nodes, "nodeRight", n);
                if (leafId[n] != -1) {
                    throw new Defect("nodeLeafId[" + n + "] = " + leafId[n] + " on an internal node (must be -1)");
                }
            } else if (f == -1) {
                if (left[n] != -1 || right[n] != -1) {
                    throw new Defect("leaf node " + n + " has children (nodeLeft/nodeRight must be -1)");
                }
                if (leafId[n] < 0 || leafId[n] >= leaves) {
                    throw new Defect("nodeLeafId[" + n + "] = " + leafId[n] + " is not a leaf number (0.." + (leaves - 1)
                        + ")");
                }
                // one node per leaf: the evaluator sizes its buffer by Σ over trees of their largest leaf, which a
                // leaf shared by many trees would overflow
                if (leafUsed[leafId[n]]) {
                    throw new Defect("nodeLeafId[" + n + "] = " + leafId[n] + " is the leaf of another node as well");
                }
                leafUsed[leafId[n]] = true;
            } else {
                throw new Defect("nodeSplitFeature[" + n + "] = " + f + " (must be a feature index or -1)");
            }
        }
        checkTrees(ints(roots, "treeRoots"), split, left, right);
    }

    /** Known names, once each; levels only for categorical ones, well formed. Returns the number of features. */
    private static int checkFeatures(QuantileForestModel m) {
        List<String> names = required(m.getFeatureNames(), "featureNames");
        if (names.isEmpty()) {
            throw new Defect("featureNames is empty");
        }
        Map<String, List<String>> featureLevels = m.getFeatureLevels() == null ? Map.of() : m.getFeatureLevels();
        for (int f = 0; f < names.size(); f++) {
            String name = names.get(f);
            int s = ForestFeatureSchema.NAMES.indexOf(name);
            if (s < 0) {
                throw new Defect("featureNames[" + f + "] = '" + name + "' is not a known feature "
                    + ForestFeatureSchema.NAMES);
            }
            if (names.indexOf(name) != f) {
                throw new Defect("featureNames has '" + name + "' twice");
            }
            List<String> levels = featureLevels.get(name);
            if (!ForestFeatureSchema.isCategorical(s)) {
                if (levels != null) {
                    throw new Defect("featureLevels has levels for numeric feature '" + name + "'");
                }
                continue;
            }
            checkLevels(name, s, levels == null ? List.of() : levels);
        }
        for (String key : featureLevels.keySet()) {
            if (!names.contains(key)) {
                throw new Defect("featureLevels has levels for '" + key + "', which is not in featureNames");
            }
        }
        return names.size();
    }

    private static void checkLevels(String name, int feature, List<String> levels) {
        if (feature == ForestFeatureSchema.PREFIX_GROUP) {
            Set<Long> ids = new HashSet<>();
            for (int i = 0; i < levels.size(); i++) {
                long id;
                try {
                    id = Long.parseLong(levels.get(i));
                } catch (NumberFormatException | NullPointerException e) {
                    throw new Defect("featureLevels[prefixGroup][" + i + "] = '" + levels.get(i) + "' is not a long");
                }
                if (!ids.add(id)) {
                    throw new Defect("featureLevels[prefixGroup] has level " + id + " twice");
                }
            }
            return;
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < levels.size(); i++) {
            if (levels.get(i) == null || !seen.add(levels.get(i))) {
                throw new Defect("featureLevels[" + name + "][" + i + "] is null or repeated");
            }
        }
    }

    /** Offsets, rows and sample values of the leaves. Returns the number of leaves. */
    private static int checkLeaves(QuantileForestModel m) {
        int[] offsets = ints(required(m.getLeafSampleOffsets(), "leafSampleOffsets"), "leafSampleOffsets");
        if (offsets.length < 2) {
            throw new Defect("leafSampleOffsets has " + offsets.length + " entries; needs numLeaves + 1 >= 2");
        }
        int leaves = offsets.length - 1;
        List<Integer> rows = required(m.getLeafRows(), "leafRows");
        if (rows.size() != leaves) {
            throw new Defect("leafRows has " + rows.size() + " entries but leafSampleOffsets implies " + leaves
                + " leaves");
        }
        List<Float> samples = required(m.getLeafSamples(), "leafSamples");
        for (int i = 0; i < samples.size(); i++) {
            Float v = samples.get(i);
            if (v == null || !Float.isFinite(v) || v < 0) {
                throw new Defect("leafSamples[" + i + "] = " + v + " is not a finite value >= 0");
            }
        }
        int k = m.getMaxSamplesPerLeaf();
        if (k < 1) {
            throw new Defect("maxSamplesPerLeaf = " + k + " < 1");
        }
        if (offsets[0] != 0) {
            throw new Defect("leafSampleOffsets[0] = " + offsets[0] + ", must be 0");
        }
        if (offsets[leaves] != samples.size()) {
            throw new Defect("leafSampleOffsets[" + leaves + "] = " + offsets[leaves] + " but leafSamples has "
                + samples.size() + " values");
        }
        for (int l = 0; l < leaves; l++) {
            int n = offsets[l + 1] - offsets[l];
            if (offsets[l + 1] > samples.size()) {
                throw new Defect("leafSampleOffsets[" + (l + 1) + "] = " + offsets[l + 1] + " is past the "
                    + samples.size() + " values of leafSamples");
            }
            if (n < 1 || n > k) {
                throw new Defect("leaf " + l + " has " + n + " sample values; must be 1.." + k
                    + " (maxSamplesPerLeaf) and leafSampleOffsets non-decreasing");
            }
            Integer r = rows.get(l);
            if (r == null || r < n) {
                throw new Defect("leafRows[" + l + "] = " + r + " is below its " + n + " sample values");
            }
            for (int i = offsets[l] + 1; i < offsets[l + 1]; i++) {
                if (samples.get(i) < samples.get(i - 1)) {
                    throw new Defect("leaf " + l + "'s sample is not sorted at leafSamples[" + i + "]");
                }
            }
        }
        return leaves;
    }

    /** Every tree a tree: no node reached twice from any root (no cycle, no shared subtree). */
    private static void checkTrees(int[] roots, int[] split, int[] left, int[] right) {
        int nodes = split.length;
        boolean[] seen = new boolean[nodes];
        int[] stack = new int[nodes + 1];
        for (int t = 0; t < roots.length; t++) {
            nodeIndex(roots[t], nodes, "treeRoots", t);
            int top = 0;
            stack[top++] = roots[t];
            while (top > 0) {
                int n = stack[--top];
                if (seen[n]) {
                    throw new Defect("node " + n + " is reached twice (tree " + t + "): not a tree");
                }
                seen[n] = true;
                if (split[n] >= 0) {
                    stack[top++] = left[n];
                    stack[top++] = right[n];
                }
            }
        }
    }

    private static <T> T required(T v, String what) {
        if (v == null) {
            throw new Defect(what + " is null");
        }
        return v;
    }

    private static int[] ints(List<Integer> list, String what) {
        int[] a = new int[list.size()];
        for (int i = 0; i < a.length; i++) {
            Integer v = list.get(i);
            if (v == null) {
                throw new Defect(what + "[" + i + "] is null");
            }
            a[i] = v;
        }
        return a;
    }

    private static void sameLength(int nodes, int length, String what) {
        if (length != nodes) {
            throw new Defect(what + " has " + length + " entries but nodeSplitFeature has " + nodes);
        }
    }

    private static void nodeIndex(int index, int nodes, String what, int at) {
        if (index < 0 || index >= nodes) {
            throw new Defect(what + "[" + at + "] = " + index + " is not a node index (0.." + (nodes - 1) + ")");
        }
    }
}
