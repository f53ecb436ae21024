package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.WorkerTierRho;

import java.util.Optional;

/**
 * Whether a selector can apply a snapshot's values: every scalar present, finite and inside its physical bounds
 * ({@link SnapshotParameter}), every BW_t of a non-HBM tier in bounds, every ρ (and its own reference bandwidth) in
 * bounds. The fitter's gate enforces the same table before it publishes; a record that never passed it (a writer
 * other than the job, a corrupted one) is marked ACCEPTED all the same, and selectors then serve the highest usable
 * version the activation rule would pick without it. Two readers ask: the selector's snapshot converter, which refuses
 * such a version, and the dashboard and CLI, which show that selectors do not serve it. The quantile forest is not
 * judged here: a forest the selector cannot walk leaves the rest of the version usable (the selector keeps its output
 * model in use).
 */
public final class SnapshotUsability {

    private SnapshotUsability() {
    }

    /** Why a selector cannot apply {@code s} (the first value it would refuse, named as a field path), or empty. */
    public static Optional<String> problem(ParameterSnapshot s) {
        try {
            check(s);
            return Optional.empty();
        } catch (Unusable e) {
            return Optional.of(e.getMessage());
        }
    }

    private static void check(ParameterSnapshot s) {
        for (SnapshotParameter p : SnapshotParameter.SCALARS) {
            inBounds(p, p.field(), value(p.get(s), p.field()));
        }
        if (s.getBandwidths() != null) {
            for (TierBandwidth bw : s.getBandwidths()) {
                Tier t = tier(bw.getTier(), "bandwidths");
                double v = value(bw.getBytesPerSecond(), "bandwidths[" + t + "]");
                if (t == Tier.HBM) {
                    throw new Unusable("bandwidths: HBM has no transfer bandwidth, got " + v);
                }
                inBounds(SnapshotParameter.BANDWIDTH, "bandwidths[" + t + "]", v);
            }
        }
        if (s.getRho() != null) {
            for (WorkerTierRho r : s.getRho()) {
                String name = r.getWorker() == null ? null : r.getWorker().toString();
                Tier t = tier(r.getTier(), "rho[" + name + "]");
                String field = "rho[" + name + "][" + t + "]";
                inBounds(SnapshotParameter.RHO, field, value(r.getRho(), field));
                Double reference = r.getReferenceBytesPerSecond();
                if (reference != null) {
                    inBounds(SnapshotParameter.BANDWIDTH, field + ".referenceBytesPerSecond", reference);
                }
            }
        }
    }

    private static void inBounds(SnapshotParameter p, String field, double v) {
        if (!p.inBounds(v)) {
            throw new Unusable(field + " = " + SnapshotParameter.format(v) + " is outside its physical bounds "
                    + p.boundsText());
        }
    }

    private static double value(FittedValue v, String field) {
        if (v == null) {
            throw new Unusable(field + " is missing");
        }
        double x = v.getValue();
        if (!Double.isFinite(x)) {
            throw new Unusable(field + " must be finite, got " + x);
        }
        return x;
    }

    private static Tier tier(Tier t, String field) {
        if (t == null) {
            throw new Unusable(field + ": tier is missing");
        }
        return t;
    }

    /** The first refused value; carries no stack trace (it is an answer, not a failure). */
    private static final class Unusable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unusable(String message) {
            super(message, null, false, false);
        }
    }
}
