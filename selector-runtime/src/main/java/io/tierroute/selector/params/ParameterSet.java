package io.tierroute.selector.params;

import io.tierroute.selector.protocol.Tier;

import java.util.Arrays;
import java.util.Objects;

/**
 * One immutable, complete set of everything the cost model reads that a snapshot can change: the
 * scalar parameters, per-worker link utilisation {@code ρ_t(w)} and the bandwidth it was measured against,
 * per-tier bandwidth overrides, and
 * the output-length model. The selector reads exactly one instance per route, so no decision ever
 * mixes two snapshots.
 */
public final class ParameterSet {

    private final String scope;
    private final long version;
    private final String source;
    private final CostParameters cost;
    private final double[] rho;               // [worker * Tier.COUNT + tier], 0..1
    private final double[] bandwidthOverride; // [tier] bytes/s, or NaN to use the configured value
    private final double[] rhoReference;      // [tier] bytes/s the ρ_t were measured against, or NaN: the link in use
    private final double[] linkRhoReference;  // [worker * Tier.COUNT + tier] a link's own reference, or NaN: its tier's
    private final long[] rhoAsOfMs;           // [worker * Tier.COUNT + tier] end of ρ's fitting window, ms; 0: does not age
    private final long oldestLiveRhoMs;       // the least rhoAsOfMs of a ρ > 0 that ages, or Long.MAX_VALUE
    private final int rhoAgedOutLinks;        // links whose ρ withRhoMeasuredBefore set to 0
    private final OutputLengthModel outputModel; // nullable
    private final long outputModelVersion;        // the snapshot version carrying it, 0: none, or not from a snapshot
    private final double outputQuantile;

    private ParameterSet(Builder b) {
        this.scope = Objects.requireNonNull(b.scope, "scope");
        this.version = b.version;
        this.source = Objects.requireNonNull(b.source, "source");
        this.cost = Objects.requireNonNull(b.cost, "cost");
        this.rho = b.rho.clone();
        this.bandwidthOverride = b.bandwidthOverride.clone();
        this.rhoReference = b.rhoReference.clone();
        this.linkRhoReference = b.linkRhoReference.clone();
        this.rhoAsOfMs = b.rhoAsOfMs.clone();
        this.rhoAgedOutLinks = b.rhoAgedOutLinks;
        this.outputModel = b.outputModel;
        this.outputModelVersion = b.outputModelVersion;
        this.outputQuantile = b.outputQuantile;
        for (int i = 0; i < rho.length; i++) {
            if (!(rho[i] >= 0 && rho[i] <= 1)) {
                throw new IllegalArgumentException("rho of worker " + (i / Tier.COUNT) + " tier "
                        + Tier.ofOrdinal(i % Tier.COUNT) + " must be in [0, 1], got " + rho[i]);
            }
            double ref = linkRhoReference[i];
            if (!Double.isNaN(ref) && !(ref > 0 && Double.isFinite(ref))) {
                throw new IllegalArgumentException("rho reference bandwidth of worker " + (i / Tier.COUNT) + " tier "
                        + Tier.ofOrdinal(i % Tier.COUNT) + " must be a finite number > 0 bytes/s, got " + ref);
            }
            if (rhoAsOfMs[i] < 0) {
                throw new IllegalArgumentException("rho of worker " + (i / Tier.COUNT) + " tier "
                        + Tier.ofOrdinal(i % Tier.COUNT) + " must be as of a time >= 0 ms, got " + rhoAsOfMs[i]);
            }
        }
        long oldest = Long.MAX_VALUE;
        for (int i = 0; i < rho.length; i++) {
            if (rho[i] > 0 && rhoAsOfMs[i] > 0) {
                oldest = Math.min(oldest, rhoAsOfMs[i]);
            }
        }
        this.oldestLiveRhoMs = oldest;
        for (int t = 0; t < Tier.COUNT; t++) {
            double bw = bandwidthOverride[t];
            if (!Double.isNaN(bw) && !(bw > 0 && Double.isFinite(bw))) {
                throw new IllegalArgumentException("bandwidth of tier " + Tier.ofOrdinal(t)
                        + " must be a finite number > 0 bytes/s, got " + bw);
            }
            double ref = rhoReference[t];
            if (!Double.isNaN(ref) && !(ref > 0 && Double.isFinite(ref))) {
                throw new IllegalArgumentException("rho reference bandwidth of tier " + Tier.ofOrdinal(t)
                        + " must be a finite number > 0 bytes/s, got " + ref);
            }
        }
        if (!(outputQuantile > 0 && outputQuantile < 1)) {
            throw new IllegalArgumentException("outputQuantile must be in (0, 1), got " + outputQuantile);
        }
    }

