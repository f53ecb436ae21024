package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.snapshot.SnapshotParameter;

import static io.tierroute.schemas.snapshot.SnapshotParameter.format;

/**
 * The {@link ValidationGate}'s checks on a fit that is not held for imprecision: the physical bounds
 * ({@link SnapshotParameter}), the minimum samples (below which ρ and the admission wait HOLD instead of rejecting,
 * {@link SnapshotParameter#holdsOnFewSamples()}), the regression's R², and last the jump from the active value
 * ({@link JumpCheck}). The bounds, sample and R² checks all run, so a rejection lists each of their problems; a hold
 * for few samples ends the checks there, and the jump is checked only for a value that passed the others.
 */
final class FitCheck {
    private final GateConfig config;
    private final JumpCheck jumpCheck;

    FitCheck(GateConfig config) {
        this.config = config;
        this.jumpCheck = new JumpCheck(config);
    }

    /** The checks a fit passes once it is not held for imprecision: bounds, samples, R², jump. */
    Verdict check(String label, SnapshotParameter p, FittedValue v, double rel, FittedValue active,
            boolean activeFitted, long minSamples, boolean holdOnFewSamples, String keep, GateFindings ctx) {
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
        if (ok) {
            Verdict jump = jumpCheck.check(label, p, v, rel, active, activeFitted, ctx);
            if (jump == Verdict.HOLD) {
                return Verdict.HOLD;
            }
            ok = jump == Verdict.OK;
        }
        return ok ? Verdict.OK : Verdict.REJECT;
    }

    static boolean boundsCheck(String label, SnapshotParameter p, double x, GateFindings ctx) {
        if (!p.inBounds(x)) {
            ctx.rejections.add(label + " = " + format(x) + " " + p.unit() + " is outside the physical bounds "
                + p.boundsText());
            return false;
        }
        return true;
    }
}
