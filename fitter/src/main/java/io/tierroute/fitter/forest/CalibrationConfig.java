package io.tierroute.fitter.forest;

import java.util.List;

/**
 * How {@link QuantileForestTrainer} measures a forest's calibration (see {@link ForestCalibration}).
 * {@link #defaults()}: hold out 20 % of the rows (at most 5 000, at least 20, else no calibration) and
 * report coverage at q = 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99.
 *
 * @param heldOutFraction share of the training rows held out, in (0, 1); 0 turns calibration off
 * @param minHeldOutRows  fewer held-out rows than this: no calibration (an empty list) (≥ 1)
 * @param maxHeldOutRows  cap on held-out rows, which bounds the extra prediction work (≥ minHeldOutRows)
 * @param quantiles       nominal quantiles, strictly ascending, each in (0, 1)
 */
public record CalibrationConfig(double heldOutFraction, int minHeldOutRows, int maxHeldOutRows,
                                List<Double> quantiles) {

    public CalibrationConfig {
        if (!(heldOutFraction >= 0 && heldOutFraction < 1)) {
            throw new IllegalArgumentException("CalibrationConfig: heldOutFraction must be in [0, 1): " + heldOutFraction);
        }
        if (minHeldOutRows < 1 || maxHeldOutRows < minHeldOutRows) {
            throw new IllegalArgumentException("CalibrationConfig: need 1 <= minHeldOutRows <= maxHeldOutRows, got "
                + minHeldOutRows + ", " + maxHeldOutRows);
        }
        quantiles = List.copyOf(quantiles);
        double prev = 0;
        for (double q : quantiles) {
            if (!(q > prev && q < 1)) {
                throw new IllegalArgumentException("CalibrationConfig: quantiles must be strictly ascending in (0, 1): "
                    + quantiles);
            }
            prev = q;
        }
    }

    public static CalibrationConfig defaults() {
        return new CalibrationConfig(0.2, 20, 5_000, List.of(0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99));
    }

    /** No calibration: the trainer fits once and the record's calibration is empty. */
    public static CalibrationConfig off() {
        return new CalibrationConfig(0, 1, 1, List.of());
    }

    /** Held-out rows for a sample of {@code n} rows; 0 when calibration is off or the sample too small. */
    int heldOutRows(int n) {
        if (heldOutFraction == 0 || quantiles.isEmpty()) {
            return 0;
        }
        int h = (int) Math.min(maxHeldOutRows, Math.round(n * heldOutFraction));
        return h < minHeldOutRows || n - h < 2 ? 0 : h;
    }
}
