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
     * A value not fitted in this snapshot (carried over from the active snapshot or a default):
     * samples 0, quality NONE / 0, no standard error, window [0, 0).
     */
    public static FittedValue carried(double value) {
        return FittedValue.newBuilder()
            .setValue(value)
            .setSamples(0)
            .setQuality(0)
            .setQualityKind(QualityKind.NONE)
            .setStdError(null)
            .setWindowStartMs(0)
            .setWindowEndMs(0)
            .build();
    }
}
