package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.snapshot.SnapshotParameter;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.fitter.Estimate;
import io.tierroute.fitter.bandwidth.LinkKey;
import io.tierroute.fitter.regression.Coefficient;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.WorkerTierRho;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Builds one {@link ParameterSnapshot} (status CANDIDATE) per scope from the estimators' results
 * (DESIGN.md §5). Stateless apart from its configuration; the caller keeps the per-scope history.
 *
 * <ul>
 *   <li><b>Version.</b> {@code max(latestVersion, active.version) + 1}, where {@code latestVersion} is
 *       the newest version ever recorded for the scope (accepted or rejected, 0 if none), so versions are
 *       strictly increasing even across rejected candidates. {@code parentVersion} = the active version
 *       (the one the gate will compare against), null when there is none.</li>
 *   <li><b>Fitted values</b> carry the estimator's value, sample count, quality (kind + figure),
 *       standard error (null when the estimator gives none; +∞ kept: "no information") and event-time
 *       window. α_p … α_wf2 and Q_slack come from the {@code LatencyFit} (quality R²), λ from the
 *       {@code DecayFit} (quality SE), ρ per (worker, tier) and BW_t per tier from the ρ tracker.</li>
 *   <li><b>Values the fit does not cover</b> (no regression / no λ fit yet, a tier without a peak) carry
 *       the active snapshot's value, or the DESIGN.md §3 default (BW_t: {@link #DEFAULT_BANDWIDTHS}) when
 *       there is no active snapshot, with <b>samples 0</b> ("not fitted in this version, inherited"),
 *       quality NONE and no SE. The window tells where the value came from: a value carried from the active
 *       snapshot keeps its window (the window of the fit it came from, however many versions ago), a
 *       default has window [0, 0) ({@link FittedValues#carried(FittedValue)}). So a reader can tell a
 *       carried fit from a default no snapshot ever fitted: the selector applies a carried BW_t but keeps a
 *       worker's configured link instead of a default one. Every non-HBM tier always has a BW_t.</li>
 *   <li><b>ρ is not carried</b>: it is a 10-s EWMA of live utilisation, stale within a minute, and the
 *       schema defines a missing pair as 0. Only links the tracker has a value for are written (sorted by
 *       worker, then tier).</li>
 *   <li><b>Quantile model</b>: the one passed in, else the active snapshot's (possibly null).</li>
 * </ul>
 */
public final class SnapshotAssembler {
    static {
        // Avro 1.12.2 refuses to deep-copy (newBuilder(other)) generated enums unless their package is trusted.
        AvroTrust.install();
    }

    /** DESIGN.md §3 configured BW_t, bytes/s: PCIe Gen5 64 GB/s (CPU), NVMe 7 GB/s, RDMA 25 GB/s (REMOTE). */
    public static final Map<Tier, Double> DEFAULT_BANDWIDTHS =
        Map.of(Tier.CPU, 64e9, Tier.NVME, 7e9, Tier.REMOTE, 25e9);

    private final String producer;
    private final LongSupplier clockMs;
    private final Map<Tier, Double> defaultBandwidths;

    /** With {@link #DEFAULT_BANDWIDTHS}. */
    public SnapshotAssembler(String producer, LongSupplier clockMs) {
        this(producer, clockMs, DEFAULT_BANDWIDTHS);
    }

    /**
     * @param producer job name written into every snapshot
     * @param clockMs wall clock, ms since epoch (createdAtMs)
     * @param defaultBandwidths BW_t per non-HBM tier used when neither the fit nor an active snapshot has
     *     one; must cover CPU, NVME and REMOTE
     */
    public SnapshotAssembler(String producer, LongSupplier clockMs, Map<Tier, Double> defaultBandwidths) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
        EnumMap<Tier, Double> bw = new EnumMap<>(Tier.class);
        for (Tier t : Tier.values()) {
            if (t != Tier.HBM) {
                Double v = defaultBandwidths.get(t);
                if (v == null) {
                    throw new IllegalArgumentException("no default bandwidth for tier " + t);
                }
                bw.put(t, v);
            }
        }
        this.defaultBandwidths = bw;
    }

    /**
     * Below this fraction of the configured speed, an observed peak is no evidence of the link's speed, only of how
     * little it was used.
     */
    public static final double MIN_PEAK_FRACTION_OF_CONFIGURED = 0.5;

    /**
     * Whether an observed peak may stand as the tier's BW_t. A peak is a lower bound of the link's speed: the largest
     * bytes a telemetry interval (1 s) moved, which a link used in bursts fills only in part (a 40 MB load a minute on
     * a 7 GB/s NVMe link peaks at 40 MB/s). Taken as BW_t, such a peak prices the tier ~180× too high, puts ρ at the
     * cut-off, and the router then avoids the tier, which keeps its peak low. So a peak above the configured speed
     * raises BW_t (a link is at least as fast as it was seen to be), one from half of it up lowers it (a link that tops
     * out there is slower than configured), and one below half is carried over, as an idle link's (0, or under any
     * real link's speed, which the gate would reject with the snapshot's good values) always was; but a peak above the
     * value in force raises it ({@link #assemble}).
     */
    static boolean speaksForTheLink(Estimate peak, double configured) {
        return withinBounds(peak) && peak.value() >= MIN_PEAK_FRACTION_OF_CONFIGURED * configured;
    }

    /** A peak the gate's BW_t bounds admit (above any unit error's; a link's running total in restored state is not). */
    private static boolean withinBounds(Estimate peak) {
        return peak != null && SnapshotParameter.BANDWIDTH.inBounds(peak.value());
    }

    /**
     * @param scope the scope ("default", a model, engine type or hardware pool)
     * @param latestVersion newest version recorded for this scope in any status, 0 when none
     * @param active the scope's active snapshot, or null (defaults apply)
     * @param fits what the estimators produced
     * @return a CANDIDATE snapshot, not yet validated
     * @throws IllegalArgumentException if {@code active} belongs to another scope or latestVersion < 0
     */
    public ParameterSnapshot assemble(String scope, long latestVersion, ParameterSnapshot active, FitResults fits) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(fits, "fits");
        if (latestVersion < 0) {
            throw new IllegalArgumentException("latestVersion must be >= 0: " + latestVersion);
        }
        if (active != null && !scope.equals(active.getScope())) {
            throw new IllegalArgumentException("active snapshot is for scope " + active.getScope() + ", not " + scope);
        }
        long base = Math.max(latestVersion, active == null ? 0 : active.getVersion());
        ParameterSnapshot.Builder b = ParameterSnapshot.newBuilder()
            .setScope(scope)
            .setVersion(Math.addExact(base, 1))
            .setParentVersion(active == null ? null : active.getVersion())
            .setProducer(producer)
            .setCreatedAtMs(clockMs.getAsLong())
            .setStatus(SnapshotStatus.CANDIDATE)
            .setRejectReasons(new ArrayList<>());

        for (SnapshotParameter p : SnapshotParameter.SCALARS) {
            Estimate e = fitted(p, fits);
            p.set(b, e != null ? FittedValues.of(e) : carried(p, active));
        }

        List<TierBandwidth> bws = new ArrayList<>();
        for (Tier t : defaultBandwidths.keySet()) {
            Estimate e = fits.bandwidths().get(t);
            FittedValue prev = active == null ? null : activeBandwidth(active, t);
            // A peak above the value in force raises it whatever its size (a link is at least as fast as it was seen
            // to be): a value in force from a light link's peak (published before the rule below) is not kept for good.
            // The configured speed cannot simply replace it: the gate refuses an inherited value that is not the active
            // one, and would reject every snapshot; a jump of a fitted peak it holds once, then applies.
            boolean raises = prev != null && withinBounds(e) && e.value() > prev.getValue();
            FittedValue v = speaksForTheLink(e, defaultBandwidths.get(t)) || raises ? FittedValues.of(e)
                    : prev != null ? FittedValues.carried(prev) : FittedValues.carried(defaultBandwidths.get(t));
            bws.add(TierBandwidth.newBuilder().setTier(t).setBytesPerSecond(v).build());
        }
        b.setBandwidths(bws);

        List<WorkerTierRho> rho = new ArrayList<>();
        fits.rho().entrySet().stream()
            .sorted(Comparator.comparing((Map.Entry<LinkKey, Estimate> en) -> en.getKey().worker())
                .thenComparing(en -> Tier.valueOf(en.getKey().tier())))
            .forEach(en -> rho.add(WorkerTierRho.newBuilder()
                .setWorker(en.getKey().worker())
                .setTier(Tier.valueOf(en.getKey().tier()))
                .setRho(FittedValues.of(en.getValue()))
                .setReferenceBytesPerSecond(fits.rhoReferences().get(en.getKey()))
                .build()));
        b.setRho(rho);

        b.setQuantileModel(fits.quantileModel() != null ? fits.quantileModel()
            : active == null ? null : active.getQuantileModel());
        return b.build();
    }

    private static Estimate fitted(SnapshotParameter p, FitResults fits) {
        switch (p) {
            case LAMBDA:
                return fits.decay() == null ? null : fits.decay().lambda();
            case Q_SLACK:
                return fits.latency() == null ? null : fits.latency().qSlack();
            case DECODE_STEP_US:
                return fits.kvWait() == null ? null : fits.kvWait().tau0();
            case DECODE_STEP_KV_US:
                return fits.kvWait() == null ? null : fits.kvWait().perKvToken();
            case KV_WAIT_SCALE:
                return fits.kvWait() == null ? null : fits.kvWait().scaleEstimate();
            default:
                if (fits.latency() == null) {
                    return null;
                }
                for (Coefficient c : Coefficient.values()) {
                    if (c.snapshotField().equals(p.field())) {
                        return fits.latency().get(c);
                    }
                }
                throw new IllegalStateException("no coefficient for " + p);
        }
    }

    private static FittedValue carried(SnapshotParameter p, ParameterSnapshot active) {
        return active == null ? FittedValues.carried(p.defaultValue()) : FittedValues.carried(p.get(active));
    }

    /** The BW_t values of {@code s} per tier (the first listed of a tier); empty for null. */
    public static Map<Tier, Double> bandwidths(ParameterSnapshot s) {
        Map<Tier, Double> out = new EnumMap<>(Tier.class);
        if (s != null) {
            for (TierBandwidth tb : s.getBandwidths()) {
                out.putIfAbsent(tb.getTier(), tb.getBytesPerSecond().getValue());
            }
        }
        return out;
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
