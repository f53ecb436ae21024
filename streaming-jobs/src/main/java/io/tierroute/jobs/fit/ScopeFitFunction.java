package io.tierroute.jobs.fit;

import io.tierroute.fitter.forest.ForestConfig;
import io.tierroute.fitter.forest.OutputRow;
import io.tierroute.fitter.forest.QuantileForestTrainer;
import io.tierroute.fitter.snapshot.FitResults;
import io.tierroute.fitter.snapshot.GateConfig;
import io.tierroute.fitter.snapshot.GateResult;
import io.tierroute.fitter.snapshot.SnapshotAssembler;
import io.tierroute.fitter.snapshot.ValidationGate;
import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.ActivationRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fits one scope's parameters and publishes its snapshots; the single writer of
 * {@code tierroute.params}. Keyed by scope; input 1 = telemetry samples and joined rows, input 2 =
 * control records of the same scope, so a pin and the snapshots it governs are ordered by one
 * operator.
 *
 * <p><b>Publication.</b> A processing-time timer every {@code publishInterval} (armed by the first
 * input after the last snapshot, so an idle scope publishes nothing) assembles a candidate from the
 * estimators, validates it against the <em>active</em> version and emits it, ACCEPTED or REJECTED,
 * stamped with the scope's last applied control sequence. The active version is what
 * {@link ActivationRule} says over what this operator has published (accepted versions with their
 * control sequence) and the last control record, i.e. what every reader of the two topics computes:
 * while a scope is pinned the candidate's parent is the pinned version and the gate compares against
 * it; the rule never activates those snapshots, so a pinned scope is never overwritten.
 *
 * <p><b>State life cycle</b> (all keyed by scope, checkpointed):
 * <ul>
 *   <li>{@link #VERSION}: the newest version published in any status; the next is one more, so
 *       versions are gap-free and, restored with the exactly-once sink's transactions, never repeat.</li>
 *   <li>{@link #CONTROL}: the last applied control record (records with a sequence not above it are
 *       ignored).</li>
 *   <li>{@link #ACCEPTED} version → control sequence and {@link #HISTORY} version → snapshot without
 *       its model, for the last {@code historyVersions} accepted versions (a pinned version is kept
 *       past that); {@link #FORESTS}: each quantile model once, under the version that introduced it;
 *       {@link #PENDING_FOREST}: a retrained model not yet in an accepted snapshot.</li>
 *   <li>{@link #RECENT_ROWS}, {@link #RECENT_TELEMETRY}: bounded replay buffers (trimmed to
 *       {@code sampleRows} / {@code telemetryReplayRows}). The rows are the forest's training
 *       sample. The estimators live in memory; after a restore they are rebuilt by replaying these
 *       buffers, so the restored fit is the fit on the last {@code sampleRows} rows (the regression's
 *       forgetting horizon defaults to the same count).</li>
 *   <li>{@link #COUNTERS}: buffer sizes, the dirty flag and pending timers.</li>
 * </ul>
 */
public class ScopeFitFunction extends KeyedCoProcessFunction<String, ScopeInput, SnapshotControl, ParameterSnapshot> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ScopeFitFunction.class);

    static final ValueStateDescriptor<Long> VERSION = new ValueStateDescriptor<>("version", Long.class);
    static final ValueStateDescriptor<SnapshotControl> CONTROL =
        new ValueStateDescriptor<>("control", SnapshotControl.class);
    static final MapStateDescriptor<Long, Long> ACCEPTED =
        new MapStateDescriptor<>("accepted", Long.class, Long.class);
    static final MapStateDescriptor<Long, HistoryEntry> HISTORY =
        new MapStateDescriptor<>("history", Long.class, HistoryEntry.class);
    static final MapStateDescriptor<Long, QuantileForestModel> FORESTS =
        new MapStateDescriptor<>("forests", Long.class, QuantileForestModel.class);
    static final ValueStateDescriptor<QuantileForestModel> PENDING_FOREST =
        new ValueStateDescriptor<>("pendingForest", QuantileForestModel.class);
    static final ValueStateDescriptor<ScopeCounters> COUNTERS =
        new ValueStateDescriptor<>("counters", ScopeCounters.class);
    static final ListStateDescriptor<JoinedRow> RECENT_ROWS = new ListStateDescriptor<>("recentRows", JoinedRow.class);
    static final ListStateDescriptor<TelemetrySample> RECENT_TELEMETRY =
        new ListStateDescriptor<>("recentTelemetry", TelemetrySample.class);

    private final JobSettings settings;

    private transient ValueState<Long> version;
    private transient ValueState<SnapshotControl> control;
    private transient MapState<Long, Long> accepted;
    private transient MapState<Long, HistoryEntry> history;
    private transient MapState<Long, QuantileForestModel> forests;
    private transient ValueState<QuantileForestModel> pendingForest;
    private transient ValueState<ScopeCounters> counters;
    private transient ListState<JoinedRow> recentRows;
    private transient ListState<TelemetrySample> recentTelemetry;

    private transient Map<String, ScopeEstimators> live;
    private transient SnapshotAssembler assembler;
    private transient ValidationGate gate;
    private transient QuantileForestTrainer trainer;
    private transient Counter snapshotsAccepted;
    private transient Counter snapshotsRejected;
    private transient Counter controlsApplied;
    private transient Counter controlsIgnored;
    private transient Counter rejectedInputs;
    private transient Counter forestFailures;

    public ScopeFitFunction(JobSettings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext openContext) {
        AvroTrust.install(); // Flink's Avro state serializers decode our generated classes
        var ctx = getRuntimeContext();
        version = ctx.getState(VERSION);
        control = ctx.getState(CONTROL);
        accepted = ctx.getMapState(ACCEPTED);
        history = ctx.getMapState(HISTORY);
        forests = ctx.getMapState(FORESTS);
        pendingForest = ctx.getState(PENDING_FOREST);
        counters = ctx.getState(COUNTERS);
        // No TTL on the replay buffers: they are bounded by count, and a TTL check on every access and
        // the incremental clean-up cost measurable throughput (profiled) for no gain.
        recentRows = ctx.getListState(RECENT_ROWS);
        recentTelemetry = ctx.getListState(RECENT_TELEMETRY);

        live = new HashMap<>();
        assembler = new SnapshotAssembler(settings.jobName(), System::currentTimeMillis);
        gate = new ValidationGate(GateConfig.DEFAULTS.withMinSamples(settings.gateMinSamples())
            .withMinR2(settings.gateMinR2()).withMaxJumpFactor(settings.gateMaxJumpFactor()));
        ForestConfig fc = ForestConfig.defaults().withTrees(settings.forestTrees());
        trainer = new QuantileForestTrainer(new ForestConfig(fc.trees(), fc.maxDepth(), fc.maxNodes(), fc.nodeSize(),
            fc.mtry(), fc.subsample(), fc.samplesPerLeaf(), fc.maxLevels(), fc.minLevelRows(),
            settings.forestMaxBytes(), fc.seed()));
        var m = ctx.getMetricGroup();
        snapshotsAccepted = m.counter("snapshotsAccepted");
        snapshotsRejected = m.counter("snapshotsRejected");
        controlsApplied = m.counter("controlsApplied");
        controlsIgnored = m.counter("controlsIgnored");
        rejectedInputs = m.counter("inputsRejectedByEstimators");
        forestFailures = m.counter("forestTrainingFailures");
    }

    @Override
    public void processElement1(ScopeInput in, Context ctx, Collector<ParameterSnapshot> out) throws Exception {
        String scope = ctx.getCurrentKey();
        ScopeEstimators est = estimators(scope);
        ScopeCounters c = counters();
        if (in.telemetry != null) {
            if (!est.add(in.telemetry)) {
                rejectedInputs.inc();
            }
            recentTelemetry.add(in.telemetry);
            c.bufferedTelemetry++;
        } else {
            if (!est.add(in.joined)) {
                rejectedInputs.inc();
            }
            recentRows.add(in.joined);
            c.bufferedRows++;
            if (c.nextForestMs == 0) {
                c.nextForestMs = alignedAfter(ctx.timerService().currentProcessingTime(), settings.forestInterval().toMillis());
                ctx.timerService().registerProcessingTimeTimer(c.nextForestMs);
            }
        }
        markDirty(c, ctx);
        counters.update(c);
    }

    @Override
    public void processElement2(SnapshotControl record, Context ctx, Collector<ParameterSnapshot> out) throws Exception {
        SnapshotControl current = control.value();
        if (current != null && record.getSequence() <= current.getSequence()) {
            controlsIgnored.inc();
            LOG.info("scope {}: control sequence {} ignored (applied {})", record.getScope(), record.getSequence(),
                current.getSequence());
            return;
        }
        control.update(record);
        controlsApplied.inc();
        if (record.getAction() == ControlAction.PIN && record.getVersion() != null
                && !accepted.contains(record.getVersion())) {
            LOG.warn("scope {}: PIN of version {}, which is not an accepted version this job keeps; the scope has "
                + "no active version the job can gate against until it is", record.getScope(), record.getVersion());
        }
        LOG.info("scope {}: applied control {} version {} sequence {} ({})", record.getScope(), record.getAction(),
            record.getVersion(), record.getSequence(), record.getReason());
        // The next snapshot carries the new sequence: after an UNPIN it is the one that becomes active.
        ScopeCounters c = counters();
        if (estimators(ctx.getCurrentKey()).hasData()) {
            markDirty(c, ctx);
        }
        counters.update(c);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<ParameterSnapshot> out) throws Exception {
        ScopeCounters c = counters();
        String scope = ctx.getCurrentKey();
        if (timestamp == c.nextForestMs) {
            c.nextForestMs = 0;
            trainForest(scope, c);
        }
        if (timestamp == c.nextPublishMs) {
            c.nextPublishMs = 0;
            if (c.dirty) {
                c.dirty = false;
                publish(scope, out);
            }
        }
        trim(c);
        counters.update(c);
    }

    private void markDirty(ScopeCounters c, Context ctx) {
        c.dirty = true;
        if (c.nextPublishMs == 0) {
            c.nextPublishMs = alignedAfter(ctx.timerService().currentProcessingTime(), settings.publishInterval().toMillis());
            ctx.timerService().registerProcessingTimeTimer(c.nextPublishMs);
        }
    }

    private static long alignedAfter(long now, long interval) {
        return (now / interval + 1) * interval;
    }

    private ScopeCounters counters() throws Exception {
        ScopeCounters c = counters.value();
        return c != null ? c : new ScopeCounters();
    }

    /** The scope's estimators; after a (re)start, rebuilt from the replay buffers first. */
    private ScopeEstimators estimators(String scope) throws Exception {
        ScopeEstimators est = live.get(scope);
        if (est == null) {
            est = new ScopeEstimators(scope, settings.regressionHorizonRows());
            est.useBandwidths(activeSnapshot(scope));
            long t = 0;
            long r = 0;
            for (TelemetrySample s : recentTelemetry.get()) {
                est.add(s);
                t++;
            }
            for (JoinedRow row : recentRows.get()) {
                est.add(row);
                r++;
            }
            if (t + r > 0) {
                LOG.info("scope {}: estimators rebuilt from {} telemetry samples and {} joined rows", scope, t, r);
            }
            live.put(scope, est);
        }
        return est;
    }

    private void publish(String scope, Collector<ParameterSnapshot> out) throws Exception {
        ScopeEstimators est = estimators(scope);
        if (!est.hasData()) {
            return;
        }
        long latest = version.value() == null ? 0 : version.value();
        SnapshotControl ctl = control.value();
        ParameterSnapshot active = activeSnapshot(scope);
        QuantileForestModel fresh = pendingForest.value();
        FitResults fits = est.fits(settings.minFitSamples(), gate.config().minBandwidthSamples(), fresh);
        ParameterSnapshot candidate = assembler.assemble(scope, latest, active, fits);
        GateResult result = gate.validate(candidate, active);
        ParameterSnapshot snapshot = result.snapshot();
        long sequence = ctl == null ? 0 : ctl.getSequence();
        snapshot.setControlSequence(sequence);
        long v = snapshot.getVersion();
        version.update(v);
        if (result.accepted()) {
            snapshotsAccepted.inc();
            long forestVersion = 0;
            if (snapshot.getQuantileModel() != null) {
                if (fresh != null && snapshot.getQuantileModel().equals(fresh)) {
                    forests.put(v, fresh);
                    pendingForest.clear();
                    forestVersion = v;
                } else if (active != null) {
                    HistoryEntry a = history.get(active.getVersion());
                    forestVersion = a == null ? 0 : a.forestVersion;
                }
            }
            ParameterSnapshot kept = ParameterSnapshot.newBuilder(snapshot).setQuantileModel(null).build();
            accepted.put(v, sequence);
            history.put(v, new HistoryEntry(kept, forestVersion));
            est.useBandwidths(snapshot);
            trimHistory(v, ctl);
        } else {
            snapshotsRejected.inc();
        }
        LOG.info("scope {}: published version {} {} (parent {}, control sequence {}){}", scope, v,
            snapshot.getStatus(), snapshot.getParentVersion(), sequence,
            snapshot.getRejectReasons().isEmpty() ? "" : ": " + snapshot.getRejectReasons());
        out.collect(snapshot);
    }

    /** The active snapshot per {@link ActivationRule} over this scope's accepted versions and control, or null. */
    private ParameterSnapshot activeSnapshot(String scope) throws Exception {
        ActivationRule rule = new ActivationRule();
        for (Map.Entry<Long, Long> e : accepted.entries()) {
            rule.onSnapshot(scope, e.getKey(), SnapshotStatus.ACCEPTED, e.getValue());
        }
        SnapshotControl ctl = control.value();
        if (ctl != null) {
            rule.onControl(ctl);
        }
        OptionalLong v = rule.activeVersion(scope);
        if (v.isEmpty()) {
            return null;
        }
        HistoryEntry h = history.get(v.getAsLong());
        if (h == null) {
            return null;
        }
        QuantileForestModel model = h.forestVersion == 0 ? null : forests.get(h.forestVersion);
        return ParameterSnapshot.newBuilder(h.snapshot).setQuantileModel(model).build();
    }

    /** Keeps the last {@code historyVersions} accepted versions, plus the one a control record names. */
    private void trimHistory(long newest, SnapshotControl ctl) throws Exception {
        long keepFrom = newest - settings.historyVersions() + 1;
        Long named = ctl == null ? null : ctl.getVersion();
        List<Long> drop = new ArrayList<>();
        long oldest = Long.MAX_VALUE;
        for (Long k : accepted.keys()) {
            if (k < keepFrom && !k.equals(named)) {
                drop.add(k);
            } else {
                oldest = Math.min(oldest, k);
            }
        }
        if (drop.isEmpty()) {
            return;
        }
        for (Long k : drop) {
            accepted.remove(k);
            history.remove(k);
        }
        long oldestForest = history.get(oldest) == null ? 0 : history.get(oldest).forestVersion;
        long namedForest = named == null || history.get(named) == null ? -1 : history.get(named).forestVersion;
        List<Long> unused = new ArrayList<>();
        for (Long f : forests.keys()) {
            if (f < oldestForest && f != namedForest) {
                unused.add(f);
            }
        }
        for (Long f : unused) {
            forests.remove(f);
        }
    }

    private void trainForest(String scope, ScopeCounters c) throws Exception {
        if (c.bufferedRows < settings.minForestRows()) {
            return;
        }
        List<OutputRow> rows = new ArrayList<>();
        for (JoinedRow r : recentRows.get()) {
            rows.add(r.output());
        }
        if (rows.size() < settings.minForestRows()) {
            return;
        }
        long begin = System.nanoTime();
        try {
            QuantileForestModel model = trainer.fit(rows).model();
            pendingForest.update(model);
            LOG.info("scope {}: quantile forest retrained on {} rows in {} ms", scope, rows.size(),
                (System.nanoTime() - begin) / 1_000_000);
        } catch (RuntimeException e) {
            forestFailures.inc();
            LOG.warn("scope {}: quantile forest training on {} rows failed: {}", scope, rows.size(), e.toString());
        }
    }

    /** Trims a replay buffer once it holds a quarter more than its bound. */
    private void trim(ScopeCounters c) throws Exception {
        if (c.bufferedRows > settings.sampleRows() * 5L / 4) {
            c.bufferedRows = keepLast(recentRows, settings.sampleRows());
        }
        if (c.bufferedTelemetry > settings.telemetryReplayRows() * 5L / 4) {
            c.bufferedTelemetry = keepLast(recentTelemetry, settings.telemetryReplayRows());
        }
    }

    private static <T> long keepLast(ListState<T> state, int n) throws Exception {
        List<T> all = new ArrayList<>();
        for (T t : state.get()) {
            all.add(t);
        }
        List<T> kept = new ArrayList<>(all.subList(Math.max(0, all.size() - n), all.size()));
        state.update(kept);
        return kept.size();
    }
}
