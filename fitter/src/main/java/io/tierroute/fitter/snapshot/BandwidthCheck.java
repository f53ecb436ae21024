package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The {@link ValidationGate}'s pass over the candidate's BW_t: REJECTS a BW_t for HBM, a tier listed twice and a
 * missing non-HBM tier; checks each tier's value against the active one ({@link ValueCheck}, minBandwidthSamples);
 * and builds the bandwidths the gated snapshot carries, a held tier kept at the active value, carried (or, without
 * one, at the configured default).
 */
final class BandwidthCheck {
    private BandwidthCheck() {
    }

    /** The bandwidths of the gated snapshot; every problem goes to {@code ctx}. */
    static List<TierBandwidth> check(ValueCheck values, long minBandwidthSamples, ParameterSnapshot candidate,
            ParameterSnapshot active, GateFindings ctx) {
        List<TierBandwidth> bws = new ArrayList<>();
        Set<Tier> seenTiers = EnumSet.noneOf(Tier.class);
        for (TierBandwidth tb : candidate.getBandwidths()) {
            Tier t = tb.getTier();
            String label = "bandwidth[" + t + "]";
            if (t == Tier.HBM) {
                ctx.rejections.add(label + ": BW_t is defined only for non-HBM tiers");
            }
            if (!seenTiers.add(t)) {
                ctx.rejections.add(label + ": tier listed more than once");
            }
            FittedValue actBw = active == null ? null : activeBandwidth(active, t);
            Double act = actBw == null ? null : actBw.getValue();
            Verdict verdict = values.check(label, SnapshotParameter.BANDWIDTH, tb.getBytesPerSecond(), actBw, act,
                minBandwidthSamples, false, ctx);
            if (verdict == Verdict.HOLD && actBw != null) {
                bws.add(TierBandwidth.newBuilder().setTier(t).setBytesPerSecond(FittedValues.carried(actBw)).build());
            } else if (verdict == Verdict.HOLD) {
                double def = SnapshotAssembler.DEFAULT_BANDWIDTHS.getOrDefault(t, tb.getBytesPerSecond().getValue());
                bws.add(TierBandwidth.newBuilder().setTier(t).setBytesPerSecond(FittedValues.carried(def)).build());
            } else {
                bws.add(tb);
            }
        }
        for (Tier t : Tier.values()) {
            if (t != Tier.HBM && !seenTiers.contains(t)) {
                ctx.rejections.add("bandwidth[" + t + "]: missing (every non-HBM tier needs a BW_t)");
            }
        }
        return bws;
    }

    private static FittedValue activeBandwidth(ParameterSnapshot active, Tier t) {
        for (TierBandwidth tb : active.getBandwidths()) {
            if (tb.getTier() == t) {
                return tb.getBytesPerSecond();
            }
        }
        return null;
    }
}
