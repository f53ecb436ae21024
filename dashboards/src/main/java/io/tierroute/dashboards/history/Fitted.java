package io.tierroute.dashboards.history;

import io.tierroute.schemas.avro.FittedValue;

/**
 * One fitted value with its evidence, copied out of the Avro record (a few dozen bytes), so the
 * history keeps it for every version without holding the snapshot.
 *
 * @param value         the parameter value (unit: see {@link ParameterNames#unit})
 * @param samples       observations it was fitted on (0 for a default)
 * @param quality       quality figure, meaning given by {@code qualityKind}
 * @param qualityKind   R2, STD_ERROR, PINBALL_LOSS or NONE
 * @param stdError      standard error, or null
 * @param windowStartMs event-time window start, ms since epoch
 * @param windowEndMs   event-time window end (exclusive), ms since epoch
 */
public record Fitted(double value, long samples, double quality, String qualityKind, Double stdError,
                     long windowStartMs, long windowEndMs) {

    static Fitted of(FittedValue v) {
        return new Fitted(v.getValue(), v.getSamples(), v.getQuality(), v.getQualityKind().name(), v.getStdError(),
                v.getWindowStartMs(), v.getWindowEndMs());
    }
}
