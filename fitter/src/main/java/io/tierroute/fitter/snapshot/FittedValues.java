package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.AvroTrust;
import io.tierroute.fitter.Estimate;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.QualityKind;

/** Conversions between the fitter's {@link Estimate} and the Avro {@link FittedValue} (field by field). */
public final class FittedValues {
    static {
        // Avro 1.12.2 refuses to deep-copy (newBuilder(other)) generated enums unless their package is trusted.
        AvroTrust.install();
    }

    private FittedValues() {
    }

    /** Estimate → FittedValue: an empty standard error becomes null, +Infinity is kept. */
    public static FittedValue of(Estimate e) {
        return FittedValue.newBuilder()
            .setValue(e.value())
            .setSamples(e.samples())
            .setQuality(e.quality())
            .setQualityKind(QualityKind.valueOf(e.qualityKind().name()))
            .setStdError(e.stdError().isPresent() ? e.stdError().getAsDouble() : null)
            .setWindowStartMs(e.windowStartMs())
            .setWindowEndMs(e.windowEndMs())
            .build();
    }

    /**
     * A default that was never fitted (DESIGN.md §3, or a configured BW_t): samples 0, quality NONE / 0,
     * no standard error, window [0, 0) — the schema's mark of a default value.
     */
    public static FittedValue carried(double value) {
        return carried(value, 0, 0);
    }

    /**
     * {@code from}'s value carried into a snapshot that did not fit it (inherited from the active snapshot,
     * or held there by the gate): samples 0 ("not fitted in this version"), quality NONE, no standard error,
     * and {@code from}'s window, so a value some earlier snapshot fitted keeps the window it was fitted on and
     * stays distinguishable from a default, whose window is [0, 0)
     * ({@link io.tierroute.schemas.snapshot.FittedProvenance}). Carrying a default gives a default.
     */
    public static FittedValue carried(FittedValue from) {
        return carried(from.getValue(), from.getWindowStartMs(), from.getWindowEndMs());
    }

    /**
     * A ρ measured against one bandwidth put on another: {@code from}'s value times {@code factor} (BW_old / BW_new),
     * clamped to [0, 1], its standard error (and a STD_ERROR quality) times the factor; the rest as in {@code from}.
     * A new value: {@code from} is not changed.
     */
    public static FittedValue rhoScaled(FittedValue from, double factor) {
        FittedValue v = FittedValue.newBuilder(from).build();
        v.setValue(Math.min(1, v.getValue() * factor));
        if (v.getStdError() != null) {
            v.setStdError(v.getStdError() * factor);
        }
        if (v.getQualityKind() == QualityKind.STD_ERROR) {
            v.setQuality(v.getQuality() * factor);
        }
        return v;
    }

    private static FittedValue carried(double value, long windowStartMs, long windowEndMs) {
        return FittedValue.newBuilder()
            .setValue(value)
            .setSamples(0)
            .setQuality(0)
            .setQualityKind(QualityKind.NONE)
            .setStdError(null)
            .setWindowStartMs(windowStartMs)
            .setWindowEndMs(windowEndMs)
            .build();
    }
}
