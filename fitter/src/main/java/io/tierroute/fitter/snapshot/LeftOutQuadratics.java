package io.tierroute.fitter.snapshot;

import io.tierroute.fitter.Estimate;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

import static io.tierroute.schemas.snapshot.SnapshotParameter.format;

/**
 * The {@link ValidationGate}'s rule that a quadratic the fit left out (α_p2 or α_d2 fitted on rows at 0 with an
 * infinite standard error: its linear term carries its share) goes with that linear term: applied as 0 when α_p / α_d
 * is applied, kept at the value in force when it is held. Owns the quadratic-to-linear pairing; runs on the scalars'
 * separate findings, before they are merged.
 */
final class LeftOutQuadratics {
    private LeftOutQuadratics() {
    }

    /** Each quadratic term and the linear term that carries it when the fit leaves it out (Coefficient.linearPartner). */
    private static final Map<SnapshotParameter, SnapshotParameter> LINEAR_PARTNER = new EnumMap<>(Map.of(
        SnapshotParameter.ALPHA_P2, SnapshotParameter.ALPHA_P, SnapshotParameter.ALPHA_D2, SnapshotParameter.ALPHA_D));

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
    static void applyWithTheirPartners(ParameterSnapshot candidate, ParameterSnapshot active,
            Set<SnapshotParameter> heldScalars, Map<SnapshotParameter, GateFindings> findings) {
        for (Map.Entry<SnapshotParameter, SnapshotParameter> pair : LINEAR_PARTNER.entrySet()) {
            SnapshotParameter quadratic = pair.getKey();
            SnapshotParameter linear = pair.getValue();
            boolean linearApplied = !heldScalars.contains(linear) && findings.get(linear).rejections.isEmpty();
            if (!linearApplied || !heldScalars.contains(quadratic) || !leftOutOfTheFit(quadratic.get(candidate))) {
                continue;
            }
            heldScalars.remove(quadratic);
            // its own check held it, so it has no rejection to keep
            GateFindings applied = new GateFindings(findings.get(quadratic).watch);
            applied.passedFits.add(quadratic.field());
            double inForce = active == null ? quadratic.defaultValue() : quadratic.get(active).getValue();
            if (inForce != 0) {
                applied.notes.add(quadratic.field() + " = 0 applied with " + linear.field() + ", in place of "
                    + format(inForce) + " " + quadratic.unit() + ": the fit priced its term with " + linear.field()
                    + " alone (the other regressors reproduce its column, or it never varied)");
            }
            findings.put(quadratic, applied);
        }
    }
}
