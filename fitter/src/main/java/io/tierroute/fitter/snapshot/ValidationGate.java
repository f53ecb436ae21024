package io.tierroute.fitter.snapshot;

import io.tierroute.fitter.Estimate;
import io.tierroute.schemas.snapshot.FittedProvenance;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.WorkerTierRho;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import static io.tierroute.schemas.snapshot.SnapshotParameter.format;

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
 *       never reach overwhelmingSamples, so a carried baseline would hold or reject a real shift forever;
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
 */
public final class ValidationGate {
    static {
        // Avro 1.12.2 refuses to deep-copy (newBuilder(other)) generated enums unless their package is trusted.
        AvroTrust.install();
    }

    private final GateConfig config;

    public ValidationGate(GateConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    public GateConfig config() {
        return config;
    }

    private enum Verdict { OK, HOLD, REJECT }

    /** What an SE of +∞ means, in words (the held line quotes no figure: neither the error nor the placeholder value). */
    static final String UNDETERMINED = "the fit's rows do not determine it";
    /**
     * The latency regression's usual cause of +∞: a regressor 0 on every row (a term the workload never exercises).
     * It also reports +∞ for a quadratic it left to its linear partner and while it has too few rows for any error.
     */
    static final String UNDETERMINED_REGRESSOR = UNDETERMINED + " (e.g. its feature was 0 on every row)";

    private static final class Ctx {
        final JumpWatch watch;
        final List<String> rejections = new ArrayList<>();
        final List<String> held = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        final List<JumpWatch.Refused> refusedJumps = new ArrayList<>();
        final List<String> confirmedJumps = new ArrayList<>();

        Ctx(JumpWatch watch) {
            this.watch = watch;
        }

        void addAll(Ctx other) {
            rejections.addAll(other.rejections);
            held.addAll(other.held);
            notes.addAll(other.notes);
            refusedJumps.addAll(other.refusedJumps);
            confirmedJumps.addAll(other.confirmedJumps);
        }
    }

    /** Each quadratic term and the linear term that carries it when the fit leaves it out (Coefficient.linearPartner). */
    private static final Map<SnapshotParameter, SnapshotParameter> LINEAR_PARTNER = new EnumMap<>(Map.of(
        SnapshotParameter.ALPHA_P2, SnapshotParameter.ALPHA_P, SnapshotParameter.ALPHA_D2, SnapshotParameter.ALPHA_D));

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
        Ctx ctx = new Ctx(Objects.requireNonNull(watch, "watch"));
        checkHeader(candidate, active, ctx);

        ParameterSnapshot.Builder out = ParameterSnapshot.newBuilder(candidate);

        // each scalar's findings are kept apart until the rules on fits applied together have had their say
        Map<SnapshotParameter, Ctx> findings = new EnumMap<>(SnapshotParameter.class);
        Set<SnapshotParameter> heldScalars = EnumSet.noneOf(SnapshotParameter.class);
        for (SnapshotParameter p : SnapshotParameter.SCALARS) {
            Double act = active == null ? null : p.get(active).getValue();
            Double ref = act != null ? act : p.defaultValue();
            FittedValue actValue = active == null ? null : p.get(active);
            Ctx own = new Ctx(ctx.watch);
            if (check(p.field(), p, p.get(candidate), actValue, ref, config.minSamples(), p.holdsOnFewSamples(), own)
                    == Verdict.HOLD) {
                heldScalars.add(p);
            }
            findings.put(p, own);
        }
        applyLeftOutQuadraticsWithTheirPartners(candidate, active, heldScalars, findings);
        holdAdmissionWaitTogether(candidate, active, heldScalars, findings);
        for (SnapshotParameter p : SnapshotParameter.SCALARS) {
            ctx.addAll(findings.get(p));
            if (heldScalars.contains(p)) {
                p.set(out, inForce(p, active));
            }
        }

        List<TierBandwidth> bws = new ArrayList<>();
        Set<Tier> seenTiers = EnumSet.noneOf(Tier.class);
        for (TierBandwidth tb : candidate.getBandwidths()) {
            Tier t = tb.getTier();
            String label = "bandwidth[" + t + "]";
            if (t == Tier.HBM) {
                ctx.rejections.add(label + ": BW_t is defined only for non-HBM tiers");
            }
            if (!seenTiers.add(t)) {
                ctx.rejections.add(label + ": tier listed more than once");
            }
            FittedValue actBw = active == null ? null : activeBandwidth(active, t);
            Double act = actBw == null ? null : actBw.getValue();
            Verdict verdict = check(label, SnapshotParameter.BANDWIDTH, tb.getBytesPerSecond(), actBw, act,
                config.minBandwidthSamples(), false, ctx);
            if (verdict == Verdict.HOLD && actBw != null) {
                bws.add(TierBandwidth.newBuilder().setTier(t).setBytesPerSecond(FittedValues.carried(actBw)).build());
            } else if (verdict == Verdict.HOLD) {
                double def = SnapshotAssembler.DEFAULT_BANDWIDTHS.getOrDefault(t, tb.getBytesPerSecond().getValue());
                bws.add(TierBandwidth.newBuilder().setTier(t).setBytesPerSecond(FittedValues.carried(def)).build());
            } else {
                bws.add(tb);
            }
        }
        for (Tier t : Tier.values()) {
            if (t != Tier.HBM && !seenTiers.contains(t)) {
                ctx.rejections.add("bandwidth[" + t + "]: missing (every non-HBM tier needs a BW_t)");
            }
        }
        out.setBandwidths(bws);

        List<WorkerTierRho> rhos = new ArrayList<>();
        Set<String> seenLinks = new HashSet<>();
        for (WorkerTierRho r : candidate.getRho()) {
            String label = "rho[" + r.getWorker() + "/" + r.getTier() + "]";
            if (r.getTier() == Tier.HBM) {
                ctx.rejections.add(label + ": ρ is defined only for non-HBM tiers");
            }
            if (!seenLinks.add(r.getWorker() + "\u0000" + r.getTier())) {
                ctx.rejections.add(label + ": (worker, tier) pair listed more than once");
            }
            WorkerTierRho prev = active == null ? null : activeRho(active, r.getWorker(), r.getTier());
            Double act = prev == null ? null : prev.getRho().getValue();
            Verdict verdict = check(label, SnapshotParameter.RHO, r.getRho(), prev == null ? null : prev.getRho(),
                act != null ? act : 0.0, config.minRhoSamples(), true, ctx);
            if (verdict == Verdict.HOLD) {
                if (prev != null) {
                    rhos.add(WorkerTierRho.newBuilder(r).setRho(FittedValues.carried(prev.getRho())).build());
                }
                // no active entry: dropped (a missing pair means 0)
            } else {
                rhos.add(r);
            }
        }
        out.setRho(rhos);

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
        return new GateResult(status, result, ctx.rejections, ctx.held, ctx.notes, ctx.refusedJumps, ctx.confirmedJumps);
    }

