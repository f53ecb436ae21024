package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.WorkerTierRho;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@link ValidationGate}'s pass over the candidate's ρ_t(w): REJECTS a ρ for HBM and a (worker, tier) pair listed
 * twice; checks each entry against the active one, or 0 without one ({@link ValueCheck}, minRhoSamples, holding on
 * fewer samples); and builds the ρ entries the gated snapshot carries, a held entry kept at the active one, carried, or
 * dropped when there is none.
 */
final class RhoCheck {
    private RhoCheck() {
    }

    /** The ρ entries of the gated snapshot; every problem goes to {@code ctx}. */
    static List<WorkerTierRho> check(ValueCheck values, long minRhoSamples, ParameterSnapshot candidate,
            ParameterSnapshot active, GateFindings ctx) {
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
            Verdict verdict = values.check(label, SnapshotParameter.RHO, r.getRho(), prev == null ? null : prev.getRho(),
                act != null ? act : 0.0, minRhoSamples, true, ctx);
            if (verdict == Verdict.HOLD) {
                if (prev != null) {
                    rhos.add(WorkerTierRho.newBuilder(r).setRho(FittedValues.carried(prev.getRho())).build());
                }
                // no active entry: dropped (a missing pair means 0)
            } else {
                rhos.add(r);
            }
        }
        return rhos;
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
