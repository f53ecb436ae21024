package io.tierroute.fitter.forest;

import io.tierroute.schemas.avro.QuantileForestModel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Naive recomputation of the record's prediction straight from the schema doc: walk the boxed lists,
 * collect every reached sample with weight 1/(T·k_l), sort, accumulate. Independent of Smile and of
 * {@link QuantileForest}'s own predictor.
 */
final class ReferenceForest {

    private ReferenceForest() {}

    static double predict(QuantileForestModel m, double[] x, double q) {
        int trees = m.getTreeRoots().size();
        List<double[]> pairs = new ArrayList<>(); // {value, weight}
        for (int root : m.getTreeRoots()) {
            int n = root;
            while (m.getNodeSplitFeature().get(n) >= 0) {
                double v = x[m.getNodeSplitFeature().get(n)];
                n = v <= m.getNodeThreshold().get(n) ? m.getNodeLeft().get(n) : m.getNodeRight().get(n);
            }
            int leaf = m.getNodeLeafId().get(n);
            int from = m.getLeafSampleOffsets().get(leaf);
            int to = m.getLeafSampleOffsets().get(leaf + 1);
            for (int i = from; i < to; i++) {
                pairs.add(new double[] {m.getLeafSamples().get(i), 1.0 / ((double) trees * (to - from))});
            }
        }
        pairs.sort(Comparator.comparingDouble(p -> p[0]));
        double cum = 0;
        for (double[] p : pairs) {
            cum += p[1];
            if (cum >= q - QuantileForest.EPS / trees) {
                return p[0];
            }
        }
        return pairs.get(pairs.size() - 1)[0];
    }
}