    private void checkHeader(ParameterSnapshot c, ParameterSnapshot active, Ctx ctx) {
        if (c.getStatus() != SnapshotStatus.CANDIDATE) {
            ctx.rejections.add("status is " + c.getStatus() + ", only a CANDIDATE can be validated");
        }
        if (c.getVersion() < 1) {
            ctx.rejections.add("version " + c.getVersion() + " < 1 (0 is reserved for the built-in defaults)");
        }
        if (active == null) {
            if (c.getParentVersion() != null) {
                ctx.rejections.add("parentVersion " + c.getParentVersion() + " given but the scope has no active snapshot");
            }
            return;
        }
        if (!Objects.equals(c.getScope(), active.getScope())) {
            ctx.rejections.add("scope '" + c.getScope() + "' differs from the active snapshot's scope '"
                + active.getScope() + "'");
        }
        if (c.getVersion() <= active.getVersion()) {
            ctx.rejections.add("version " + c.getVersion() + " is not greater than the active version "
                + active.getVersion() + " (versions are strictly increasing)");
        }
        if (c.getParentVersion() == null || c.getParentVersion() != active.getVersion()) {
            ctx.rejections.add("parentVersion " + c.getParentVersion() + " is not the active version "
                + active.getVersion() + " (the candidate was derived from a different snapshot)");
        }
    }

