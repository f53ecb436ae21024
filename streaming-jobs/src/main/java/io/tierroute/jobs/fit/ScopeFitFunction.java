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
import io.tierroute.jobs.serde.ImmutableBytes;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
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
 * <p><b>Event-time mode</b> ({@code --cadence-clock event}, for deterministic tests): inputs and control
 * records wait in {@link #PENDING_INPUTS} / {@link #PENDING_CONTROLS} until an event-time tick at a
 * multiple of the cadence covers them, are applied in {@link EventOrder}, the forest is trained on this
 * thread at its tick, and the snapshot is stamped with the tick (module README, "Deterministic mode").
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
 *   <li>{@link #ROW_CHUNKS} + {@link #ROW_TAIL}, {@link #TELEMETRY_CHUNKS} + {@link #TELEMETRY_TAIL}:
 *       bounded replay buffers (about {@code sampleRows} / {@code telemetryReplayRows}): the newest
 *       rows in a short POJO tail (list state, one append per row) and, every {@link #chunkRows} rows,
 *       sealed into one compact {@code byte[]} chunk ({@link RowCodec}) in map state; the oldest chunk
 *       is dropped past the bound. A checkpoint therefore writes a few byte arrays per scope, not tens of
 *       thousands of POJOs (which dominated the profile). The rows are the forest's training sample. The estimators live in memory; after a restore they are rebuilt by replaying these
 *       buffers, so the restored fit is the fit on the last {@code sampleRows} rows (the regression's
 *       forgetting horizon defaults to the same count).</li>
 *   <li>{@link #COUNTERS}: buffer sizes, the dirty flag and pending timers.</li>
 * </ul>
 */
public class ScopeFitFunction extends KeyedCoProcessFunction<String, ScopeInput, SnapshotControl, ParameterSnapshot>
        implements CheckpointListener {
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
    static final MapStateDescriptor<Long, byte[]> ROW_CHUNKS =
        new MapStateDescriptor<>("recentRowChunks", LongSerializer.INSTANCE, ImmutableBytes.INSTANCE);
    static final ListStateDescriptor<JoinedRow> ROW_TAIL = new ListStateDescriptor<>("recentRowTail", JoinedRow.class);
    static final MapStateDescriptor<Long, byte[]> TELEMETRY_CHUNKS =
        new MapStateDescriptor<>("recentTelemetryChunks", LongSerializer.INSTANCE, ImmutableBytes.INSTANCE);
    static final ListStateDescriptor<TelemetrySample> TELEMETRY_TAIL =
        new ListStateDescriptor<>("recentTelemetryTail", TelemetrySample.class);
    static final ListStateDescriptor<BandwidthChange> BANDWIDTHS =
        new ListStateDescriptor<>("bandwidthChanges", BandwidthChange.class);
    /** Event-time mode: inputs and control records waiting for the tick that covers their event time. */
    static final ListStateDescriptor<ScopeInput> PENDING_INPUTS =
        new ListStateDescriptor<>("pendingInputs", ScopeInput.class);
    static final ListStateDescriptor<SnapshotControl> PENDING_CONTROLS =
        new ListStateDescriptor<>("pendingControls", SnapshotControl.class);
    /** Largest replay chunk, rows (smaller when the buffer bound is small: a chunk is at most a quarter of it). */
    static final int MAX_CHUNK_ROWS = 512;
    /** How often the keyed thread looks for a finished background forest, ms. */
    static final long FOREST_POLL_MS = 250;

    /** The job's settings as arguments ({@link JobSettings#toArguments}): what Flink ships to the task managers. */
    private final String[] settingsArguments;
    /** Parsed from {@link #settingsArguments} in {@link #open}. */
    private transient JobSettings settings;

    private transient ValueState<Long> version;
    private transient ValueState<SnapshotControl> control;
    private transient MapState<Long, Long> accepted;
    private transient MapState<Long, HistoryEntry> history;
    private transient MapState<Long, QuantileForestModel> forests;
    private transient ValueState<QuantileForestModel> pendingForest;
    private transient ValueState<ScopeCounters> counters;
    private transient MapState<Long, byte[]> rowChunks;
    private transient ListState<JoinedRow> rowTail;
    private transient MapState<Long, byte[]> telemetryChunks;
    private transient ListState<TelemetrySample> telemetryTail;
    private transient ListState<BandwidthChange> bandwidthChanges;
    private transient ListState<ScopeInput> pendingInputs;
    private transient ListState<SnapshotControl> pendingControls;
    /** Event-time mode: the tick being published (the snapshots' createdAtMs). */
    private transient long tickMs;
    /** Fault injection ({@code fail-after-inputs}): inputs since the first completed checkpoint, -1 before it. */
    private transient long inputsAfterCheckpoint;
    private transient int rowChunkRows;
    private transient int telemetryChunkRows;

    private transient Map<String, ScopeEstimators> live;
    private transient SnapshotAssembler assembler;
    private transient ValidationGate gate;
    private transient ForestConfig forestConfig;
    /** One background thread per operator instance trains forests; the keyed thread polls the result. */
    private transient ExecutorService forestExecutor;
    /** In-flight training per scope (not state: lost on a restore, the next forest tick starts another). */
    private transient Map<String, Training> training;
    private transient Counter snapshotsAccepted;
    private transient Counter snapshotsRejected;
    private transient Counter controlsApplied;
    private transient Counter controlsIgnored;
    private transient Counter rejectedInputs;
    private transient Counter forestFailures;
    private transient Counter lateInputs;

    /** Newest version per scope already on the params topic when the job was started (may be empty). */
    private final HashMap<String, Long> publishedVersions;

    public ScopeFitFunction(JobSettings settings) {
        this(settings, Map.of());
    }

    /**
     * @param publishedVersions the newest version per scope on {@code tierroute.params} at start: the next
     *     version of a scope is one more than the larger of its state and this, so a start without state
     *     (no checkpoint or savepoint) continues the sequence instead of restarting at 1
     */
    public ScopeFitFunction(JobSettings settings, Map<String, Long> publishedVersions) {
        this.settingsArguments = settings.toArguments().toArray(String[]::new);
        this.publishedVersions = new HashMap<>(publishedVersions);
    }

    @Override
    public void open(OpenContext openContext) {
        AvroTrust.install(); // Flink's Avro state serializers decode our generated classes
        settings = JobSettings.parse(settingsArguments);
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
        rowChunks = ctx.getMapState(ROW_CHUNKS);
        rowTail = ctx.getListState(ROW_TAIL);
        telemetryChunks = ctx.getMapState(TELEMETRY_CHUNKS);
        telemetryTail = ctx.getListState(TELEMETRY_TAIL);
        bandwidthChanges = ctx.getListState(BANDWIDTHS);
        pendingInputs = ctx.getListState(PENDING_INPUTS);
        pendingControls = ctx.getListState(PENDING_CONTROLS);
        inputsAfterCheckpoint = -1;
        rowChunkRows = chunkRows(settings.sampleRows());
        telemetryChunkRows = chunkRows(settings.telemetryReplayRows());

        live = new HashMap<>();
        assembler = settings.eventClock() ? new SnapshotAssembler(settings.jobName(), () -> tickMs)
            : new SnapshotAssembler(settings.jobName(), System::currentTimeMillis);
        gate = new ValidationGate(GateConfig.DEFAULTS.withMinSamples(settings.gateMinSamples())
            .withMinR2(settings.gateMinR2()).withMaxJumpFactor(settings.gateMaxJumpFactor()));
        ForestConfig fc = ForestConfig.defaults().withTrees(settings.forestTrees());
        forestConfig = new ForestConfig(fc.trees(), fc.maxDepth(), fc.maxNodes(), fc.nodeSize(),
            fc.mtry(), fc.subsample(), fc.samplesPerLeaf(), fc.maxLevels(), fc.minLevelRows(),
            settings.forestMaxBytes(), fc.seed());
        training = new HashMap<>();
        forestExecutor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "forest-trainer-" + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            return t;
        });
        var m = ctx.getMetricGroup();
        snapshotsAccepted = m.counter("snapshotsAccepted");
        snapshotsRejected = m.counter("snapshotsRejected");
        controlsApplied = m.counter("controlsApplied");
        controlsIgnored = m.counter("controlsIgnored");
        rejectedInputs = m.counter("inputsRejectedByEstimators");
        forestFailures = m.counter("forestTrainingFailures");
        lateInputs = m.counter("lateInputs");
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        if (inputsAfterCheckpoint < 0) {
            inputsAfterCheckpoint = 0;
        }
    }

    /** {@code fail-after-inputs}: a deliberate failure, once (first attempt), for fault tests. */
    private void maybeFail() {
        long n = settings.failAfterInputs();
        if (n > 0 && inputsAfterCheckpoint >= 0 && ++inputsAfterCheckpoint == n
                && getRuntimeContext().getTaskInfo().getAttemptNumber() == 0) {
            throw new IllegalStateException("injected failure after " + n
                + " inputs following the first completed checkpoint (--fail-after-inputs)");
        }
    }

    @Override
    public void close() throws Exception {
        if (forestExecutor != null) {
            forestExecutor.shutdownNow();
        }
        super.close();
    }

    @Override
    public void processElement1(ScopeInput in, Context ctx, Collector<ParameterSnapshot> out) throws Exception {
        maybeFail();
        if (settings.eventClock()) {
            // Held until the tick covering its event time, then applied in event-time order with the tick's
            // other inputs: what a snapshot covers no longer depends on arrival order or wall-clock timing.
            long t = EventOrder.timeOf(in);
            pendingInputs.add(in);
            long at = tickFor(t, settings.publishInterval().toMillis(), ctx);
            ctx.timerService().registerEventTimeTimer(at);
            if (in.joined != null) {
                ctx.timerService().registerEventTimeTimer(tickFor(t, settings.forestInterval().toMillis(), ctx));
            }
            return;
        }
        ScopeCounters c = counters();
        apply(in, ctx.getCurrentKey(), c);
        if (in.joined != null && c.nextForestMs == 0) {
            c.nextForestMs = alignedAfter(ctx.timerService().currentProcessingTime(), settings.forestInterval().toMillis());
            ctx.timerService().registerProcessingTimeTimer(c.nextForestMs);
        }
        armPublish(c, ctx);
        counters.update(c);
    }

    /**
     * Event-time mode: the first multiple of {@code interval} at or after event time {@code t}; an input
     * already behind the watermark (late: its tick may have fired) goes to the first tick after it.
     */
    private long tickFor(long t, long interval, Context ctx) {
        long wm = ctx.timerService().currentWatermark();
        if (t <= wm) {
            lateInputs.inc();
            t = wm + 1;
        }
        return -Math.floorDiv(-t, interval) * interval;
    }

    /** Feeds one input to the scope's estimators and replay buffers and marks the scope dirty. */
    private void apply(ScopeInput in, String scope, ScopeCounters c) throws Exception {
        ScopeEstimators est = estimators(scope);
        if (in.telemetry != null) {
            if (!est.add(in.telemetry)) {
                rejectedInputs.inc();
            }
            telemetryTail.add(in.telemetry);
            c.bufferedTelemetry++;
            if (++c.telemetryTail >= telemetryChunkRows) {
                sealTelemetry(c);
            }
        } else {
            if (!est.add(in.joined)) {
                rejectedInputs.inc();
            }
            rowTail.add(in.joined);
            c.bufferedRows++;
            c.rowsSinceForest++;
            if (++c.rowTail >= rowChunkRows) {
                sealRows(c);
            }
        }
        c.dirty = true;
    }

    @Override
    public void processElement2(SnapshotControl record, Context ctx, Collector<ParameterSnapshot> out) throws Exception {
        if (settings.eventClock()) {
            // Applied at the tick covering the record's own timestamp, like the inputs.
            pendingControls.add(record);
            ctx.timerService().registerEventTimeTimer(tickFor(record.getTimestampMs(), settings.publishInterval().toMillis(), ctx));
            return;
        }
        ScopeCounters c = counters();
        applyControl(record, ctx.getCurrentKey(), c);
        if (c.dirty) {
            armPublish(c, ctx);
        }
        counters.update(c);
    }

    /** Applies a control record unless its sequence is not above the applied one; marks the scope dirty. */
    private void applyControl(SnapshotControl record, String scope, ScopeCounters c) throws Exception {
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
        if (estimators(scope).hasData()) {
            c.dirty = true;
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<ParameterSnapshot> out) throws Exception {
        ScopeCounters c = counters();
        String scope = ctx.getCurrentKey();
        if (settings.eventClock()) {
            onEventTick(timestamp, scope, c, out);
            counters.update(c);
            return;
        }
        if (timestamp == c.nextForestMs) {
            c.nextForestMs = 0;
            trainForest(scope, c, ctx);
        }
        if (timestamp == c.nextForestPollMs) {
            c.nextForestPollMs = 0;
            pollForest(scope, c, ctx);
        }
        if (timestamp == c.nextPublishMs) {
            c.nextPublishMs = 0;
            if (c.dirty) {
                c.dirty = false;
                publish(scope, c, out);
            }
        }
        counters.update(c);
    }

    /**
     * Event-time mode, the watermark passed {@code tick}: the held inputs with event time ≤ tick are applied
     * in {@link EventOrder}, then the control records due, then (at a multiple of the forest interval) the
     * forest is trained on this thread, then (at a multiple of the cadence) a snapshot stamped with the tick
     * is published if anything was applied since the last one.
     */
    private void onEventTick(long tick, String scope, ScopeCounters c, Collector<ParameterSnapshot> out)
            throws Exception {
        List<ScopeInput> due = new ArrayList<>();
        List<ScopeInput> later = new ArrayList<>();
        for (ScopeInput in : pendingInputs.get()) {
            (EventOrder.timeOf(in) <= tick ? due : later).add(in);
        }
        if (!due.isEmpty()) {
            pendingInputs.update(later);
            due.sort(EventOrder.INPUTS);
            for (ScopeInput in : due) {
                apply(in, scope, c);
            }
        }
        List<SnapshotControl> dueControls = new ArrayList<>();
        List<SnapshotControl> laterControls = new ArrayList<>();
        for (SnapshotControl r : pendingControls.get()) {
            (r.getTimestampMs() <= tick ? dueControls : laterControls).add(r);
        }
        if (!dueControls.isEmpty()) {
            pendingControls.update(laterControls);
            dueControls.sort(EventOrder.CONTROLS);
            for (SnapshotControl r : dueControls) {
                applyControl(r, scope, c);
            }
        }
        tickMs = tick;
        if (tick % settings.forestInterval().toMillis() == 0) {
            trainForestNow(scope, c);
        }
        if (tick % settings.publishInterval().toMillis() == 0 && c.dirty) {
            c.dirty = false;
            publish(scope, c, out);
        }
    }

    private void armPublish(ScopeCounters c, Context ctx) {
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
            est = new ScopeEstimators(scope, settings.regressionHorizonRows(), settings.regressionRefitRows(),
                settings.sampleRows());
            List<BandwidthChange> changes = new ArrayList<>();
            bandwidthChanges.get().forEach(changes::add);
            if (changes.isEmpty()) {
                est.useBandwidths(activeSnapshot(scope)); // no change recorded (yet): the defaults or the active BW_t
            }
            ScopeCounters c = counters();
            long[] t = {0};
            long[] r = {0};
            long first = c.firstTelemetryChunk * telemetryChunkRows;
            int[] next = {0};
            ScopeEstimators e = est;
            forEachTelemetry(c, s -> {
                // Each sample with the BW_t that was in use when it first arrived.
                while (next[0] < changes.size() && changes.get(next[0]).atTelemetry <= first + t[0]) {
                    e.useBandwidths(changes.get(next[0]++));
                }
                e.add(s);
                t[0]++;
            });
            while (next[0] < changes.size()) {
                e.useBandwidths(changes.get(next[0]++));
            }
            forEachRow(c, row -> {
                e.add(row);
                r[0]++;
            });
            if (t[0] + r[0] > 0) {
                LOG.info("scope {}: estimators rebuilt from {} telemetry samples and {} joined rows", scope, t[0], r[0]);
            }
            live.put(scope, est);
        }
        return est;
    }

    private void publish(String scope, ScopeCounters c, Collector<ParameterSnapshot> out) throws Exception {
        ScopeEstimators est = estimators(scope);
        if (!est.hasData()) {
            return;
        }
        long latest = Math.max(version.value() == null ? 0 : version.value(),
            publishedVersions.getOrDefault(scope, 0L));
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
            if (est.useBandwidths(snapshot)) {
                bandwidthChanges.add(est.bandwidths(c.nextTelemetryChunk * telemetryChunkRows + c.telemetryTail));
            }
            trimHistory(v, ctl);
        } else {
            snapshotsRejected.inc();
        }
        // The gate's notes (a jump on overwhelming evidence, an imprecise fit applied because the data contradict the
        // value in force) are not in the record: the log is where an operator sees them. A rejected snapshot applies
        // nothing, so its notes would mislead.
        LOG.info("scope {}: published version {} {} (parent {}, control sequence {}){}{}", scope, v,
            snapshot.getStatus(), snapshot.getParentVersion(), sequence,
            snapshot.getRejectReasons().isEmpty() ? "" : ": " + snapshot.getRejectReasons(),
            !result.accepted() || result.notes().isEmpty() ? "" : "; gate notes: " + result.notes());
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

    /**
     * Starts training a forest on the buffered rows in the background (at most one per scope at a time),
     * when there are enough rows and enough new ones since the last training; {@link #pollForest} hands
     * the model over on this thread. Training 20 000 rows × 50 trees takes seconds: done inline it stalled
     * the subtask (and its checkpoints) for that long.
     */
    private void trainForest(String scope, ScopeCounters c, Context ctx) throws Exception {
        if (training.containsKey(scope)) {
            return;
        }
        if (c.bufferedRows < settings.minForestRows() || c.rowsSinceForest < settings.minForestRows()) {
            return; // too few rows, or too few new rows since the last training to change the model
        }
        List<OutputRow> rows = new ArrayList<>((int) c.bufferedRows + rowChunkRows);
        forEachRow(c, r -> rows.add(r.output()));
        if (rows.size() < settings.minForestRows()) {
            return;
        }
        c.rowsSinceForest = 0;
        ForestConfig config = forestConfig;
        long begin = System.nanoTime();
        training.put(scope, new Training(forestExecutor.submit(() -> new QuantileForestTrainer(config).fit(rows).model()),
            rows.size(), begin));
        armForestPoll(c, ctx);
    }

    /**
     * Event-time mode: trains the forest on this thread, on the buffered rows (oldest first) with the
     * configured seed, so the model is a function of the input; the subtask stalls for the training.
     */
    private void trainForestNow(String scope, ScopeCounters c) throws Exception {
        if (c.bufferedRows < settings.minForestRows() || c.rowsSinceForest < settings.minForestRows()) {
            return;
        }
        List<OutputRow> rows = new ArrayList<>((int) c.bufferedRows + rowChunkRows);
        forEachRow(c, r -> rows.add(r.output()));
        c.rowsSinceForest = 0;
        long begin = System.nanoTime();
        try {
            pendingForest.update(new QuantileForestTrainer(forestConfig).fit(rows).model());
            LOG.info("scope {}: quantile forest trained on {} rows in {} ms (event-time tick {})", scope, rows.size(),
                (System.nanoTime() - begin) / 1_000_000, tickMs);
        } catch (RuntimeException e) {
            forestFailures.inc();
            LOG.warn("scope {}: quantile forest training on {} rows failed: {}", scope, rows.size(), e.toString());
        }
    }

    private void armForestPoll(ScopeCounters c, Context ctx) {
        c.nextForestPollMs = ctx.timerService().currentProcessingTime() + FOREST_POLL_MS;
        ctx.timerService().registerProcessingTimeTimer(c.nextForestPollMs);
    }

    /** Takes a finished background training's model as the pending forest (on the keyed thread). */
    private void pollForest(String scope, ScopeCounters c, Context ctx) throws Exception {
        Training t = training.get(scope);
        if (t == null) {
            return; // e.g. restored: the training did not survive, the next forest tick starts another
        }
        if (!t.model.isDone()) {
            armForestPoll(c, ctx);
            return;
        }
        training.remove(scope);
        try {
            pendingForest.update(t.model.get());
            LOG.info("scope {}: quantile forest retrained on {} rows in {} ms (in the background)", scope, t.rows,
                (System.nanoTime() - t.startNanos) / 1_000_000);
        } catch (ExecutionException e) {
            forestFailures.inc();
            LOG.warn("scope {}: quantile forest training on {} rows failed: {}", scope, t.rows, e.getCause().toString());
        }
        // Not marked dirty: as before, the model enters the next snapshot that new input triggers.
    }

    private record Training(Future<QuantileForestModel> model, int rows, long startNanos) {}

    /** Rows per sealed replay chunk for a buffer bound of {@code bound} rows. */
    static int chunkRows(int bound) {
        return Math.max(1, Math.min(MAX_CHUNK_ROWS, bound / 4));
    }

    /**
     * Moves the row tail into one compact sealed chunk and drops the oldest chunk beyond the bound: the
     * buffer then holds between {@code sampleRows} and {@code sampleRows} + 2 chunks of the newest rows.
     * Once per chunk of rows, not per row.
     */
    private void sealRows(ScopeCounters c) throws Exception {
        List<JoinedRow> tail = new ArrayList<>(rowChunkRows);
        for (JoinedRow r : rowTail.get()) {
            tail.add(r);
        }
        rowChunks.put(c.nextRowChunk++, RowCodec.encodeRows(tail));
        rowTail.clear();
        c.rowTail = 0;
        long keep = (settings.sampleRows() + rowChunkRows - 1) / rowChunkRows;
        while (c.nextRowChunk - c.firstRowChunk > keep) {
            rowChunks.remove(c.firstRowChunk++);
        }
        c.bufferedRows = (c.nextRowChunk - c.firstRowChunk) * rowChunkRows;
    }

    private void sealTelemetry(ScopeCounters c) throws Exception {
        List<TelemetrySample> tail = new ArrayList<>(telemetryChunkRows);
        for (TelemetrySample s : telemetryTail.get()) {
            tail.add(s);
        }
        telemetryChunks.put(c.nextTelemetryChunk++, RowCodec.encodeTelemetry(tail));
        telemetryTail.clear();
        c.telemetryTail = 0;
        long keep = (settings.telemetryReplayRows() + telemetryChunkRows - 1) / telemetryChunkRows;
        boolean dropped = false;
        while (c.nextTelemetryChunk - c.firstTelemetryChunk > keep) {
            telemetryChunks.remove(c.firstTelemetryChunk++);
            dropped = true;
        }
        if (dropped) {
            trimBandwidthChanges(c.firstTelemetryChunk * telemetryChunkRows);
        }
        c.bufferedTelemetry = (c.nextTelemetryChunk - c.firstTelemetryChunk) * telemetryChunkRows;
    }

    /** Drops the BW_t changes no buffered sample needs: all before {@code first} but the last of those. */
    private void trimBandwidthChanges(long first) throws Exception {
        List<BandwidthChange> all = new ArrayList<>();
        bandwidthChanges.get().forEach(all::add);
        int keepFrom = 0;
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).atTelemetry <= first) {
                keepFrom = i;
            }
        }
        if (keepFrom > 0) {
            bandwidthChanges.update(new ArrayList<>(all.subList(keepFrom, all.size())));
        }
    }

    /** The buffered joined rows, oldest first. */
    private void forEachRow(ScopeCounters c, Consumer<JoinedRow> sink) throws Exception {
        for (long k = c.firstRowChunk; k < c.nextRowChunk; k++) {
            byte[] chunk = rowChunks.get(k);
            if (chunk != null) {
                RowCodec.decodeRows(chunk, sink);
            }
        }
        for (JoinedRow r : rowTail.get()) {
            sink.accept(r);
        }
    }

    /** The buffered telemetry samples, oldest first. */
    private void forEachTelemetry(ScopeCounters c, Consumer<TelemetrySample> sink) throws Exception {
        for (long k = c.firstTelemetryChunk; k < c.nextTelemetryChunk; k++) {
            byte[] chunk = telemetryChunks.get(k);
            if (chunk != null) {
                RowCodec.decodeTelemetry(chunk, sink);
            }
        }
        for (TelemetrySample s : telemetryTail.get()) {
            sink.accept(s);
        }
    }
}
