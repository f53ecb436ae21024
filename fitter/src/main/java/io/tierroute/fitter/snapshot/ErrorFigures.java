package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.snapshot.SnapshotParameter;

/**
 * A fitted value's error figure as the {@link ValidationGate} reads it: the standard error when the value carries one,
 * else its quality when that is a STD_ERROR figure (e.g. the spread of BW_t's top bucket maxima), and that figure
 * relative to the value's size. The gate's hold for imprecision, its "how far apart" test and its overwhelming evidence
 * for a jump all measure with these.
 */
final class ErrorFigures {
    private ErrorFigures() {
    }

    /**
     * SE / max(|value|, negligible); the error figure is the SE when present, else the quality when its
     * kind is STD_ERROR; NaN when there is none. +∞ SE gives +∞.
     */
    static double relativeError(SnapshotParameter p, FittedValue v) {
        return relativeError(v, p.negligible());
    }

    /** As {@link #relativeError(SnapshotParameter, FittedValue)} with another floor (a ρ on a faster reference). */
    static double relativeError(FittedValue v, double negligible) {
        return errorFigure(v) / Math.max(Math.abs(v.getValue()), negligible);
    }

    /** The SE when present, else the quality when its kind is STD_ERROR; NaN when there is none. */
    static double errorFigure(FittedValue v) {
        if (v.getStdError() != null) {
            return v.getStdError();
        }
        return v.getQualityKind() == QualityKind.STD_ERROR ? v.getQuality() : Double.NaN;
    }
}
