package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.snapshot.FittedProvenance;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import java.util.Map;
import java.util.Set;

import static io.tierroute.schemas.snapshot.SnapshotParameter.format;

/**
 * The {@link ValidationGate}'s rule that the admission wait (τ₀, α and k of C_kv's W) is one fit, applied together:
 * when the per-value checks held one of the three, the other two are held with it at the values in force, each with a
 * "held: …" reason naming the rule. Runs on the scalars' separate findings, before they are merged.
 */
final class AdmissionWaitTogether {
    private AdmissionWaitTogether() {
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
    static void hold(ParameterSnapshot candidate, ParameterSnapshot active,
            Set<SnapshotParameter> heldScalars, Map<SnapshotParameter, GateFindings> findings) {
        holdAFittedKCarriedBesideANewStep(candidate, active, heldScalars, findings);
        if (heldScalars.stream().noneMatch(SnapshotParameter::isAdmissionWait)) {
            return;
        }
        for (SnapshotParameter p : SnapshotParameter.ADMISSION_WAIT) {
            if (!heldScalars.add(p)) {
                continue;
            }
            GateFindings together = new GateFindings(findings.get(p).watch);
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

    /**
     * k not fitted in this version (fewer than 16 rows with W &gt; 0, at low load) is carried; beside a τ₀ or α fitted
     * anew it would scale a W it was not calibrated on. A k some version fitted is therefore held, and the rest with it,
     * as a k fitted on too few rows is; one never fitted (the default 1) stays, and the new τ₀ and α apply.
     */
    private static void holdAFittedKCarriedBesideANewStep(ParameterSnapshot candidate, ParameterSnapshot active,
            Set<SnapshotParameter> heldScalars, Map<SnapshotParameter, GateFindings> findings) {
        SnapshotParameter k = SnapshotParameter.KV_WAIT_SCALE;
        FittedValue carriedK = k.get(candidate);
        boolean stepFitted = SnapshotParameter.DECODE_STEP_US.get(candidate).getSamples() > 0
            || SnapshotParameter.DECODE_STEP_KV_US.get(candidate).getSamples() > 0;
        if (active == null || carriedK.getSamples() > 0 || FittedProvenance.neverFitted(carriedK) || !stepFitted
                || heldScalars.contains(k)) {
            return;
        }
        heldScalars.add(k);
        GateFindings held = new GateFindings(findings.get(k).watch);
        held.rejections.addAll(findings.get(k).rejections);
        held.held.add("held: " + k.field() + " kept at " + format(carriedK.getValue()) + " " + k.unit()
            + " with the rest of the admission wait: not fitted in this version (too few rows with W > 0), and the k "
            + "in force was calibrated on the W of the τ₀ and α in force");
        findings.put(k, held);
    }
}
