package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.snapshot.FittedProvenance;
import io.tierroute.schemas.snapshot.SnapshotParameter;

import static io.tierroute.schemas.snapshot.SnapshotParameter.format;

/**
 * The {@link ValidationGate}'s verdict on one value (a scalar, a tier's BW_t or one ρ_t(w)), in the order the gate's
 * class comment gives: a malformed value REJECTS ({@link MalformedValueCheck}), an unfitted one must equal the value in
 * force ({@link InheritedValueCheck}); a fitted one whose relative error exceeds holdRelativeStdError is HELD while the
 * value in force lies within holdWithinStdErrors error figures of it, and otherwise goes through the checks a precise
 * fit passes ({@link FitCheck}), held rather than rejected if one of them fails. Owns the wording of every "held: …"
 * reason for imprecision and of the note on an imprecise fit applied.
 */
final class ValueCheck {

    /** What an SE of +∞ means, in words (the held line quotes no figure: neither the error nor the placeholder value). */
    static final String UNDETERMINED = "the fit's rows do not determine it";
    /**
     * The latency regression's usual cause of +∞: a regressor 0 on every row (a term the workload never exercises).
     * It also reports +∞ for a quadratic it left to its linear partner and while it has too few rows for any error.
     */
    static final String UNDETERMINED_REGRESSOR = UNDETERMINED + " (e.g. its feature was 0 on every row)";

    private final GateConfig config;
    private final FitCheck fitCheck;

    ValueCheck(GateConfig config) {
        this.config = config;
        this.fitCheck = new FitCheck(config);
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
    Verdict check(String label, SnapshotParameter p, FittedValue v, FittedValue active, Double reference,
            long minSamples, boolean holdOnFewSamples, GateFindings ctx) {
        return check(label, p, v, active, reference, minSamples, holdOnFewSamples, p.negligible(), ctx);
    }

    /**
     * As above, with the size below which a value counts as negligible in its relative error given: a ρ measured
     * against a faster reference than BW_t is that much smaller, and so is what is negligible of it.
     */
    Verdict check(String label, SnapshotParameter p, FittedValue v, FittedValue active, Double reference,
            long minSamples, boolean holdOnFewSamples, double negligible, GateFindings ctx) {
        Double activeValue = active == null ? null : active.getValue();
        boolean activeFitted = active != null && active.getSamples() > 0;
        double x = v.getValue();
        String unit = " " + p.unit();
        if (MalformedValueCheck.rejects(label, p, v, ctx)) {
            return Verdict.REJECT;
        }
        Double se = v.getStdError();

        if (v.getSamples() == 0) {
            return InheritedValueCheck.check(label, p, v, active, reference, ctx);
        }

        double rel = ErrorFigures.relativeError(v, negligible);
        String keep = activeValue != null ? "the active value " + format(activeValue) + unit
            : p == SnapshotParameter.RHO ? "no entry (ρ = 0)"
            : p == SnapshotParameter.BANDWIDTH ? "the configured default" : "the default " + format(reference) + unit;
        if (!(rel > config.holdRelativeStdError())) {
            return fitCheck.check(label, p, v, rel, active, activeFitted, minSamples, holdOnFewSamples, keep, ctx);
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
        double apart = reference == null || placeholder ? 0.0 : Math.abs(x - reference) / ErrorFigures.errorFigure(v);
        if (!(apart > config.holdWithinStdErrors())) {
            ctx.held.add("held: " + label + " kept at " + keep + "; " + imprecise);
            return Verdict.HOLD;
        }
        // The data contradict the value in force, so keeping it is no safe default: the fit replaces it if it passes
        // what a precise fit must pass, and is held only where one of those checks would reject it.
        GateFindings trial = new GateFindings(ctx.watch);
        Verdict verdict = fitCheck.check(label, p, v, rel, active, activeFitted, minSamples, holdOnFewSamples, keep,
            trial);
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
        ctx.passedFits.addAll(trial.passedFits);
        if (verdict == Verdict.OK) {
            ctx.notes.add(label + " applied although " + imprecise + ": " + contradicted);
        }
        return verdict;
    }
}
