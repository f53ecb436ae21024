package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.snapshot.FittedProvenance;
import io.tierroute.schemas.snapshot.SnapshotParameter;

import static io.tierroute.schemas.snapshot.SnapshotParameter.format;

/**
 * The {@link ValidationGate}'s check on an unfitted value (samples 0, i.e. inherited): it must equal the value in
 * force (the active value, or without one the DESIGN.md default; a BW_t default is deployment config and is only
 * bounds-checked) and keep that value's provenance (the active value's window, or [0, 0), never fitted, without one),
 * else it REJECTS; then only the bounds check applies.
 */
final class InheritedValueCheck {
    private InheritedValueCheck() {
    }

    /**
     * @param active    the active snapshot's value, null when none
     * @param reference what the value must equal (see {@link ValueCheck#check}); null = any in-bounds value
     */
    static Verdict check(String label, SnapshotParameter p, FittedValue v, FittedValue active, Double reference,
            GateFindings ctx) {
        Double activeValue = active == null ? null : active.getValue();
        double x = v.getValue();
        String unit = " " + p.unit();
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
        return FitCheck.boundsCheck(label, p, x, ctx) ? Verdict.OK : Verdict.REJECT;
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
}
