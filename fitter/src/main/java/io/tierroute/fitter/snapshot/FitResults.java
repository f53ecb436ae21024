package io.tierroute.fitter.snapshot;

import io.tierroute.fitter.Estimate;
import io.tierroute.fitter.bandwidth.LinkKey;
import io.tierroute.fitter.bandwidth.RhoTracker;
import io.tierroute.fitter.decay.DecayFit;
import io.tierroute.fitter.kvwait.KvWaitFit;
import io.tierroute.fitter.regression.LatencyFit;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.Tier;
import java.util.HashMap;
import java.util.Map;

/**
 * What the estimators of one scope produced since the last snapshot; any part may be absent (no data
 * yet), and {@link SnapshotAssembler} then carries the active snapshot's value (or the default).
 *
 * @param latency the latency regression (α_p … α_wf2 and Q_slack), or null
 * @param rho ρ_t(w) per (worker, tier) link (tier = an Avro {@link Tier} symbol); empty when none
 * @param bandwidths BW_t per non-HBM tier, bytes/s; empty when none
 * @param decay the λ fit, or null
 * @param quantileModel the output-length forest, already in its Avro form, or null
 * @param kvWait the admission wait's τ₀, α and k, or null
 * @param rhoReferences for the links of {@code rho} measured against their own fastest rate instead of the tier's
 *     BW_t in use, that rate in bytes/s ({@link RhoTracker#ownReference}); empty when none
 */
public record FitResults(LatencyFit latency, Map<LinkKey, Estimate> rho, Map<Tier, Estimate> bandwidths,
        DecayFit decay, QuantileForestModel quantileModel, KvWaitFit kvWait, Map<LinkKey, Double> rhoReferences) {

    public FitResults {
        rho = Map.copyOf(rho == null ? Map.of() : rho);
        bandwidths = Map.copyOf(bandwidths == null ? Map.of() : bandwidths);
        rhoReferences = Map.copyOf(rhoReferences == null ? Map.of() : rhoReferences);
    }

    /** Every ρ measured against its tier's BW_t. */
    public FitResults(LatencyFit latency, Map<LinkKey, Estimate> rho, Map<Tier, Estimate> bandwidths,
            DecayFit decay, QuantileForestModel quantileModel, KvWaitFit kvWait) {
        this(latency, rho, bandwidths, decay, quantileModel, kvWait, Map.of());
    }

    /** Without an admission-wait fit. */
    public FitResults(LatencyFit latency, Map<LinkKey, Estimate> rho, Map<Tier, Estimate> bandwidths,
            DecayFit decay, QuantileForestModel quantileModel) {
        this(latency, rho, bandwidths, decay, quantileModel, null);
    }

    /** The same results with the admission wait's fit. */
    public FitResults withKvWait(KvWaitFit fit) {
        return new FitResults(latency, rho, bandwidths, decay, quantileModel, fit, rhoReferences);
    }

    /** The same results with the links' own ρ references. */
    public FitResults withRhoReferences(Map<LinkKey, Double> references) {
        return new FitResults(latency, rho, bandwidths, decay, quantileModel, kvWait, references);
    }

    /** Nothing fitted: every parameter is carried over. */
    public static FitResults empty() {
        return new FitResults(null, Map.of(), Map.of(), null, null);
    }

    /**
     * From the estimators: ρ from every link of the tracker that has a value (with its own reference where it has
     * one), BW_t = the tracker's per-tier peak (median over links) for every non-HBM tier that has one.
     *
     * @throws IllegalArgumentException if a link's tier is not an Avro {@link Tier} symbol
     */
    public static FitResults of(LatencyFit latency, RhoTracker tracker, DecayFit decay,
            QuantileForestModel quantileModel) {
        Map<LinkKey, Estimate> rho = new HashMap<>();
        Map<Tier, Estimate> bw = new HashMap<>();
        Map<LinkKey, Double> references = new HashMap<>();
        if (tracker != null) {
            for (LinkKey link : tracker.links()) {
                Tier.valueOf(link.tier());
                tracker.rho(link).ifPresent(e -> rho.put(link, e));
                tracker.ownReference(link).ifPresent(r -> references.put(link, r));
            }
            for (Tier t : Tier.values()) {
                if (t != Tier.HBM) {
                    tracker.tierPeak(t.name()).ifPresent(e -> bw.put(t, e));
                }
            }
        }
        return new FitResults(latency, rho, bw, decay, quantileModel, null, references);
    }
}
