package io.tierroute.sim.policy.tierroute;

import io.tierroute.fitter.snapshot.FitResults;
import io.tierroute.fitter.snapshot.GateConfig;
import io.tierroute.fitter.snapshot.GateResult;
import io.tierroute.fitter.snapshot.SnapshotAssembler;
import io.tierroute.fitter.snapshot.ValidationGate;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import io.tierroute.selector.kafka.SnapshotConverter;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.sim.policy.FleetView;

import java.util.ArrayList;
import java.util.List;

/**
 * The path a warm-up's fit takes to the selector, as in production: the fitter's {@link SnapshotAssembler} makes a
 * CANDIDATE snapshot of it, the {@link ValidationGate} (its default configuration) accepts it, holding imprecise
 * values the data cannot tell from the ones in force at those, or rejects it against the snapshot in force, and the
 * selector's {@link SnapshotConverter} turns an accepted snapshot into the parameters it routes with. A rejected fit
 * leaves the parameters in force. One instance per fitted policy: it remembers the active snapshot between warm-up
 * rounds.
 */
final class WarmUpGate {

    private static final String SCOPE = "default";

    private final SnapshotAssembler assembler;
    private final ValidationGate gate = new ValidationGate(GateConfig.DEFAULTS);
    private final SnapshotConverter converter;
    private ParameterSnapshot active;
    private long latestVersion;

    WarmUpGate(FleetView fleet) {
        // The warm-up fits no BW_t, so the snapshot carries the assembler's defaults (never fitted: window [0, 0)),
        // which the converter does not apply: the selector keeps the links each worker was configured with.
        this.assembler = new SnapshotAssembler("fleet-sim warm-up", () -> 0L);
        List<String> names = new ArrayList<>();
        for (int w = 0; w < fleet.workers(); w++) {
            names.add(TierroutePolicy.workerName(w));
        }
        // α_own is fitted and reported but not applied (TierrouteFitting); the other configured values are DESIGN's.
        this.converter = new SnapshotConverter(new WorkerRegistry(names), CostParameters.DEFAULTS.toBuilder()
                .alphaOwn(0.0).build(), ParameterSet.defaults(fleet.workers()).outputQuantile());
    }

    /**
     * Gates one warm-up round's fit.
     *
     * @param fits    what the round's estimators produced
     * @param current the parameters in force
     * @param fitted  how the fit was made (samples, R²), for the parameter set's source
     * @return the accepted snapshot's parameters, or {@code current} when the gate rejected it (its source then says why)
     */
    ParameterSet apply(FitResults fits, ParameterSet current, String fitted) {
        ParameterSnapshot candidate = assembler.assemble(SCOPE, latestVersion, active, fits);
        latestVersion = candidate.getVersion();
        GateResult result = gate.validate(candidate, active);
        if (!result.accepted()) {
            return current.toBuilder().source(current.source() + "; the next warm-up's fit (" + fitted
                    + ") was rejected by the gate: " + String.join("; ", result.rejections())).build();
        }
        active = result.snapshot();
        StringBuilder source = new StringBuilder(fitted).append(", through the gate:");
        for (SnapshotParameter p : SnapshotParameter.SCALARS) {
            source.append(' ').append(p.field()).append('=').append(SnapshotParameter.format(p.get(active).getValue()));
        }
        result.held().forEach(h -> source.append("; ").append(h));
        result.notes().forEach(n -> source.append("; ").append(n));
        return converter.convert(active, source.toString(), null);
    }

    /** The snapshot in force after the rounds gated so far (null before the first accepted one). */
    ParameterSnapshot active() {
        return active;
    }
}