    /**
     * τ₀, α and k are one fit: k is calibrated on the W that this τ₀ and α give, and α is the slope behind this τ₀. A
     * selector applying some of them next to others fitted on other data would price a W nobody fitted (α held at 0
     * beside a sloped τ₀ under-prices it; an old α beside a no-slope τ₀ counts the KV twice), so when one is held all
     * three keep the values in force.
     *
     * @param heldScalars the scalars held so far; the rest of the admission wait joins them here
     * @param findings    each scalar's reasons and notes; a value held here loses what its own check noted about
     *                    applying it (an imprecise fit, a jump), never a rejection
     */
    private static void holdAdmissionWaitTogether(ParameterSnapshot candidate, ParameterSnapshot active,
            Set<SnapshotParameter> heldScalars, Map<SnapshotParameter, Ctx> findings) {
        if (heldScalars.stream().noneMatch(SnapshotParameter::isAdmissionWait)) {
            return;
        }
        for (SnapshotParameter p : SnapshotParameter.ADMISSION_WAIT) {
            if (!heldScalars.add(p)) {
                continue;
            }
            Ctx together = new Ctx(findings.get(p).watch);
            together.rejections.addAll(findings.get(p).rejections);
            double ref = active == null ? p.defaultValue() : p.get(active).getValue();
            FittedValue fitted = p.get(candidate);
            // an unfitted value equal to the one in force is no change to report
            if (fitted.getSamples() > 0 || Double.compare(fitted.getValue(), ref) != 0) {
                together.held.add("held: " + p.field() + " kept at " + format(ref) + " " + p.unit()
                    + " with the rest of the admission wait (τ₀, α and k are applied together); fitted "
                    + format(fitted.getValue()));
            }
            findings.put(p, together);
        }
    }

    /** {@link Estimate#leftOutOfTheFit()} of a fitted value in a snapshot. */
    private static boolean leftOutOfTheFit(FittedValue v) {
        Double se = v.getStdError();
        return Estimate.leftOutOfTheFit(v.getSamples(), v.getValue(), se == null ? Double.NaN : se);
    }

    /**
     * A linear term and the quadratic the fit left out are one fit: α_p fitted without α_p2 prices (ISL² − hit²)/2 in
     * its per-token rate, so a non-zero α_p2 in force beside it would count that share twice. Such a quadratic (its own
     * check held it for its infinite error) is applied as the fit's 0 when its partner is applied, keeping that error
     * so no later jump is measured from it; held with a held partner, it keeps the value in force as the partner does.
     * Holding a new quadratic at a 0 in force beside a held partner as well was measured and not kept (fitter README
     * §6).
     */
    private static void applyLeftOutQuadraticsWithTheirPartners(ParameterSnapshot candidate, ParameterSnapshot active,
            Set<SnapshotParameter> heldScalars, Map<SnapshotParameter, Ctx> findings) {
        for (Map.Entry<SnapshotParameter, SnapshotParameter> pair : LINEAR_PARTNER.entrySet()) {
            SnapshotParameter quadratic = pair.getKey();
            SnapshotParameter linear = pair.getValue();
            boolean linearApplied = !heldScalars.contains(linear) && findings.get(linear).rejections.isEmpty();
            if (!linearApplied || !heldScalars.contains(quadratic) || !leftOutOfTheFit(quadratic.get(candidate))) {
                continue;
            }
            heldScalars.remove(quadratic);
            Ctx applied = new Ctx(findings.get(quadratic).watch); // its own check held it, so it has no rejection to keep
            double inForce = active == null ? quadratic.defaultValue() : quadratic.get(active).getValue();
            if (inForce != 0) {
                applied.notes.add(quadratic.field() + " = 0 applied with " + linear.field() + ", in place of "
                    + format(inForce) + " " + quadratic.unit() + ": the fit priced its term with " + linear.field()
                    + " alone (the other regressors reproduce its column, or it never varied)");
            }
            findings.put(quadratic, applied);
        }
    }

    /** The value in force, carried: the active one with its provenance (window), or the default without one. */
    private static FittedValue inForce(SnapshotParameter p, ParameterSnapshot active) {
        return active == null ? FittedValues.carried(p.defaultValue()) : FittedValues.carried(p.get(active));
    }

