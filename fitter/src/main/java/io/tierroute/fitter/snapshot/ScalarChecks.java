package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The {@link ValidationGate}'s pass over the scalar parameters ({@link SnapshotParameter#SCALARS}): each is checked
 * against the value in force on its own ({@link ValueCheck}), then the rules on fits applied together have their say
 * ({@link LeftOutQuadratics}, {@link AdmissionWaitTogether}), and only then are the findings merged, in the scalars'
 * order, and every held scalar replaced in the output by the value in force, carried.
 */
final class ScalarChecks {
    private ScalarChecks() {
    }

    static void check(ValueCheck values, long minSamples, ParameterSnapshot candidate, ParameterSnapshot active,
            ParameterSnapshot.Builder out, GateFindings ctx) {
        // each scalar's findings are kept apart until the rules on fits applied together have had their say
        Map<SnapshotParameter, GateFindings> findings = new EnumMap<>(SnapshotParameter.class);
        Set<SnapshotParameter> heldScalars = EnumSet.noneOf(SnapshotParameter.class);
        for (SnapshotParameter p : SnapshotParameter.SCALARS) {
            Double act = active == null ? null : p.get(active).getValue();
            Double ref = act != null ? act : p.defaultValue();
            FittedValue actValue = active == null ? null : p.get(active);
            GateFindings own = new GateFindings(ctx.watch);
            if (values.check(p.field(), p, p.get(candidate), actValue, ref, minSamples, p.holdsOnFewSamples(), own)
                    == Verdict.HOLD) {
                heldScalars.add(p);
            }
            findings.put(p, own);
        }
        LeftOutQuadratics.applyWithTheirPartners(candidate, active, heldScalars, findings);
        AdmissionWaitTogether.hold(candidate, active, heldScalars, findings);
        for (SnapshotParameter p : SnapshotParameter.SCALARS) {
            ctx.addAll(findings.get(p));
            if (heldScalars.contains(p)) {
                p.set(out, inForce(p, active));
            }
        }
    }

    /** The value in force, carried: the active one with its provenance (window), or the default without one. */
    private static FittedValue inForce(SnapshotParameter p, ParameterSnapshot active) {
        return active == null ? FittedValues.carried(p.defaultValue()) : FittedValues.carried(p.get(active));
    }
}