    /** The defaults of DESIGN.md §3 for {@code workers} workers: version 0, ρ = 0, no model. */
    public static ParameterSet defaults(int workers) {
        return builder(workers).build();
    }

    public static Builder builder(int workers) {
        return new Builder(workers);
    }

    public String scope() { return scope; }

    /** Snapshot version; 0 for the built-in defaults. */
    public long version() { return version; }

    /** Where this set came from ("defaults", a file path, a topic offset). */
    public String source() { return source; }

    public CostParameters cost() { return cost; }

    public int workers() { return rho.length / Tier.COUNT; }

    /** Utilisation {@code ρ_t(w)} of worker {@code w}'s link to tier {@code t}, in [0, 1]. */
    public double rho(int worker, int tier) {
        return rho[worker * Tier.COUNT + tier];
    }

    /**
     * Utilisation of worker {@code w}'s link to tier {@code t} when that link carries {@code linkBytesPerSecond}:
     * {@code ρ_t(w)·BW_ref/BW}, at most 1. The fitter measures ρ as bytes moved over the snapshot's BW_t (BW_ref);
     * where the selector uses another bandwidth for the link (the worker's configured one, because the snapshot's
     * BW_t is a never-fitted default), the same bytes are a different share of it. BW_ref is the link's own reference
     * where the snapshot gives one (a link the fitter saw moving more than BW_t), else the tier's. Without a reference
     * (no snapshot BW_t, or the one in use) ρ as published.
     */
    public double rhoOn(int worker, int tier, double linkBytesPerSecond) {
        int i = worker * Tier.COUNT + tier;
        double r = rho[i];
        double ref = linkRhoReference[i];
        if (Double.isNaN(ref)) {
            ref = rhoReference[tier];
        }
        if (Double.isNaN(ref) || ref == linkBytesPerSecond || r == 0 || !(linkBytesPerSecond > 0)) {
            return r;
        }
        return Math.min(1.0, r * ref / linkBytesPerSecond);
    }

    /**
     * This set with the ρ measured before {@code cutoffMs} set to 0, or this set when there is none: a ρ that no newer
     * snapshot replaced says how the link was, not how it is (the fitting job stopped, or its snapshots are rejected or
     * pinned away), and 0 is DESIGN's default for a link nothing is known of. A ρ without a fitting window (from a
     * parameter file, or a snapshot that gives none) does not age.
     */
    public ParameterSet withRhoMeasuredBefore(long cutoffMs) {
        if (oldestLiveRhoMs >= cutoffMs) {
            return this;
        }
        Builder b = toBuilder();
        b.rhoAgedOutLinks = rhoAgedOutLinks;
        for (int i = 0; i < rho.length; i++) {
            if (rho[i] > 0 && rhoAsOfMs[i] > 0 && rhoAsOfMs[i] < cutoffMs) {
                b.rho[i] = 0;
                b.rhoAgedOutLinks++;
            }
        }
        return b.build();
    }

    /** The end (ms since the epoch) of the oldest fitting window among the ρ that can age, or Long.MAX_VALUE. */
    public long oldestRhoAsOfMs() { return oldestLiveRhoMs; }

    /**
     * How many links' ρ {@link #withRhoMeasuredBefore} set to 0, in this set and the sets it was aged from (not in a set
     * rebuilt with {@link #toBuilder}).
     */
    public int rhoAgedOutLinks() { return rhoAgedOutLinks; }

    /** The bandwidth (bytes/s) the snapshot's ρ of tier {@code t} were measured against, or NaN. */
    public double rhoReference(int tier) {
        return rhoReference[tier];
    }

    /** The bandwidth of tier {@code t} in bytes/s when a snapshot overrides it, else NaN. */
    public double bandwidthOverride(int tier) {
        return bandwidthOverride[tier];
    }

    /** BW_t of a worker configured with {@code configured} bytes/s on tier {@code t}: the snapshot's override wins. */
    public double bandwidth(int tier, double configured) {
        double override = bandwidthOverride[tier];
        return Double.isNaN(override) ? configured : override;
    }

    /** The output-length model, or null when the snapshot carries none. */
    public OutputLengthModel outputModel() { return outputModel; }