    /**
     * @param active    the active snapshot's value, null when none (no jump check). A jump is measured from it only
     *                  when it was fitted in the active version (samples > 0): a default is no evidence, and a value
     *                  the active snapshot carried (held, or not covered by a fit) must not become a permanent
     *                  baseline, since the admission wait's rows and BW_t's link samples never reach
     *                  overwhelmingSamples: a real shift would then be held or rejected forever. A held value so
     *                  defers the next fit by one publish, it does not block it
     * @param reference the value in force (the active value, else the default; for ρ, 0 without an entry): what an
     *                  unfitted (samples 0) value must equal, and what an imprecise fit is held at while the data
     *                  cannot tell the two apart; null = any in-bounds value (a BW_t without an active snapshot: the
     *                  worker's configured link, which the gate does not know)
     */
    private Verdict check(String label, SnapshotParameter p, FittedValue v, FittedValue active, Double reference,
            long minSamples, boolean holdOnFewSamples, Ctx ctx) {
        Double activeValue = active == null ? null : active.getValue();
        boolean activeFitted = active != null && active.getSamples() > 0;
        double x = v.getValue();
        String unit = " " + p.unit();
        boolean malformed = false;
        if (!Double.isFinite(x)) {
            ctx.rejections.add(label + " = " + format(x) + " is not a finite number (bounds " + p.boundsText() + ")");
            return Verdict.REJECT;
        }
        if (x < 0) {
            ctx.rejections.add(label + " = " + format(x) + unit + " is negative (bounds " + p.boundsText() + ")");
            malformed = true;
        }
        if (v.getSamples() < 0) {
            ctx.rejections.add(label + ": samples " + v.getSamples() + " < 0");
            malformed = true;
        }
        Double se = v.getStdError();
        if (se != null && (Double.isNaN(se) || se < 0)) {
            ctx.rejections.add(label + ": standard error " + format(se) + " is NaN or negative");
            malformed = true;
        }
        if (!Double.isFinite(v.getQuality())) {
            ctx.rejections.add(label + ": quality " + format(v.getQuality()) + " is not finite");
            malformed = true;
        }
        if (v.getWindowStartMs() > v.getWindowEndMs()) {
            ctx.rejections.add(label + ": window start " + v.getWindowStartMs() + " after end " + v.getWindowEndMs());
            malformed = true;
        }
        if (malformed) {
            return Verdict.REJECT;
        }

        if (v.getSamples() == 0) {
            if (reference != null && Double.compare(x, reference) != 0) {
                ctx.rejections.add(label + " = " + format(x) + unit + " is unfitted (samples 0) but differs from the "
                    + (activeValue != null ? "active" : "default") + " value " + format(reference) + unit);
                return Verdict.REJECT;
            }
            if (!sameProvenance(v, active)) {
                ctx.rejections.add(label + " is unfitted (samples 0) but its window " + window(v) + " is not that of the "
                    + (active != null ? "active value, " + window(active) : "default, [0, 0)")
                    + ": an inherited value keeps where it came from (a fit's window, or [0, 0) for a default)");
                return Verdict.REJECT;
            }
            return boundsCheck(label, p, x, ctx) ? Verdict.OK : Verdict.REJECT;
        }

        double rel = relativeError(p, v);
        String keep = activeValue != null ? "the active value " + format(activeValue) + unit
            : p == SnapshotParameter.RHO ? "no entry (ρ = 0)"
            : p == SnapshotParameter.BANDWIDTH ? "the configured default" : "the default " + format(reference) + unit;
        if (!(rel > config.holdRelativeStdError())) {
            return checkFit(label, p, v, rel, active, activeFitted, minSamples, holdOnFewSamples, keep, ctx);
        }
        // SE = +∞: the rows carry no information about the value (Estimate), so there is no figure worth quoting
        String imprecise = se != null && se == Double.POSITIVE_INFINITY
            ? (v.getQualityKind() == QualityKind.R2 ? UNDETERMINED_REGRESSOR : UNDETERMINED)
            : "fitted " + format(x) + unit + " has "
                + (se != null ? "standard error " + format(se) : "error figure " + format(v.getQuality())) + unit
                + " (relative " + format(rel) + " > max " + format(config.holdRelativeStdError()) + ")";
        // How many error figures lie between the fit and the value in force (an infinite error: none). A BW_t never
        // fitted is a placeholder the selector does not apply (it uses each worker's configured link): no value in
        // force to contradict.
        boolean placeholder = p == SnapshotParameter.BANDWIDTH && active != null
            && FittedProvenance.neverFitted(active);
        double apart = reference == null || placeholder ? 0.0 : Math.abs(x - reference) / errorFigure(v);
        if (!(apart > config.holdWithinStdErrors())) {
            ctx.held.add("held: " + label + " kept at " + keep + "; " + imprecise);
            return Verdict.HOLD;
        }
        // The data contradict the value in force, so keeping it is no safe default: the fit replaces it if it passes
        // what a precise fit must pass, and is held only where one of those checks would reject it.
        Ctx trial = new Ctx(ctx.watch);
        Verdict verdict = checkFit(label, p, v, rel, active, activeFitted, minSamples, holdOnFewSamples, keep, trial);
        String contradicted = "the value in force lies " + format(apart) + " error figures from it (more than "
            + format(config.holdWithinStdErrors()) + ")";
        // a jump refused or confirmed here stays watched either way: the next fit may be precise
        ctx.refusedJumps.addAll(trial.refusedJumps);
        ctx.confirmedJumps.addAll(trial.confirmedJumps);
        if (verdict == Verdict.REJECT) {
            ctx.held.add("held: " + label + " kept at " + keep + "; " + imprecise + ", and though " + contradicted
                + " the fit fails: " + String.join("; ", trial.rejections));
            return Verdict.HOLD;
        }
        ctx.held.addAll(trial.held);
        ctx.notes.addAll(trial.notes);
        if (verdict == Verdict.OK) {
            ctx.notes.add(label + " applied although " + imprecise + ": " + contradicted);
        }
        return verdict;
    }

