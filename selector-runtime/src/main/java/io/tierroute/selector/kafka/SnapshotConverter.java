package io.tierroute.selector.kafka;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.WorkerTierRho;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ForestOutputModel;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.protocol.WorkerRegistry;

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
 * <p>A value the selector cannot use (non-finite, negative, ρ outside [0, 1], a bandwidth ≤ 0, a
 * structurally invalid forest) makes the whole snapshot unusable: {@link #convert} throws
 * {@link UnusableSnapshotException} and the caller keeps its last good set. A ρ for a worker this
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
     * Converts; {@code unknown} receives the names of ρ workers not configured here (may be null).
     *
     * @throws UnusableSnapshotException when a value cannot be used
     */
    public ParameterSet convert(ParameterSnapshot s, String source, TreeSet<String> unknown) {
        CostParameters cost;
        try {
            cost = new CostParameters(value(s.getAlphaP(), "alphaP"), value(s.getAlphaP2(), "alphaP2"),
                    value(s.getAlphaD(), "alphaD"), value(s.getAlphaD2(), "alphaD2"), value(s.getAlphaT(), "alphaT"),
                    value(s.getAlphaHo(), "alphaHo"), value(s.getQSlack(), "qSlack"), value(s.getAlphaWf(), "alphaWf"),
                    value(s.getLambda(), "lambda"), value(s.getAlphaWf2(), "alphaWf2"),
                    base.rhoThreshold(), base.rhoEpsilon(), base.harmWeight(), base.alphaOwn(), base.queueHarmWeight());
        } catch (IllegalArgumentException e) {
            throw new UnusableSnapshotException(e.getMessage());
        }
        ParameterSet.Builder b = ParameterSet.builder(workers.size()).scope(s.getScope()).version(s.getVersion())
                .source(source).cost(cost).outputQuantile(outputQuantile);
        if (s.getBandwidths() != null) {
            for (TierBandwidth bw : s.getBandwidths()) {
                Tier t = tier(bw.getTier(), "bandwidths");
                double v = value(bw.getBytesPerSecond(), "bandwidths[" + t + "]");
                if (t == Tier.HBM) {
                    throw new UnusableSnapshotException("bandwidths: HBM has no transfer bandwidth, got " + v);
                }
                if (!(v > 0) || !Double.isFinite(v)) {
                    throw new UnusableSnapshotException("bandwidths[" + t + "] must be a finite number > 0 bytes/s, got " + v);
                }
                b.bandwidth(t, v);
            }
        }
        if (s.getRho() != null) {
            for (WorkerTierRho r : s.getRho()) {
                String name = r.getWorker() == null ? null : r.getWorker().toString();
                Tier t = tier(r.getTier(), "rho[" + name + "]");
                double v = value(r.getRho(), "rho[" + name + "][" + t + "]");
                if (!(v >= 0 && v <= 1)) {
                    throw new UnusableSnapshotException("rho[" + name + "][" + t + "] must be in [0, 1], got " + v);
                }
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
                b.rho(w.get(), t, v);
            }
        }
        if (s.getQuantileModel() != null) {
            try {
                b.outputModel(ForestOutputModel.from(s.getQuantileModel()));
            } catch (RuntimeException e) {
                throw new UnusableSnapshotException("quantileModel is not a valid quantile forest: " + e.getMessage());
            }
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new UnusableSnapshotException(e.getMessage());
        }
    }

    private static double value(FittedValue v, String field) {
        if (v == null) {
            throw new UnusableSnapshotException(field + " is missing");
        }
        double x = v.getValue();
        if (!Double.isFinite(x)) {
            throw new UnusableSnapshotException(field + " must be finite, got " + x);
        }
        return x;
    }

    private static Tier tier(io.tierroute.schemas.avro.Tier t, String field) {
        if (t == null) {
            throw new UnusableSnapshotException(field + ": tier is missing");
        }
        return Tier.valueOf(t.name());
    }
}
