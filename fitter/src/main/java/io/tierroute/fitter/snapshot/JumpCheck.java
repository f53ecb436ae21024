package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.snapshot.SnapshotParameter;

import static io.tierroute.schemas.snapshot.SnapshotParameter.format;

/**
 * The {@link ValidationGate}'s jump rule: a fit whose ratio to the active value exceeds maxJumpFactor (either way) is
 * accepted on overwhelming evidence (or, without any error figure, on the samples alone) or when the {@link JumpWatch}
 * confirms a jump refused before; else it is HELD for a parameter that {@link SnapshotParameter#holdsJumps() holds
 * jumps} (the admission wait, BW_t) and REJECTED, and recorded as refused, for any other. Which active values a jump
 * is measured from (the baseline) is decided here too: a precise fit of the same estimator in the active version, or
 * a value carried since the watch saw a jump refused from it.
 */
final class JumpCheck {
    private final GateConfig config;

    JumpCheck(GateConfig config) {
        this.config = config;
    }

    /** The jump check of a fit that passed every other check ({@link FitCheck}); OK when there is no jump to refuse. */
    Verdict check(String label, SnapshotParameter p, FittedValue v, double rel, FittedValue active,
            boolean activeFitted, GateFindings ctx) {
        Double activeValue = active == null ? null : active.getValue();
        double x = v.getValue();
        String unit = " " + p.unit();
        // A jump is measured only from a precise fit: an imprecise one applied because the data contradicted the value
        // before it (0.4 ± 18) says too little to hold the next, precise fit within a factor of it.
        // And only from a value of the same estimator: the telemetry prior's α_p (busy time / tokens, STD_ERROR) is the
        // average price with the engine's fixed step cost in it, the regression's (R2) the marginal price beside its
        // intercept; on short prompts they differ manyfold, and the prior must not hold the first regression back.
        boolean baseline = activeFitted && !(ErrorFigures.relativeError(p, active) > config.holdRelativeStdError())
            && active.getQualityKind() == v.getQualityKind();
        // A value in force carried since a jump from it was refused (a fit held for imprecision in between, or none)
        // is still that jump's baseline for the estimator refused: else one held fit would let the jump pass unconfirmed.
        boolean watchedBaseline = !activeFitted && activeValue != null
            && ctx.watch.watchesFrom(label, activeValue, v.getQualityKind());
        if (activeValue == null || !(baseline || watchedBaseline) || !p.jumpChecked()) {
            return passed(label, p, ctx);
        }
        double a = Math.max(Math.abs(x), p.negligible()) / Math.max(Math.abs(activeValue), p.negligible());
        double factor = Math.max(a, 1 / a);
        if (!(factor > config.maxJumpFactor())) {
            return passed(label, p, ctx);
        }
        boolean enoughSamples = v.getSamples() >= config.overwhelmingSamples();
        boolean preciseEnough = Double.isNaN(rel) || rel <= config.overwhelmingRelativeStdError();
        String jump = label + " jumps " + format(factor) + "× from the active value " + format(activeValue)
            + " to " + format(x) + unit + " (max factor " + format(config.maxJumpFactor()) + ")";
        boolean up = x > activeValue;
        if (enoughSamples && preciseEnough) {
            ctx.notes.add(jump + ", accepted on overwhelming evidence: " + v.getSamples()
                + " samples, relative error " + format(rel));
            return passed(label, p, ctx);
        } else if (!p.holdsJumps()
                && ctx.watch.confirms(label, activeValue, up, v.getSamples(), v.getQualityKind(),
                    config.overwhelmingSamples())) {
            ctx.notes.add(jump + ", accepted: confirmed by " + v.getSamples() + " samples, "
                + config.overwhelmingSamples() + "+ of them since it was first refused");
            ctx.confirmedJumps.add(label);
            return passed(label, p, ctx);
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
            ctx.refusedJumps.add(new JumpWatch.Refused(label, new JumpWatch.Seen(activeValue, up, v.getSamples(),
                v.getQualityKind())));
            return Verdict.REJECT;
        }
    }

    /** A fit that passed the jump check: recorded for the watch ({@link GateResult#passedFits()}) when jump-checked. */
    private static Verdict passed(String label, SnapshotParameter p, GateFindings ctx) {
        if (p.jumpChecked()) {
            ctx.passedFits.add(label);
        }
        return Verdict.OK;
    }
}
