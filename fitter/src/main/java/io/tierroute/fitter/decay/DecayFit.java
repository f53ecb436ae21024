package io.tierroute.fitter.decay;

import io.tierroute.fitter.Estimate;

/**
 * Immutable result of the λ fit.
 *
 * @param lambda λ, 1/s: value, standard error 1/sqrt(observed Fisher information) (+Infinity when the
 *     information is 0), sample count, quality = the standard error (STD_ERROR), event-time window
 * @param atLowerBound the MLE lies at lambdaMin (e.g. no miss and no eviction seen)
 * @param atUpperBound the MLE lies at lambdaMax (e.g. only misses)
 * @param iterations Newton/bisection iterations used
 * @param events total weight of exact evictions (EVICTED_AT)
 * @param exposureSeconds Σ w·t of the survival terms (hits, censored, exact, held fractions)
 * @param missWeight total weight of misses (including the missing part of fractions)
 */
public record DecayFit(Estimate lambda, boolean atLowerBound, boolean atUpperBound, int iterations,
        double events, double exposureSeconds, double missWeight) {
}
