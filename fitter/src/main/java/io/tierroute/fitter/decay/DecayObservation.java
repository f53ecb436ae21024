package io.tierroute.fitter.decay;

/**
 * One observation for the λ fit.
 *
 * @param kind what was observed (see {@link ObservationKind})
 * @param idleSeconds t: idle time since the previous step finished (or the exact lifetime for
 *     EVICTED_AT), seconds, 0..{@link #MAX_IDLE_SECONDS}
 * @param fraction fraction of the previous context still held, 0..1 (only read for RETURN_FRACTION)
 * @param weight weight of the observation (> 0; 1 for a single observation, the block count for a
 *     fraction if blocks are to count individually)
 * @param eventTimeMs event time, ms since epoch
 */
public record DecayObservation(ObservationKind kind, double idleSeconds, double fraction, double weight,
        long eventTimeMs) {
    /**
     * Longest idle time accepted, seconds (7 days): far beyond any KV cache's residency, so a longer one says nothing
     * about λ but, as a hit, would add its whole length to the exposure (Long.MAX_VALUE ms ≈ 9e15 s held λ at its
     * lower bound for good). The streaming job's λ fit refuses a longer one and counts it
     * ({@code decayObservationsRefused}); the decision that carried it still feeds the other fits.
     */
    public static final double MAX_IDLE_SECONDS = 7 * 24 * 3600.0;

    /**
     * The share of a step's prompt its workflow's previous worker must hold for the previous context to count as still
     * there (a RETURN_HIT). An agent's next step is its previous context plus a tool result, most of the prompt; "any
     * token held" counted a shared system prompt or tool catalog that outlived the context as a hit and biased λ low
     * (1/λ 4× too long with half the misses showing a shared prefix, by a review's simulation).
     */
    public static final double CONTEXT_HELD_SHARE = 0.5;

    /** Whether {@code tokensHeld} of a {@code promptTokens}-token prompt is the workflow's context (any, without a length). */
    public static boolean contextHeld(long tokensHeld, int promptTokens) {
        return promptTokens > 0 ? tokensHeld >= CONTEXT_HELD_SHARE * promptTokens : tokensHeld > 0;
    }

    /** A hit or a miss after {@code idleSeconds}, by {@link #contextHeld}. */
    public static DecayObservation held(double idleSeconds, long tokensHeld, int promptTokens, long eventTimeMs) {
        return contextHeld(tokensHeld, promptTokens) ? hit(idleSeconds, eventTimeMs) : miss(idleSeconds, eventTimeMs);
    }

    public static DecayObservation hit(double idleSeconds, long eventTimeMs) {
        return new DecayObservation(ObservationKind.RETURN_HIT, idleSeconds, 1, 1, eventTimeMs);
    }

    public static DecayObservation miss(double idleSeconds, long eventTimeMs) {
        return new DecayObservation(ObservationKind.RETURN_MISS, idleSeconds, 0, 1, eventTimeMs);
    }

    public static DecayObservation stillCachedAt(double seconds, long eventTimeMs) {
        return new DecayObservation(ObservationKind.STILL_CACHED_AT, seconds, 1, 1, eventTimeMs);
    }

    public static DecayObservation evictedAt(double lifetimeSeconds, long eventTimeMs) {
        return new DecayObservation(ObservationKind.EVICTED_AT, lifetimeSeconds, 0, 1, eventTimeMs);
    }

    public static DecayObservation fraction(double idleSeconds, double fraction, double blocks, long eventTimeMs) {
        return new DecayObservation(ObservationKind.RETURN_FRACTION, idleSeconds, fraction, blocks, eventTimeMs);
    }

    /** Why this observation cannot be used, or ACCEPTED. */
    public DecayOutcome check() {
        if (kind == null) {
            return DecayOutcome.REJECTED_NON_FINITE;
        }
        if (!Double.isFinite(idleSeconds) || !Double.isFinite(weight) || !Double.isFinite(fraction)) {
            return DecayOutcome.REJECTED_NON_FINITE;
        }
        if (idleSeconds < 0) {
            return DecayOutcome.REJECTED_NEGATIVE;
        }
        if (idleSeconds > MAX_IDLE_SECONDS) {
            return DecayOutcome.REJECTED_TOO_LONG;
        }
        if (!(weight > 0)) {
            return DecayOutcome.REJECTED_NON_POSITIVE_WEIGHT;
        }
        if (kind == ObservationKind.RETURN_FRACTION && (fraction < 0 || fraction > 1)) {
            return DecayOutcome.REJECTED_FRACTION_OUT_OF_RANGE;
        }
        boolean someMissing = kind == ObservationKind.RETURN_MISS
            || (kind == ObservationKind.RETURN_FRACTION && fraction < 1);
        if (someMissing && idleSeconds == 0) {
            return DecayOutcome.REJECTED_IMPOSSIBLE;
        }
        return DecayOutcome.ACCEPTED;
    }
}
