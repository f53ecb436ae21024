package io.tierroute.selector.kafka;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.WorkerTierRho;
import io.tierroute.schemas.snapshot.FittedProvenance;
import io.tierroute.schemas.snapshot.ModelCarrier;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import io.tierroute.schemas.snapshot.SnapshotUsability;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ForestOutputModel;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.protocol.WorkerRegistry;

import static io.tierroute.schemas.snapshot.SnapshotParameter.ALPHA_D;
import static io.tierroute.schemas.snapshot.SnapshotParameter.ALPHA_D2;
import static io.tierroute.schemas.snapshot.SnapshotParameter.ALPHA_HO;
import static io.tierroute.schemas.snapshot.SnapshotParameter.ALPHA_P;
import static io.tierroute.schemas.snapshot.SnapshotParameter.ALPHA_P2;
import static io.tierroute.schemas.snapshot.SnapshotParameter.ALPHA_T;
import static io.tierroute.schemas.snapshot.SnapshotParameter.ALPHA_WF;
import static io.tierroute.schemas.snapshot.SnapshotParameter.ALPHA_WF2;
import static io.tierroute.schemas.snapshot.SnapshotParameter.DECODE_STEP_KV_US;
import static io.tierroute.schemas.snapshot.SnapshotParameter.DECODE_STEP_US;
import static io.tierroute.schemas.snapshot.SnapshotParameter.KV_WAIT_SCALE;
import static io.tierroute.schemas.snapshot.SnapshotParameter.LAMBDA;
import static io.tierroute.schemas.snapshot.SnapshotParameter.Q_SLACK;

import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.atomic.LongAdder;

/**
 * Turns a {@link ParameterSnapshot} into the selector's {@link ParameterSet}: every α, {@code Q_slack},
 * {@code λ}, the per-tier bandwidths, the per-worker {@code ρ_t} mapped by worker NAME to the
 * selector's dense indices, and the quantile forest through {@link ForestOutputModel}. Values the
 * snapshot does not carry come from the configured base: {@code ρ_thr}, {@code ε} (rhoThreshold,
 * rhoEpsilon) and the output quantile.
 *
 * <p><b>Bandwidths.</b> A BW_t that was fitted (samples &gt; 0), or carried from an earlier fit (samples 0 with
 * that fit's window), overrides each worker's configured link for that tier. A BW_t no snapshot ever fitted
 * (samples 0 and window [0, 0): the fitter's DESIGN.md default, {@link FittedProvenance#neverFitted}) is checked
 * like any value but not applied: the configured links stay in force (override NaN), since a fleet's links
 * need not be the 64 GB/s PCIe of the default. The job measured that tier's ρ against the default all the same
 * (bytes moved over BW_t·Δt), so every snapshot BW_t is kept as the tier's ρ reference and the cost model rescales ρ
 * to the link it uses ({@link ParameterSet#rhoOn}): 12 GB/s on a 16 GB/s link is ρ 0.75, not the 0.19 it is of 64.
 * A ρ entry with its own {@code referenceBytesPerSecond} (a link seen moving more than BW_t) is rescaled from that.
 *
 * <p>A value the selector cannot use ({@link SnapshotUsability}: non-finite, outside the physical bounds of
 * {@link SnapshotParameter} — the table the fitter's gate enforces —; a structurally invalid forest) makes the whole
 * snapshot unusable: {@link #convert} throws {@link UnusableSnapshotException} and the caller keeps its last good set. {@link #convertKeepingModel}, which
 * the loader uses, makes an exception of the forest: the rest applies with the output model in use. A ρ for a worker this
 * selector does not have is ignored (logged by the caller, counted in {@link #unknownWorkers()}):
 * replicas may serve different pools. Thread-compatible: one loader thread uses it.
 */
public final class SnapshotConverter {

    private final WorkerRegistry workers;
    private final CostParameters base;
    private final double outputQuantile;
    private final LongAdder unknownWorkers = new LongAdder();

    /**
     * @param workers        the selector's workers (name → dense index)
     * @param base           the configured parameters: rhoThreshold and rhoEpsilon come from here
     * @param outputQuantile the configured quantile of the output-length model used as d̂
     */
    public SnapshotConverter(WorkerRegistry workers, CostParameters base, double outputQuantile) {
        this.workers = workers;
        this.base = base;
        this.outputQuantile = outputQuantile;
    }

