package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The validation gate (DESIGN.md §5): decides whether a CANDIDATE snapshot may become active, against
 * the scope's active snapshot (or none). Pure function of (config, candidate, active); never mutates its
 * inputs. Pinning is not its business: an ACCEPTED snapshot is activated only if the scope is not pinned.
 *
 * <p><b>Per value</b> (each scalar, each tier's BW_t, each ρ_t(w)), in this order:
 * <ol>
 *   <li><b>REJECT, malformed</b>: value NaN/±∞, value &lt; 0 (every parameter is ≥ 0 by definition and
 *       every estimator constrains it, so a negative value is a bug, whatever its SE), samples &lt; 0, SE
 *       NaN or &lt; 0, quality not finite, window start &gt; end.</li>
 *   <li><b>Unfitted</b> (samples 0, i.e. inherited): must equal the active value (or, with no active
 *       snapshot, the DESIGN.md default; a BW_t default is deployment config and is only bounds-checked)
 *       and keep its provenance, the active value's window (with no active snapshot [0, 0), never fitted),
 *       else REJECT; then only the bounds check applies.</li>
 *   <li><b>HOLD</b> if the relative error SE / max(|value|, negligible) &gt; holdRelativeStdError (SE = +∞
 *       always holds, but for a quadratic the fit left out: below) and the value in force lies within
 *       holdWithinStdErrors SE of the fit: the data do not determine the value (identifiability) and cannot tell it
 *       from the one in force, so that is kept: the active value with samples 0 (or the default / no ρ entry
 *       without one), and a "held: …" reason is recorded. Farther away the data contradict the value in force:
 *       the imprecise fit goes through the checks below as a precise one would, is applied if they pass (with a
 *       note) and held if one would reject it. A held value is exempt from the checks below. A held active value keeps
 *       its window ({@link FittedValues#carried(FittedValue)}): a fit carried on stays distinguishable from a
 *       default; the next candidate's jump is not measured from it (only from a value fitted in the active
 *       version), so a hold defers a real shift by one publish rather than for good.</li>
 *   <li><b>REJECT</b> if outside the physical bounds ({@link SnapshotParameter}).</li>
 *   <li><b>REJECT</b> if samples &lt; minSamples (BW_t: minBandwidthSamples); for ρ: HOLD below
 *       minRhoSamples instead, and HOLD below minSamples for the admission wait's τ₀, α and k
 *       ({@link SnapshotParameter#holdsOnFewSamples()}).</li>
 *   <li><b>REJECT</b> if quality kind is R2 and R² &lt; minR2.</li>
 *   <li><b>REJECT</b> a jump: ratio to the active value beyond maxJumpFactor (either way), unless the
 *       evidence is overwhelming (samples ≥ overwhelmingSamples and relative error ≤
 *       overwhelmingRelativeStdError; without any error figure, the samples alone). Measured only from an
 *       active value fitted in its own version (samples &gt; 0); skipped for ρ, when there is no active
 *       snapshot, against a default (no evidence: the first fit may land anywhere in bounds) and against a
 *       carried value (held, or not covered by a fit): the admission wait's rows and BW_t's link samples
 *       never reach overwhelmingSamples, so a carried baseline would hold or reject a real shift forever (but
 *       a value carried since the {@link JumpWatch} saw a jump refused from it stays that jump's baseline);
 *       against an imprecise value applied because the data contradicted the one before it; and against a value
 *       of another estimator (another quality kind: the telemetry prior's α_p and α_d before the regression's).</li>
 * </ol>
 * <p><b>The admission wait</b> (τ₀, α, k of C_kv's W): one fit, so applied together: when one of them is HELD (too
 * imprecise, fitted on fewer than minSamples rows, or a jump beyond maxJumpFactor without overwhelming evidence, which
 * for these three HOLDS instead of rejecting) all three keep the values in force. A BW_t jump without overwhelming
 * evidence HOLDS too ({@code SnapshotParameter.holdsJumps}): its samples never grow enough to confirm one.
 *
 * <p><b>A quadratic the fit left out</b> (α_p2 or α_d2 fitted on rows at 0 with an infinite standard error: its linear
 * term carries its share) goes with that linear term: applied as 0 when α_p / α_d is applied (not held for its
 * error), the value in force kept when it is held, so a non-zero value in force is not priced beside a linear term
 * that already contains its share.
 *
 * <p><b>Snapshot level</b> (REJECT): status not CANDIDATE; version &lt; 1; with an active snapshot: other
 * scope, version ≤ active version, parentVersion ≠ active version; without: parentVersion not null; BW_t
 * for HBM, a tier twice or a missing non-HBM tier; ρ for HBM or a (worker, tier) pair twice; a new
 * quantile forest (≠ the active one) with no trees, inconsistent array sizes, a NaN threshold or a non-finite /
 * negative leaf sample. A new forest trained on fewer than minQuantileTrainingRows rows is HELD (the active one
 * stays; {@link QuantileModelCheck}).
 *
 * <p>Every reason names the parameter, the value with its unit, and the bound or threshold it failed.
 * All checks run, so a rejection lists every problem.
 *
 * <p>This class runs the checks in that order and assembles the result; each concern lives in its own package-private
 * class: the header in {@link HeaderCheck}; one value in {@link ValueCheck} (malformed: {@link MalformedValueCheck},
 * unfitted: {@link InheritedValueCheck}, bounds, samples and R²: {@link FitCheck}, the jump: {@link JumpCheck}, error
 * figures: {@link ErrorFigures}); the scalars in {@link ScalarChecks} with the rules on fits applied together in
 * {@link LeftOutQuadratics} and {@link AdmissionWaitTogether}; BW_t in {@link BandwidthCheck}; ρ in {@link RhoCheck};
 * the forest in {@link QuantileModelCheck}; what a run found so far in {@link GateFindings}.
 */
public final class ValidationGate {
    static {
        // Avro 1.12.2 refuses to deep-copy (newBuilder(other)) generated enums unless their package is trusted.
        AvroTrust.install();
    }

    private final GateConfig config;
    private final ValueCheck values;

    public ValidationGate(GateConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.values = new ValueCheck(config);
    }

    public GateConfig config() {
        return config;
    }

    /**
     * @param candidate the snapshot to validate (normally status CANDIDATE from {@link SnapshotAssembler})
     * @param active the scope's active snapshot, or null for the first snapshot
     */
    public GateResult validate(ParameterSnapshot candidate, ParameterSnapshot active) {
        return validate(candidate, active, JumpWatch.NONE);
    }

    /**
     * As {@link #validate(ParameterSnapshot, ParameterSnapshot)}, confirming the jumps {@code watch} saw refused
     * before when this candidate's fit is on rows those fits never saw ({@link JumpWatch}); the result lists the jumps
     * refused now ({@link GateResult#refusedJumps()}), from which the caller keeps the next watch.
     */
    public GateResult validate(ParameterSnapshot candidate, ParameterSnapshot active, JumpWatch watch) {
        Objects.requireNonNull(candidate, "candidate");
        GateFindings ctx = new GateFindings(Objects.requireNonNull(watch, "watch"));
        HeaderCheck.check(candidate, active, ctx.rejections);

        ParameterSnapshot.Builder out = ParameterSnapshot.newBuilder(candidate);
        ScalarChecks.check(values, config.minSamples(), candidate, active, out, ctx);
        out.setBandwidths(BandwidthCheck.check(values, config.minBandwidthSamples(), candidate, active, ctx));
        out.setRho(RhoCheck.check(values, config.minRhoSamples(), candidate, active, ctx));

        QuantileForestModel activeModel = active == null ? null : active.getQuantileModel();
        QuantileModelCheck.Outcome forest = QuantileModelCheck.check(candidate.getQuantileModel(), activeModel,
                config.minQuantileTrainingRows());
        ctx.rejections.addAll(forest.rejections());
        if (forest.held() != null) {
            ctx.held.add(forest.held());
            out.setQuantileModel(activeModel);
        }

        List<String> reasons = new ArrayList<>(ctx.rejections);
        reasons.addAll(ctx.held);
        ParameterSnapshot result;
        SnapshotStatus status;
        if (ctx.rejections.isEmpty()) {
            status = SnapshotStatus.ACCEPTED;
            result = out.setStatus(status).setRejectReasons(reasons).build();
        } else {
            status = SnapshotStatus.REJECTED;
            result = ParameterSnapshot.newBuilder(candidate).setStatus(status).setRejectReasons(reasons).build();
        }
        return new GateResult(status, result, ctx.rejections, ctx.held, ctx.notes, ctx.refusedJumps, ctx.confirmedJumps,
            ctx.passedFits);
    }
}
