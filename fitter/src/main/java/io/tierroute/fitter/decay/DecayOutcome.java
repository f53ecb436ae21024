package io.tierroute.fitter.decay;

/** Result of offering one observation to the λ fit; REJECTED_* left it unchanged. */
public enum DecayOutcome {
    ACCEPTED,
    /** t, weight or fraction NaN or infinite, or no kind. */
    REJECTED_NON_FINITE,
    /** Negative idle time. */
    REJECTED_NEGATIVE,
    /** Idle time beyond {@link DecayObservation#MAX_IDLE_SECONDS}. */
    REJECTED_TOO_LONG,
    /** Weight <= 0. */
    REJECTED_NON_POSITIVE_WEIGHT,
    /** Fraction outside 0..1. */
    REJECTED_FRACTION_OUT_OF_RANGE,
    /** A (partial) miss after zero idle time: probability 0 under e^{−λt}, would force λ = ∞. */
    REJECTED_IMPOSSIBLE
}
