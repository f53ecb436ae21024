package io.tierroute.fitter.decay;

/**
 * What one observation of a workflow's previous prefix says about its cache lifetime T, modelled as
 * T ~ Exponential(λ), i.e. P(T > t) = e^{−λt}. The log-likelihood term of each kind, for idle time t:
 * <pre>
 *   RETURN_HIT       the step returned after t and found its prefix     log P(T > t)      = −λt
 *   STILL_CACHED_AT  prefix known held at t, nothing known after         log P(T > t)      = −λt   (right-censored)
 *   RETURN_MISS      the step returned after t and the prefix was gone  log P(T ≤ t)      = log(1 − e^{−λt})
 *   EVICTED_AT       the prefix was evicted exactly at t (KV event)     log density       = log λ − λt
 *   RETURN_FRACTION  a fraction f of the prefix blocks was still held   f·(−λt) + (1 − f)·log(1 − e^{−λt})
 * </pre>
 * (RETURN_FRACTION treats the blocks as independent, i.e. a quasi-binomial likelihood; each term is
 * multiplied by the observation's weight, e.g. its block count, for fractions.) "Returned" is the names' history: a
 * step whose decision says what its previous worker still held (after its previous step completed and some idle time
 * passed) is a RETURN_HIT or RETURN_MISS wherever it went.
 */
public enum ObservationKind {
    RETURN_HIT,
    STILL_CACHED_AT,
    RETURN_MISS,
    EVICTED_AT,
    RETURN_FRACTION
}
