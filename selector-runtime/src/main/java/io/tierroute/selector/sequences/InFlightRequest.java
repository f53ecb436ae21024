package io.tierroute.selector.sequences;

/**
 * One routed request while it runs. Mutable, and guarded by the lock of its worker's
 * {@link WorkerLoad}: only that class changes it.
 */
final class InFlightRequest {

    final String id;
    final int worker;
    final int promptTokens;
    final int predictedOutputTokens;
    final long admittedNanos;
    /**
     * Prompt tokens the worker must compute for it ({@code p_eff} at routing: ISL − hit): its share of
     * the worker's queued prefill work until its first token.
     */
    final long prefillTokens;
    /** Prompt tokens loaded from each slower tier (per tier ordinal, H_t at routing), or null: its link work. */
    final long[] tierTokens;
    /** Its prompt's prefix marks, or none: while it runs, the prompt KV it may share here ({@link SharedPrefixKv}). */
    final PrefixMarks prefixMarks;

    int generatedTokens;
    /**
     * The largest output count the request's events reported (their {@code tokens}; 0 when none did): unlike
     * {@link #generatedTokens}, a first token without a count does not make it 1. Its workflow's next step's feature.
     */
    int reportedOutputTokens;
    boolean waiting = true;
    long lastUpdateNanos;

    InFlightRequest(String id, int worker, int promptTokens, int predictedOutputTokens, long prefillTokens,
                    long[] tierTokens, long admittedNanos) {
        this(id, worker, promptTokens, predictedOutputTokens, prefillTokens, tierTokens, PrefixMarks.NONE, admittedNanos);
    }

    InFlightRequest(String id, int worker, int promptTokens, int predictedOutputTokens, long prefillTokens,
                    long[] tierTokens, PrefixMarks marks, long admittedNanos) {
        if (marks.tokens() > promptTokens) { // the tracker keeps them within the prompt (PrefixMarks.within)
            throw new IllegalArgumentException("prefix marks of " + id + " cover " + marks.tokens()
                    + " tokens, more than its prompt of " + promptTokens);
        }
        this.id = id;
        this.prefixMarks = marks;
        this.prefillTokens = Math.max(0, Math.min(prefillTokens, promptTokens));
        this.tierTokens = tierTokens == null ? null : clampedTierTokens(tierTokens, promptTokens);
        this.worker = worker;
        this.promptTokens = promptTokens;
        this.predictedOutputTokens = predictedOutputTokens;
        this.admittedNanos = admittedNanos;
        this.lastUpdateNanos = admittedNanos;
    }

    /**
     * A copy with each count within {@code [0, promptTokens]}, as {@link #prefillTokens} is: the worker's queued tier
     * tokens sum these into the cost model's link price, where one absurd count would overflow (callers check too).
     */
    private static long[] clampedTierTokens(long[] tierTokens, int promptTokens) {
        long[] out = new long[tierTokens.length];
        for (int t = 0; t < out.length; t++) {
            out[t] = Math.max(0, Math.min(tierTokens[t], promptTokens));
        }
        return out;
    }

    /** Current context {@code ctx(r)}: prompt plus tokens generated so far. */
    long contextTokens() {
        return (long) promptTokens + generatedTokens;
    }

    /**
     * The KV it adds to its worker's count by itself: its whole context while it waits (nothing shared yet), and
     * while it runs its context beyond its prefix marks, whose granules {@link SharedPrefixKv} counts once per worker.
     */
    long ownKvTokens() {
        return waiting ? contextTokens() : contextTokens() - prefixMarks.tokens();
    }

    /**
     * Predicted remaining output {@code d̂(r)}: the prediction less the first token, and held there while the request
     * decodes. Progress ({@code tokens} events) grows the request's context, so its KV and its share of the quadratic
     * count what it holds, but does not count {@code d̂} down: a request's output length is all but unpredictable
     * (Mooncake: R² 0.005), and over ten seeds of the full routing table the countdown {@code d̂ − g} and the mean
     * residual life of the prediction's error both routed worse than holding (fleet-sim/experiments/ROUNDS.md,
     * "Decode-progress round"). At least one token: a request that outlived its prediction still decodes.
     */
    long remainingTokens() {
        return Math.max(1, predictedOutputTokens - Math.min(generatedTokens, 1));
    }

    /** {@code 2·[ctx·d̂ + d̂²/2]}: this request's share of the decode cost's quadratic term, doubled. */
    long decodeQuadraticTwice() {
        long d = remainingTokens();
        return 2 * contextTokens() * d + d * d;
    }
}
