package io.tierroute.fitter.snapshot;

/**
 * Thresholds of the {@link ValidationGate}. Physical bounds are not here: they are fixed per parameter
 * in {@link io.tierroute.schemas.snapshot.SnapshotParameter}.
 *
 * @param minSamples minimum observations behind a fitted scalar value (α's, Q_slack: rows of the
 *     latency regression; λ: idle-time observations). A fitted value (samples ≥ 1) below it REJECTS.
 *     Default 200 (the regression's burn-in is 64 rows; 200 rows give roughly ±10 % on a well-excited α).
 * @param minBandwidthSamples minimum link samples behind a tier's BW_t (summed over links); below it
 *     REJECTS. Default 30 (three 10-s buckets' worth at 1 Hz telemetry).
 * @param minRhoSamples minimum samples behind one ρ_t(w); below it that entry is HELD (the active
 *     snapshot's entry for the pair, or none = 0), because a new worker must not block a snapshot.
 *     Default 3.
 * @param minR2 minimum R² of the regression a value with quality kind R2 came from (α's, Q_slack);
 *     below it REJECTS (the whole regression does not explain latency). Default 0.3.
 * @param holdRelativeStdError a value whose relative error SE / max(|value|, negligible) exceeds this
 *     is HELD at the active value (DESIGN.md §5 identifiability); +∞ SE ("no information") always holds.
 *     The error figure is the standard error when present, else the quality figure when its kind is
 *     STD_ERROR (e.g. the spread of the top bucket maxima of BW_t). Default 0.5. Only while the data agree
 *     with the value in force: see holdWithinStdErrors.
 * @param holdWithinStdErrors an imprecise value (beyond holdRelativeStdError) is held only while the value in force
 *     lies within this many error figures of it: the data cannot tell the two apart. Farther away the data contradict
 *     the value in force, which is then no safe value to keep (α_d's default of 50 µs/token where the fit said
 *     0.39 ± 18.4 lay 2.7 standard errors out and was held for good: fleet-sim/experiments/ROUNDS.md, "Gate round"),
 *     and the fit is checked as a precise one would be (bounds, samples, R², jump); only if one of those would
 *     reject it is it held after all. With every value ≥ 0, an imprecise fit (SE &gt; holdRelativeStdError·fit) is
 *     that far from the value in force only below it: the rule lowers values the data show too high (a near-zero
 *     coefficient's default), it never raises one. A BW_t never fitted is a placeholder (the selector applies each
 *     worker's configured link), not a value in force. +∞ holds every imprecise value. Default 2.
 * @param maxJumpFactor largest allowed ratio max(|new|, negligible) / max(|active|, negligible) (or its
 *     inverse) without overwhelming evidence; larger REJECTS. Not applied to ρ nor to the first snapshot
 *     (no active one). Default 4.
 * @param overwhelmingSamples samples from which the evidence for a jump can be overwhelming. Default
 *     20 000.
 * @param overwhelmingRelativeStdError a jump is accepted when samples ≥ overwhelmingSamples and the
 *     relative error ≤ this (a value without any error figure, e.g. Q_slack, needs only the samples).
 *     Default 0.02.
 * @param minQuantileTrainingRows minimum training rows of a new quantile forest (one that differs from
 *     the active snapshot's); below it the forest is HELD (the active one stays). Default 1 000.
 */
public record GateConfig(
        long minSamples,
        long minBandwidthSamples,
        long minRhoSamples,
        double minR2,
        double holdRelativeStdError,
        double holdWithinStdErrors,
        double maxJumpFactor,
        long overwhelmingSamples,
        double overwhelmingRelativeStdError,
        long minQuantileTrainingRows) {

    public static final GateConfig DEFAULTS = new GateConfig(200, 30, 3, 0.3, 0.5, 2.0, 4.0, 20_000, 0.02, 1_000);

    public GateConfig {
        if (minSamples < 1 || minBandwidthSamples < 1 || minRhoSamples < 1 || overwhelmingSamples < 1
                || minQuantileTrainingRows < 0) {
            throw new IllegalArgumentException("sample thresholds must be >= 1");
        }
        if (!(minR2 >= 0 && minR2 <= 1)) {
            throw new IllegalArgumentException("minR2 must be in [0, 1]: " + minR2);
        }
        if (!(holdRelativeStdError > 0) || !(overwhelmingRelativeStdError > 0)) {
            throw new IllegalArgumentException("relative error thresholds must be > 0");
        }
        if (!(holdWithinStdErrors > 0)) {
            throw new IllegalArgumentException("holdWithinStdErrors must be > 0 (+Infinity holds every imprecise "
                + "value): " + holdWithinStdErrors);
        }
        if (!(maxJumpFactor > 1) || Double.isNaN(maxJumpFactor)) {
            throw new IllegalArgumentException("maxJumpFactor must be > 1: " + maxJumpFactor);
        }
    }

    public GateConfig withMinSamples(long v) {
        return new GateConfig(v, minBandwidthSamples, minRhoSamples, minR2, holdRelativeStdError, holdWithinStdErrors,
            maxJumpFactor, overwhelmingSamples, overwhelmingRelativeStdError, minQuantileTrainingRows);
    }

    public GateConfig withMinR2(double v) {
        return new GateConfig(minSamples, minBandwidthSamples, minRhoSamples, v, holdRelativeStdError,
            holdWithinStdErrors, maxJumpFactor, overwhelmingSamples, overwhelmingRelativeStdError,
            minQuantileTrainingRows);
    }

    public GateConfig withHoldWithinStdErrors(double v) {
        return new GateConfig(minSamples, minBandwidthSamples, minRhoSamples, minR2, holdRelativeStdError, v,
            maxJumpFactor, overwhelmingSamples, overwhelmingRelativeStdError, minQuantileTrainingRows);
    }

    public GateConfig withMaxJumpFactor(double v) {
        return new GateConfig(minSamples, minBandwidthSamples, minRhoSamples, minR2, holdRelativeStdError,
            holdWithinStdErrors, v, overwhelmingSamples, overwhelmingRelativeStdError, minQuantileTrainingRows);
    }
}
