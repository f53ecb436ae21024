package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.avro.FittedValue;

/**
 * Where a snapshot's {@link FittedValue} came from, read off its evidence (no schema field of its own):
 * <ul>
 *   <li><b>fitted in this version</b>: samples &gt; 0;</li>
 *   <li><b>carried fit</b>: samples 0 and the window of the earlier fit it was carried from (windowEndMs &gt; 0:
 *       a fitted window ends one ms after its last sample);</li>
 *   <li><b>never fitted</b>: samples 0 and window [0, 0), a DESIGN.md default or a configured value (the
 *       schema's "0 for a default value").</li>
 * </ul>
 * The fitter writes values this way ({@code FittedValues.carried}); the selector's snapshot converter reads it
 * to leave a worker's configured BW_t in force rather than apply a default in its place.
 */
public final class FittedProvenance {
    private FittedProvenance() {
    }

    /** A default that no snapshot ever fitted: samples 0 and window [0, 0). */
    public static boolean neverFitted(FittedValue v) {
        return v.getSamples() == 0 && v.getWindowStartMs() == 0 && v.getWindowEndMs() == 0;
    }
}
