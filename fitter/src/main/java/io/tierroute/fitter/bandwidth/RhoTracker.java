package io.tierroute.fitter.bandwidth;

import io.tierroute.fitter.OutcomeCounts;

import io.tierroute.fitter.Estimate;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * ρ_t EWMA and peak bandwidth for every (worker, tier) link, keyed. The per-tier BW_t of a snapshot is
 * the median over links of their peak (robust to one misreporting worker). A link whose worker left the fleet
 * is dropped by {@link #retireSilentBefore} (its owner's clock decides when: the fitting job's event time);
 * one that comes back starts afresh, as a link silent that long would anyway (the EWMA resets after maxGap, the
 * peak's buckets have aged out).
 *
 * <p><b>What ρ is measured against.</b> A link's ρ is bytes over (reference·Δt), the reference being the tier's BW_t in
 * use or, when higher, the fastest rate this link was seen moving (in a sample long enough for the peak estimate,
 * at most BW_t's upper bound). Against the tier's BW_t alone, a link faster than it (NVMe at 14 GB/s while BW_t is
 * DESIGN's never-fitted 7 GB/s) saturated at ρ = 1 from half its speed on, and a reader that puts ρ on the link's own
 * speed (ρ·reference / speed) read it at 0.5 at most: never past the cut-off ρ_thr, its load priced at twice its
 * transfer time instead. A reference at least every rate seen loses nothing to the clamp, so ρ·reference is the
 * link's byte rate whatever the reference; {@link #ownReference} says which it is. The reference only rises while
 * the link lives in this tracker (a burst counted wrong raises it for good, which costs ρ precision, not its meaning;
 * a job restored rebuilds it from the telemetry it replays). Not thread-safe.
 */
public final class RhoTracker {
    /** The highest reference a link gets, bytes/s: BW_t's upper bound (a faster rate is a counting error). */
    static final double MAX_REFERENCE = SnapshotParameter.BANDWIDTH.upper();

    private static final class Link {
        final RhoEwma rho;
        final PeakBandwidth peak;
        /** Bytes/s the EWMA is measured against; NaN before the first sample. */
        double reference = Double.NaN;
        /** The tier's BW_t the reference was last taken from. */
        double tierBandwidth = Double.NaN;
        /** The fastest rate of an accepted sample of at least minPeakIntervalMs, bytes/s (capped); 0 before one. */
        double fastest;
        /** When its last sample was taken, in the tracker's arrival order ({@link #retireOldestBeyond}). */
        long lastArrival;

        Link(RhoConfig config) {
            rho = new RhoEwma(config);
            peak = new PeakBandwidth(config);
        }

        /** Measures the EWMA against {@code newReference} from now on, putting what it holds on it. */
        void measureAgainst(double newReference) {
            if (!Double.isNaN(reference) && newReference != reference) {
                rho.rescale(reference / newReference);
            }
            reference = newReference;
        }
    }

    private final RhoConfig config;
    private final Map<LinkKey, Link> links = new HashMap<>();
    /** Counts the samples links took, in arrival order. */
    private long arrivals;
    private final OutcomeCounts<RhoOutcome> outcomes = new OutcomeCounts<>(RhoOutcome.class);

    public RhoTracker(RhoConfig config) {
        this.config = config;
    }

    /**
     * Offers one telemetry link sample, {@code bandwidthBytesPerSecond} being the tier's BW_t in use. The peak
     * estimate and the link's reference see the sample only if the EWMA accepts it (so duplicates are not double
     * counted).
     */
    public RhoOutcome update(LinkKey link, long endTimeMs, long intervalMs, long bytes, double bandwidthBytesPerSecond) {
        RhoOutcome check = RhoEwma.check(intervalMs, bytes, bandwidthBytesPerSecond);
        RhoOutcome outcome;
        if (check != RhoOutcome.ACCEPTED) {
            outcome = check;
        } else {
            Link l = links.computeIfAbsent(link, k -> new Link(config));
            if (!l.rho.inOrder(endTimeMs)) {
                outcome = l.rho.update(endTimeMs, intervalMs, bytes, l.reference); // refused: a duplicate, or out of order
            } else {
                double fastest = intervalMs >= config.minPeakIntervalMs()
                    ? Math.max(l.fastest, Math.min(MAX_REFERENCE, bytes * 1000.0 / intervalMs)) : l.fastest;
                l.fastest = fastest;
                l.tierBandwidth = bandwidthBytesPerSecond;
                l.measureAgainst(Math.max(bandwidthBytesPerSecond, fastest));
                outcome = l.rho.update(endTimeMs, intervalMs, bytes, l.reference);
                l.peak.update(endTimeMs, intervalMs, bytes);
                l.lastArrival = ++arrivals;
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

    /**
     * Drops the links whose last sample arrived longest ago until at most {@code maxLinks} are left; returns them. Links
     * are otherwise retired only by {@link #retireSilentBefore}, which its owner's event time drives: while that stalls
     * (a lagging input partition), workers that come and go (a pod name per restart) would pile up for ever. By arrival,
     * not by the samples' own times: the live workers behind that lagging partition have the oldest of those.
     */
    public List<LinkKey> retireOldestBeyond(int maxLinks) {
        int excess = links.size() - maxLinks;
        if (excess <= 0) {
            return List.of();
        }
        List<Map.Entry<LinkKey, Link>> oldestFirst = new ArrayList<>(links.entrySet());
        oldestFirst.sort(Map.Entry.comparingByValue(java.util.Comparator.comparingLong(l -> l.lastArrival)));
        List<LinkKey> retired = new ArrayList<>(excess);
        for (Map.Entry<LinkKey, Link> e : oldestFirst.subList(0, excess)) {
            retired.add(e.getKey());
        }
        retired.forEach(links::remove);
        return retired;
    }

    /** How many samples ended with the given outcome. */
    public long count(RhoOutcome outcome) {
        return outcomes.count(outcome);
    }

    public Set<LinkKey> links() {
        return Collections.unmodifiableSet(links.keySet());
    }

    /**
     * The tier's BW_t in use is now {@code bytesPerSecond}: every link of {@code tier} is measured against it, or
     * against its own fastest rate where higher, and what its EWMA holds is put on that reference ({@link
     * RhoEwma#rescale}): the EWMA would otherwise mix utilisations of two speeds for as long as its memory lasts.
     */
    public void measureTierAgainst(String tier, double bytesPerSecond) {
        if (!(bytesPerSecond > 0) || Double.isInfinite(bytesPerSecond)) {
            throw new IllegalArgumentException("BW_t must be finite and > 0, got " + bytesPerSecond);
        }
        for (Map.Entry<LinkKey, Link> e : links.entrySet()) {
            if (e.getKey().tier().equals(tier)) {
                Link l = e.getValue();
                l.tierBandwidth = bytesPerSecond;
                l.measureAgainst(Math.max(bytesPerSecond, l.fastest));
            }
        }
    }

    /**
     * The bytes/s the link's ρ is measured against when that is not the tier's BW_t in use (the link was seen moving
     * more); empty when it is the tier's BW_t, or for an unknown link.
     */
    public OptionalDouble ownReference(LinkKey link) {
        Link l = links.get(link);
        return l == null || !(l.reference > l.tierBandwidth) ? OptionalDouble.empty() : OptionalDouble.of(l.reference);
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
