package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.WorkerTierRho;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@link ValidationGate}'s pass over the candidate's ρ_t(w): REJECTS a ρ for HBM and a (worker, tier) pair listed
 * twice; checks each entry against the active one, or 0 without one ({@link ValueCheck}, minRhoSamples, holding on
 * fewer samples); and builds the ρ entries the gated snapshot carries, a held entry kept at the active one, carried, or
 * dropped when there is none. ρ grows with the fleet, so its reasons are listed up to {@link #LISTED} of each kind and
 * counted beyond: one line per held link (a fleet starting, or a worker name that changes per boot) put 48,000 lines
 * in the record, past what one Kafka record may take, and the job failed at every restart.
 *
 * <p>An entry may carry the bandwidth it was measured against ({@code referenceBytesPerSecond}, a link seen faster
 * than its tier's BW_t); it must be a bandwidth within BW_t's bounds. Without one, a candidate's ρ, like the active
 * snapshot's, is measured against the active BW_t (the job's BW_t in use). The active ρ is put on the candidate's
 * reference before the two are compared (the same bytes over a faster reference are a lower ρ, not a change), what
 * counts as a negligible ρ is scaled to that reference alike (else the precision test let an imprecise ρ through on a
 * faster reference), and a held entry keeps the active one's reference with its value.
 */
final class RhoCheck {
    /** How many rejections, held reasons and notes about ρ are listed, each; the rest are counted in one line. */
    static final int LISTED = 10;

    private RhoCheck() {
    }

    /** The ρ entries of the gated snapshot; every problem goes to {@code ctx}. */
    static List<WorkerTierRho> check(ValueCheck values, long minRhoSamples, ParameterSnapshot candidate,
            ParameterSnapshot active, GateFindings ctx) {
        Map<String, WorkerTierRho> activeRho = new HashMap<>();
        if (active != null) {
            for (WorkerTierRho r : active.getRho()) {
                activeRho.putIfAbsent(link(r), r);
            }
        }
        Map<Tier, Double> activeBandwidths = SnapshotAssembler.bandwidths(active);
        Map<Tier, Double> candidateBandwidths = SnapshotAssembler.bandwidths(candidate); // without an active one: in use
        GateFindings own = new GateFindings(ctx.watch);
        List<WorkerTierRho> rhos = new ArrayList<>();
        Set<String> seenLinks = new HashSet<>();
        for (WorkerTierRho r : candidate.getRho()) {
            String label = "rho[" + r.getWorker() + "/" + r.getTier() + "]";
            if (r.getTier() == Tier.HBM) {
                own.rejections.add(label + ": ρ is defined only for non-HBM tiers");
            }
            if (!seenLinks.add(link(r))) {
                own.rejections.add(label + ": (worker, tier) pair listed more than once");
            }
            Double ref = r.getReferenceBytesPerSecond();
            if (ref != null && !SnapshotParameter.BANDWIDTH.inBounds(ref)) {
                own.rejections.add(label + ": reference bandwidth " + SnapshotParameter.format(ref) + " outside "
                    + SnapshotParameter.BANDWIDTH.boundsText());
                continue;
            }
            WorkerTierRho prev = activeRho.get(link(r));
            Double tierBandwidth = activeBandwidths.get(r.getTier());
            FittedValue prevHere = prev == null ? null : onReferenceOf(r, prev, tierBandwidth);
            // on its own reference R, what is negligible of BW_t is negligible·BW_t/R of R
            double negligible = SnapshotParameter.RHO.negligible();
            Double inUse = tierBandwidth != null ? tierBandwidth : candidateBandwidths.get(r.getTier());
            if (ref != null && inUse != null && inUse > 0 && ref > inUse) {
                negligible *= inUse / ref;
                label += " (of " + SnapshotParameter.format(ref) + " bytes/s, its own reference)";
            }
            Verdict verdict = values.check(label, SnapshotParameter.RHO, r.getRho(), prevHere,
                prevHere != null ? prevHere.getValue() : 0.0, minRhoSamples, true, negligible, own);
            if (verdict == Verdict.HOLD) {
                if (prev != null) {
                    rhos.add(WorkerTierRho.newBuilder(r).setRho(FittedValues.carried(prev.getRho()))
                        .setReferenceBytesPerSecond(prev.getReferenceBytesPerSecond()).build());
                }
                // no active entry: dropped (a missing pair means 0)
            } else {
                rhos.add(r);
            }
        }
        ctx.rejections.addAll(listed(own.rejections, "ρ entries rejected as well"));
        ctx.held.addAll(listed(own.held, "held: ρ entries held as well"));
        ctx.notes.addAll(listed(own.notes, "notes on ρ entries as well"));
        ctx.refusedJumps.addAll(own.refusedJumps);
        ctx.confirmedJumps.addAll(own.confirmedJumps);
        ctx.passedFits.addAll(own.passedFits);
        return rhos;
    }

    /** The first {@link #LISTED} lines, and one counting the rest ("…: N more, not listed"). */
    static List<String> listed(List<String> lines, String more) {
        if (lines.size() <= LISTED) {
            return lines;
        }
        List<String> out = new ArrayList<>(lines.subList(0, LISTED));
        out.add(more + ": " + (lines.size() - LISTED) + " more, not listed");
        return out;
    }

    /**
     * The active entry's ρ on the candidate entry's reference: their own, else the active BW_t of the tier (null when
     * the active snapshot has none: then both as published).
     */
    private static FittedValue onReferenceOf(WorkerTierRho candidate, WorkerTierRho active, Double activeBandwidth) {
        Double from = active.getReferenceBytesPerSecond() != null ? active.getReferenceBytesPerSecond() : activeBandwidth;
        Double to = candidate.getReferenceBytesPerSecond() != null ? candidate.getReferenceBytesPerSecond()
            : activeBandwidth;
        if (from == null || to == null || from.doubleValue() == to.doubleValue() || !(from > 0) || !(to > 0)) {
            return active.getRho();
        }
        return FittedValues.rhoScaled(active.getRho(), from / to);
    }

    private static String link(WorkerTierRho r) {
        return r.getWorker() + "\u0000" + r.getTier();
    }
}
