package io.tierroute.fitter.bandwidth;

import io.tierroute.fitter.OutcomeCounts;

import io.tierroute.fitter.Estimate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * ρ_t EWMA and peak bandwidth for every (worker, tier) link, keyed. The per-tier BW_t of a snapshot is
 * the median over links of their peak (robust to one misreporting worker). A link whose worker left the fleet
 * is dropped by {@link #retireSilentBefore} (its owner's clock decides when: the fitting job's event time);
 * one that comes back starts afresh, as a link silent that long would anyway (the EWMA resets after maxGap, the
 * peak's buckets have aged out). Not thread-safe.
 */
public final class RhoTracker {
    private static final class Link {
        final RhoEwma rho;
        final PeakBandwidth peak;

        Link(RhoConfig config) {
            rho = new RhoEwma(config);
            peak = new PeakBandwidth(config);
        }
    }

    private final RhoConfig config;
    private final Map<LinkKey, Link> links = new HashMap<>();
    private final OutcomeCounts<RhoOutcome> outcomes = new OutcomeCounts<>(RhoOutcome.class);

    public RhoTracker(RhoConfig config) {
        this.config = config;
    }

    /**
     * Offers one telemetry link sample. The peak estimate sees the sample only if the EWMA accepted it
     * (so duplicates are not double counted).
     */
    public RhoOutcome update(LinkKey link, long endTimeMs, long intervalMs, long bytes, double bandwidthBytesPerSecond) {
        RhoOutcome check = RhoEwma.check(intervalMs, bytes, bandwidthBytesPerSecond);
        RhoOutcome outcome;
        if (check != RhoOutcome.ACCEPTED) {
            outcome = check;
        } else {
            Link l = links.computeIfAbsent(link, k -> new Link(config));
            outcome = l.rho.update(endTimeMs, intervalMs, bytes, bandwidthBytesPerSecond);
            if (outcome.accepted()) {
                l.peak.update(endTimeMs, intervalMs, bytes);
            }
        }
        return outcomes.tally(outcome);
    }

    /**
     * Drops the links with no sample ending at or after {@code cutoffMs}: a worker that left (scaled in, replaced)
     * would otherwise be published with its last ρ forever and keep its stale peak in every tier's median. Returns
     * the links dropped.
     */
    public List<LinkKey> retireSilentBefore(long cutoffMs) {
        List<LinkKey> retired = new ArrayList<>();
        links.entrySet().removeIf(e -> {
            boolean silent = e.getValue().rho.lastEndMs() < cutoffMs; // a link exists only once a sample was accepted
            if (silent) {
                retired.add(e.getKey());
            }
            return silent;
        });
        return retired;
    }

    /** How many samples ended with the given outcome. */
    public long count(RhoOutcome outcome) {
        return outcomes.count(outcome);
    }

    public Set<LinkKey> links() {
        return Collections.unmodifiableSet(links.keySet());
    }

    /** {@link RhoEwma#rescale} of every link of {@code tier}: its BW_t changed from old to new, factor old / new. */
    public void rescaleTier(String tier, double factor) {
        for (Map.Entry<LinkKey, Link> e : links.entrySet()) {
            if (e.getKey().tier().equals(tier)) {
                e.getValue().rho.rescale(factor);
            }
        }
    }

    public Optional<Estimate> rho(LinkKey link) {
        Link l = links.get(link);
        return l == null || !l.rho.hasValue() ? Optional.empty() : Optional.of(l.rho.estimate());
    }

    public Optional<RhoEwma> rhoState(LinkKey link) {
        return Optional.ofNullable(links.get(link)).map(l -> l.rho);
    }

    public Optional<Estimate> peak(LinkKey link) {
        Link l = links.get(link);
        return l == null || !l.peak.hasValue() ? Optional.empty() : Optional.of(l.peak.estimate());
    }

    /**
     * BW_t for one tier: the median over that tier's links of their peak (upper median for an even
     * count); samples summed, window the union, quality the median link's spread.
     */
    public Optional<Estimate> tierPeak(String tier) {
        List<Estimate> peaks = new ArrayList<>();
        for (Map.Entry<LinkKey, Link> e : links.entrySet()) {
            if (e.getKey().tier().equals(tier) && e.getValue().peak.hasValue()) {
                peaks.add(e.getValue().peak.estimate());
            }
        }
        if (peaks.isEmpty()) {
            return Optional.empty();
        }
        peaks.sort((a, b) -> Double.compare(a.value(), b.value()));
        Estimate median = peaks.get(peaks.size() / 2);
        long samples = 0;
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        for (Estimate p : peaks) {
            samples += p.samples();
            start = Math.min(start, p.windowStartMs());
            end = Math.max(end, p.windowEndMs());
        }
        return Optional.of(new Estimate(median.value(), median.stdError(), samples, median.quality(),
            median.qualityKind(), start, end));
    }
}