    /**
     * The version of the params record that carries the output-length model in full (the snapshot's own, or the one
     * it names), so an operator can tell which forest is served after a retraining or a rollback; 0 when there is no
     * model or it came from a parameter file.
     */
    public long outputModelVersion() { return outputModelVersion; }

    /** The quantile of the output-length distribution used as {@code d̂}. */
    public double outputQuantile() { return outputQuantile; }

    public Builder toBuilder() {
        Builder b = new Builder(workers());
        b.scope = scope; b.version = version; b.source = source; b.cost = cost;
        System.arraycopy(rho, 0, b.rho, 0, rho.length);
        System.arraycopy(bandwidthOverride, 0, b.bandwidthOverride, 0, Tier.COUNT);
        System.arraycopy(rhoReference, 0, b.rhoReference, 0, Tier.COUNT);
        System.arraycopy(linkRhoReference, 0, b.linkRhoReference, 0, linkRhoReference.length);
        System.arraycopy(rhoAsOfMs, 0, b.rhoAsOfMs, 0, rhoAsOfMs.length); // a rebuilt set counts no aged links
        b.outputModel = outputModel; b.outputModelVersion = outputModelVersion; b.outputQuantile = outputQuantile;
        return b;
    }

    @Override
    public String toString() {
        return "ParameterSet{scope=" + scope + ", version=" + version + ", source=" + source + ", " + cost + "}";
    }

    public static final class Builder {
        private String scope = "default";
        private long version = 0;
        private String source = "defaults";
        private CostParameters cost = CostParameters.DEFAULTS;
        private final double[] rho;
        private final double[] linkRhoReference;
        private final long[] rhoAsOfMs;
        private int rhoAgedOutLinks;
        private final double[] bandwidthOverride = new double[Tier.COUNT];
        private final double[] rhoReference = new double[Tier.COUNT];
        private OutputLengthModel outputModel;
        private long outputModelVersion;
        private double outputQuantile = 0.5;

        private Builder(int workers) {
            if (workers <= 0) {
                throw new IllegalArgumentException("workers must be > 0, got " + workers);
            }
            rho = new double[workers * Tier.COUNT];
            linkRhoReference = new double[workers * Tier.COUNT];
            rhoAsOfMs = new long[workers * Tier.COUNT];
            Arrays.fill(linkRhoReference, Double.NaN);
            Arrays.fill(bandwidthOverride, Double.NaN);
            Arrays.fill(rhoReference, Double.NaN);
        }

        public Builder scope(String v) { scope = v; return this; }
        public Builder version(long v) { version = v; return this; }
        public Builder source(String v) { source = v; return this; }
        public Builder cost(CostParameters v) { cost = v; return this; }
        /** A ρ without a fitting window (it does not age), measured against its tier's reference. */
        public Builder rho(int worker, Tier tier, double v) { return rho(worker, tier, v, Double.NaN); }
        /** A ρ measured against the link's own reference, bytes/s, instead of the tier's (NaN: the tier's). */
        public Builder rho(int worker, Tier tier, double v, double referenceBytesPerSecond) {
            int i = worker * Tier.COUNT + tier.ordinal();
            rho[i] = v;
            linkRhoReference[i] = referenceBytesPerSecond;
            rhoAsOfMs[i] = 0;
            return this;
        }
        /**
         * A ρ as {@link #rho(int, Tier, double, double)}, measured up to {@code asOfMs} (ms since the epoch, the end of
         * its fitting window; 0: no window, it does not age).
         */
        public Builder rho(int worker, Tier tier, double v, double referenceBytesPerSecond, long asOfMs) {
            rho(worker, tier, v, referenceBytesPerSecond);
            rhoAsOfMs[worker * Tier.COUNT + tier.ordinal()] = asOfMs;
            return this;
        }
        public Builder bandwidth(Tier tier, double bytesPerSecond) { bandwidthOverride[tier.ordinal()] = bytesPerSecond; return this; }
        /** The bandwidth the snapshot's ρ of {@code tier} were measured against (its BW_t, fitted or not). */
        public Builder rhoReference(Tier tier, double bytesPerSecond) { rhoReference[tier.ordinal()] = bytesPerSecond; return this; }
        public Builder outputModel(OutputLengthModel v) { outputModel = v; return this; }
        public Builder outputModelVersion(long v) { outputModelVersion = v; return this; }
        public Builder outputQuantile(double v) { outputQuantile = v; return this; }

        public ParameterSet build() {
            return new ParameterSet(this);
        }
    }
}