    /** The checks a fit passes once it is not held for imprecision: bounds, samples, R², jump. */
    private Verdict checkFit(String label, SnapshotParameter p, FittedValue v, double rel, FittedValue active,
            boolean activeFitted, long minSamples, boolean holdOnFewSamples, String keep, Ctx ctx) {
        Double activeValue = active == null ? null : active.getValue();
        double x = v.getValue();
        String unit = " " + p.unit();
        boolean ok = boundsCheck(label, p, x, ctx);
        if (v.getSamples() < minSamples) {
            if (holdOnFewSamples) {
                if (ok) {
                    ctx.held.add("held: " + label + " kept at " + keep + "; fitted " + format(x) + unit + " on "
                        + v.getSamples() + " samples < minimum " + minSamples);
                    return Verdict.HOLD;
                }
            } else {
                ctx.rejections.add(label + " = " + format(x) + unit + " fitted on " + v.getSamples()
                    + " samples < minimum " + minSamples);
                ok = false;
            }
        }
        if (v.getQualityKind() == QualityKind.R2 && v.getQuality() < config.minR2()) {
            ctx.rejections.add(label + " = " + format(x) + unit + ": regression R² " + format(v.getQuality())
                + " < minimum " + format(config.minR2()));
            ok = false;
        }
        // A jump is measured only from a precise fit: an imprecise one applied because the data contradicted the value
        // before it (0.4 ± 18) says too little to hold the next, precise fit within a factor of it.
        // And only from a value of the same estimator: the telemetry prior's α_p (busy time / tokens, STD_ERROR) is the
        // average price with the engine's fixed step cost in it, the regression's (R2) the marginal price beside its
        // intercept; on short prompts they differ manyfold, and the prior must not hold the first regression back.
        boolean baseline = activeFitted && !(relativeError(p, active) > config.holdRelativeStdError())
            && active.getQualityKind() == v.getQualityKind();
        if (ok && activeValue != null && baseline && p.jumpChecked()) {
            double a = Math.max(Math.abs(x), p.negligible()) / Math.max(Math.abs(activeValue), p.negligible());
            double factor = Math.max(a, 1 / a);
            if (factor > config.maxJumpFactor()) {
                boolean enoughSamples = v.getSamples() >= config.overwhelmingSamples();
                boolean preciseEnough = Double.isNaN(rel) || rel <= config.overwhelmingRelativeStdError();
                String jump = label + " jumps " + format(factor) + "× from the active value " + format(activeValue)
                    + " to " + format(x) + unit + " (max factor " + format(config.maxJumpFactor()) + ")";
                boolean up = x > activeValue;
                if (enoughSamples && preciseEnough) {
                    ctx.notes.add(jump + ", accepted on overwhelming evidence: " + v.getSamples()
                        + " samples, relative error " + format(rel));
                } else if (!p.holdsJumps()
                        && ctx.watch.confirms(label, activeValue, up, v.getSamples(), config.overwhelmingSamples())) {
                    ctx.notes.add(jump + ", accepted: confirmed by " + v.getSamples() + " samples, "
                        + config.overwhelmingSamples() + "+ of them since it was first refused");
                    ctx.confirmedJumps.add(label);
                } else if (p.holdsJumps()) {
                    // The admission wait's calibration moves with the fleet's load (k 0.002–1 over one workload's
                    // loads), a link's peak with its traffic; neither can confirm a jump (SnapshotParameter#holdsJumps):
                    // the value in force stays, carried, and the next fit is applied if the shift persists, rather than
                    // the jump costing every other parameter its update.
                    ctx.held.add("held: " + jump + " without overwhelming evidence; the active value stays (carried: "
                        + "the next fit is applied if the shift persists)");
                    return Verdict.HOLD;
                } else {
                    ctx.rejections.add(jump + " without overwhelming evidence (needs samples ≥ "
                        + config.overwhelmingSamples() + " and relative error ≤ "
                        + format(config.overwhelmingRelativeStdError()) + ", or the same jump after "
                        + config.overwhelmingSamples() + " more samples; has " + v.getSamples()
                        + " samples, relative error " + format(rel) + ")");
                    ctx.refusedJumps.add(new JumpWatch.Refused(label, new JumpWatch.Seen(activeValue, up, v.getSamples())));
                    ok = false;
                }
            }
        }
        return ok ? Verdict.OK : Verdict.REJECT;
    }

