package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.snapshot.SnapshotParameter;

import static io.tierroute.schemas.snapshot.SnapshotParameter.format;

/**
 * The {@link ValidationGate}'s first check on every value: one that is malformed REJECTS, whatever else holds for it.
 * Malformed is a value NaN/±∞ (nothing else is checked then), a negative value (every parameter is ≥ 0 by definition
 * and every estimator constrains it, so a negative value is a bug, whatever its SE), samples &lt; 0, an SE NaN or
 * &lt; 0, a non-finite quality, or a window that starts after it ends; every such defect of the value is named.
 */
final class MalformedValueCheck {
    private MalformedValueCheck() {
    }

    /** Whether {@code v} is malformed; each defect found is added to {@code ctx}'s rejections. */
    static boolean rejects(String label, SnapshotParameter p, FittedValue v, GateFindings ctx) {
        double x = v.getValue();
        String unit = " " + p.unit();
        boolean malformed = false;
        if (!Double.isFinite(x)) {
            ctx.rejections.add(label + " = " + format(x) + " is not a finite number (bounds " + p.boundsText() + ")");
            return true;
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
        return malformed;
    }
}
