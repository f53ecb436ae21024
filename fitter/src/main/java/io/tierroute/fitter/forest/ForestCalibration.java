package io.tierroute.fitter.forest;

import io.tierroute.schemas.avro.QuantileCoverage;
import io.tierroute.schemas.avro.QuantileForestModel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A quantile forest's calibration: for each nominal quantile q, the share of held-out rows whose
 * realised output length is at most the forest's predicted q-quantile (a calibrated forest covers
 * about q). Also the check of a record's {@code calibration} field that the validation gate applies.
 */
public final class ForestCalibration {

    /** Mixed into the config seed so the held-out draw does not reuse the tree seeds' stream. */
    private static final long HOLD_OUT_SALT = 0x5DEECE66DL;

    private ForestCalibration() {}

    /**
     * Which of {@code n} rows are held out: {@code h} indices drawn uniformly without replacement
     * (a partial Fisher–Yates shuffle), reproducible from {@code seed}.
     */
    static boolean[] heldOutMask(int n, int h, long seed) {
        if (h < 0 || h > n) {
            throw new IllegalArgumentException("cannot hold out " + h + " of " + n + " rows");
        }
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) {
            idx[i] = i;
        }
        SplittableRandom r = new SplittableRandom(seed ^ HOLD_OUT_SALT);
        boolean[] held = new boolean[n];
        for (int i = 0; i < h; i++) {
            int j = i + r.nextInt(n - i);
            int t = idx[i];
            idx[i] = idx[j];
            idx[j] = t;
            held[idx[i]] = true;
        }
        return held;
    }

    /** Coverage of {@code forest} at each of {@code quantiles} (ascending) over {@code rows}. */
    static List<QuantileCoverage> measure(QuantileForest forest, List<OutputRow> rows, List<Double> quantiles) {
        double[] qs = quantiles.stream().mapToDouble(Double::doubleValue).toArray();
        long[] covered = new long[qs.length];
        for (OutputRow row : rows) {
            double[] p = forest.predict(forest.features().encode(row), qs);
            for (int i = 0; i < qs.length; i++) {
                if (row.outputTokens() <= p[i]) {
                    covered[i]++;
                }
            }
        }
        List<QuantileCoverage> out = new ArrayList<>(qs.length);
        for (int i = 0; i < qs.length; i++) {
            out.add(new QuantileCoverage(qs[i], rows.isEmpty() ? 0.0 : (double) covered[i] / rows.size(),
                (long) rows.size()));
        }
        return out;
    }

    /**
     * What is wrong with {@code m.calibration} (empty = nothing): every quantile finite in (0, 1) and
     * strictly ascending, every coverage in [0, 1], every row count ≥ 0.
     */
    public static List<String> problems(QuantileForestModel m) {
        List<String> out = new ArrayList<>();
        double prev = 0;
        for (QuantileCoverage c : m.getCalibration()) {
            double q = c.getQuantile();
            if (!(q > 0 && q < 1)) {
                out.add("calibration quantile " + q + " is not in (0, 1)");
            } else if (!(q > prev)) {
                out.add("calibration quantiles are not strictly ascending (" + q + " after " + prev + ")");
            }
            if (!(c.getCoverage() >= 0 && c.getCoverage() <= 1)) {
                out.add("calibration coverage at q=" + q + " is " + c.getCoverage() + ", not in [0, 1]");
            }
            if (c.getRows() < 0) {
                out.add("calibration rows at q=" + q + " is " + c.getRows() + " < 0");
            }
            prev = Double.isFinite(q) ? Math.max(prev, q) : prev;
        }
        return out;
    }
}