    /**
     * Whether an inherited value keeps the provenance of the value in force: the active value's window, or [0, 0)
     * (never fitted) without one. Otherwise a carried fit could pass as a default, which the selector replaces by a
     * worker's configured link (BW_t), or a default as a fit, which the selector applies in place of that link.
     */
    private static boolean sameProvenance(FittedValue inherited, FittedValue active) {
        return active == null ? FittedProvenance.neverFitted(inherited)
            : inherited.getWindowStartMs() == active.getWindowStartMs()
                && inherited.getWindowEndMs() == active.getWindowEndMs();
    }

    private static String window(FittedValue v) {
        return "[" + v.getWindowStartMs() + ", " + v.getWindowEndMs() + ")";
    }

    private static boolean boundsCheck(String label, SnapshotParameter p, double x, Ctx ctx) {
        if (!p.inBounds(x)) {
            ctx.rejections.add(label + " = " + format(x) + " " + p.unit() + " is outside the physical bounds "
                + p.boundsText());
            return false;
        }
        return true;
    }

    /**
     * SE / max(|value|, negligible); the error figure is the SE when present, else the quality when its
     * kind is STD_ERROR; NaN when there is none. +∞ SE gives +∞.
     */
    static double relativeError(SnapshotParameter p, FittedValue v) {
        return errorFigure(v) / Math.max(Math.abs(v.getValue()), p.negligible());
    }

    /** The SE when present, else the quality when its kind is STD_ERROR; NaN when there is none. */
    private static double errorFigure(FittedValue v) {
        if (v.getStdError() != null) {
            return v.getStdError();
        }
        return v.getQualityKind() == QualityKind.STD_ERROR ? v.getQuality() : Double.NaN;
    }

    private static FittedValue activeBandwidth(ParameterSnapshot active, Tier t) {
        for (TierBandwidth tb : active.getBandwidths()) {
            if (tb.getTier() == t) {
                return tb.getBytesPerSecond();
            }
        }
        return null;
    }

    private static WorkerTierRho activeRho(ParameterSnapshot active, String worker, Tier t) {
        for (WorkerTierRho r : active.getRho()) {
            if (r.getTier() == t && r.getWorker().equals(worker)) {
                return r;
            }
        }
        return null;
    }
}