    /** A snapshot the selector cannot apply; the message names the field and the value. */
    public static final class UnusableSnapshotException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnusableSnapshotException(String message) {
            super(message);
        }
    }

    /** ρ entries skipped because their worker is not configured here (all conversions so far). */
    public long unknownWorkers() {
        return unknownWorkers.sum();
    }

    /**
     * A snapshot converted with the output model in use in place of its own quantile forest, which the evaluator
     * refuses ({@code forestRefused} says why), or with its own ({@code forestRefused} null).
     */
    public record Conversion(ParameterSet parameters, String forestRefused) {}

    /**
     * Converts; {@code unknown} receives the names of ρ workers not configured here (may be null).
     *
     * @throws UnusableSnapshotException when a value cannot be used
     */
    public ParameterSet convert(ParameterSnapshot s, String source, TreeSet<String> unknown) {
        return convert(s, source, unknown, null, false).parameters();
    }

    /**
     * As {@link #convert(ParameterSnapshot, String, TreeSet)}, but a quantile forest the evaluator refuses (a record
     * from a job whose gate's check was lighter than the evaluator's, before both ran {@code ForestStructure}; a
     * corrupted or hand-written record) does not make the whole snapshot unusable: its scalars, BW_t and
     * ρ apply with the output model of {@code inUse} (none when null). Refused whole, every later version carrying or
     * naming the same forest was refused too, and the selector stayed on an old version until the next training.
     */
    public Conversion convertKeepingModel(ParameterSnapshot s, String source, TreeSet<String> unknown,
            ParameterSet inUse) {
        return convert(s, source, unknown, inUse, true);
    }

    private Conversion convert(ParameterSnapshot s, String source, TreeSet<String> unknown, ParameterSet inUse,
            boolean keepModel) {
        SnapshotUsability.problem(s).ifPresent(p -> {
            throw new UnusableSnapshotException(p);
        });
        // Every value below is present, finite and in bounds.
        CostParameters cost;
        try {
            cost = new CostParameters(scalar(s, ALPHA_P), scalar(s, ALPHA_P2), scalar(s, ALPHA_D),
                    scalar(s, ALPHA_D2), scalar(s, ALPHA_T), scalar(s, ALPHA_HO), scalar(s, Q_SLACK),
                    scalar(s, ALPHA_WF), scalar(s, LAMBDA), scalar(s, ALPHA_WF2),
                    base.rhoThreshold(), base.rhoEpsilon(), base.harmWeight(), base.alphaOwn(), base.queueHarmWeight(),
                    base.prefillStepUs(), scalar(s, DECODE_STEP_US), scalar(s, DECODE_STEP_KV_US),
                    scalar(s, KV_WAIT_SCALE));
        } catch (IllegalArgumentException e) {
            throw new UnusableSnapshotException(e.getMessage());
        }
        ParameterSet.Builder b = ParameterSet.builder(workers.size()).scope(s.getScope()).version(s.getVersion())
                .source(source).cost(cost).outputQuantile(outputQuantile);
        if (s.getBandwidths() != null) {
            for (TierBandwidth bw : s.getBandwidths()) {
                Tier t = Tier.valueOf(bw.getTier().name());
                double v = bw.getBytesPerSecond().getValue();
                b.rhoReference(t, v); // the job measured this tier's ρ against v, fitted or not
                if (!FittedProvenance.neverFitted(bw.getBytesPerSecond())) {
                    b.bandwidth(t, v);
                }
            }
        }
        if (s.getRho() != null) {
            for (WorkerTierRho r : s.getRho()) {
                String name = r.getWorker() == null ? null : r.getWorker().toString();
                Tier t = Tier.valueOf(r.getTier().name());
                Double reference = r.getReferenceBytesPerSecond();
                Optional<Integer> w = name == null ? Optional.empty() : workers.find(name);
                if (w.isEmpty()) {
                    unknownWorkers.increment();
                    if (unknown != null) {
                        unknown.add(String.valueOf(name));
                    }
                    continue;
                }
                if (t == Tier.HBM) {
                    continue; // HBM hits cost no transfer: a ρ for it changes nothing
                }
                b.rho(w.get(), t, r.getRho().getValue(), reference == null ? Double.NaN : reference, asOf(r, s));
            }
        }
        String forestRefused = null;
        if (s.getQuantileModel() != null) {
            try {
                b.outputModel(ForestOutputModel.from(s.getQuantileModel())).outputModelVersion(ModelCarrier.versionOf(s));
            } catch (RuntimeException e) {
                forestRefused = "quantileModel is not a valid quantile forest: " + e.getMessage();
                if (!keepModel) {
                    throw new UnusableSnapshotException(forestRefused);
                }
                b.outputModel(inUse == null ? null : inUse.outputModel())
                        .outputModelVersion(inUse == null ? 0 : inUse.outputModelVersion());
            }
        }
        try {
            return new Conversion(b.build(), forestRefused);
        } catch (IllegalArgumentException e) {
            throw new UnusableSnapshotException(e.getMessage());
        }
    }

    private static double scalar(ParameterSnapshot s, SnapshotParameter p) {
        return p.get(s).getValue();
    }

    /**
     * When a ρ was measured, for its ageing: its fitting window's end (0: no window, it does not age), but never after
     * the snapshot was created (a window ending later is an engine clock running ahead, and would never age).
     */
    private static long asOf(WorkerTierRho r, ParameterSnapshot s) {
        long end = Math.max(0, r.getRho().getWindowEndMs());
        return end > 0 && s.getCreatedAtMs() > 0 ? Math.min(end, s.getCreatedAtMs()) : end;
    }
}
