package io.tierroute.fitter;

/**
 * What {@link Estimate#quality()} measures; mirrors the Avro enum {@code io.tierroute.schemas.avro.QualityKind}
 * symbol for symbol, so the mapping is by name.
 */
public enum QualityKind {
    /** Coefficient of determination of the regression the value came from, 0..1, higher is better. */
    R2,
    /** Standard error of the value, in the value's own unit, lower is better. */
    STD_ERROR,
    /** Mean pinball loss on held-out rows (quantile models; not produced by this module yet). */
    PINBALL_LOSS,
    /** Not fitted: a default or configured value; quality is then 0. */
    NONE
}
