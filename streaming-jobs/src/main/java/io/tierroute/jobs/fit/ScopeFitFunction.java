package io.tierroute.jobs.fit;

import io.tierroute.fitter.bandwidth.LinkKey;
import io.tierroute.fitter.forest.ForestConfig;
import io.tierroute.fitter.regression.LatencyFit;
import io.tierroute.fitter.snapshot.FitResults;
import io.tierroute.fitter.snapshot.GateConfig;
import io.tierroute.fitter.snapshot.GateResult;
import io.tierroute.fitter.snapshot.JumpWatch;
import io.tierroute.fitter.snapshot.ModelReferences;
import io.tierroute.fitter.snapshot.SnapshotAssembler;
import io.tierroute.fitter.snapshot.ValidationGate;
import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.PublishedParams;
import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.jobs.serde.ImmutableBytes;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.snapshot.ActivationRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * thread at its tick, and the snapshot is stamped with the tick (module README, "Deterministic mode"). A control record
 * stamped more than {@link #controlAheadMs} past the job's event time is applied at the next tick instead: every
 * selector applied it on arrival, and waiting for its own time (Long.MAX_VALUE passes {@code ControlRecordCheck}) left
 * the job and the selectors disagreeing about the active version.
 *
 * <p><b>Memory.</b> The estimators of a scope without input for {@link LiveScopes#IDLE_MS} of processing time are dropped
 * from memory and rebuilt from the replay buffers when the scope returns, as after a restore (a history longer than
 * the buffers then fits on their tail): scopes come from the records, and a long-running job would otherwise keep the
 * estimators of every scope it ever saw. The scope's keyed state (buffers, versions) stays. Not in event-time mode,
 * whose history must be a function of the input alone: there the sweep would depend on which scopes share a subtask.
 *
 * <p><b>State life cycle</b> (all keyed by scope, checkpointed):
 * <ul>
 *   <li>{@link #VERSION}: the newest version published in any status; the next is one more, so
 *       versions are gap-free and, restored with the exactly-once sink's transactions, never repeat.</li>
 *   <li>{@link #CONTROL}: the last applied control record (records with a sequence not above it are
 *       ignored).</li>
 *   <li>{@link #ACCEPTED} version → control sequence and {@link #HISTORY} version → snapshot without
 *       its model, for the last {@code historyVersions} accepted versions (a pinned version is kept
 *       past that), starting, in a scope whose state never published, from the version the params topic
 *       had active at submission ({@link PublishedParams#active}); {@link #FORESTS}: each quantile model
 *       once, under the version whose record carries it ({@link VersionHistory}); {@link #PENDING_FOREST}:
 *       a retrained model not yet in an accepted snapshot, and {@link #PENDING_FOREST_CARRIER}: the version
 *       of the record that published it in full, if one has ({@link ForestTraining}).</li>
 *   <li>{@link #REFUSED_JUMPS}: per parameter label, a jump the gate refused as first seen, so that one persisting over
 *       enough new rows is accepted ({@link JumpWatch}, {@link RefusedJumps}); rewritten after every gate run.</li>
 *   <li>{@link #ROW_CHUNKS} + {@link #ROW_TAIL}, {@link #TELEMETRY_CHUNKS} + {@link #TELEMETRY_TAIL}:
 *       bounded replay buffers (about {@code sampleRows} / {@code telemetryReplayRows}, {@link ReplayBuffers}): the
 *       newest rows in a short POJO tail (list state, one append per row) and, every {@link ReplayBuffers#chunkRows}
 *       rows, sealed into one compact {@code byte[]} chunk ({@link RowCodec}) in map state; the oldest chunk
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
    static final ValueStateDescriptor<Long> PENDING_FOREST_CARRIER =
        new ValueStateDescriptor<>("pendingForestCarrier", LongSerializer.INSTANCE);
    static final MapStateDescriptor<String, RefusedJump> REFUSED_JUMPS =
        new MapStateDescriptor<>("refusedJumps", String.class, RefusedJump.class);
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
    /** How often the keyed thread looks for a finished background forest, ms. */
    static final long FOREST_POLL_MS = 250;
    /**
     * Event-time mode: a control record stamped further than the larger of this and
     * {@link #CONTROL_AHEAD_PUBLISH_INTERVALS} publish intervals past the job's event time is an anomaly (a clock far
     * off, or a made-up stamp), applied at the next tick rather than at its own time ({@link #controlAheadMs}).
     */
    static final long CONTROL_AHEAD_MIN_MS = 3_600_000;
    static final int CONTROL_AHEAD_PUBLISH_INTERVALS = 4;

    /** The job's settings as arguments ({@link JobSettings#toArguments}): what Flink ships to the task managers. */
    private final String[] settingsArguments;
    /** Parsed from {@link #settingsArguments} in {@link #open}. */
    private transient JobSettings settings;

    private transient ValueState<Long> version;
    private transient ValueState<SnapshotControl> control;
    private transient ValueState<ScopeCounters> counters;
    private transient RefusedJumps refusedJumps;
    private transient VersionHistory versions;
    private transient ReplayBuffers buffers;
    private transient ForestTraining forests;
    private transient ListState<ScopeInput> pendingInputs;
    private transient ListState<SnapshotControl> pendingControls;
    /** Event-time mode: the tick being published (the snapshots' createdAtMs). */
    private transient long tickMs;
    /** Fault injection ({@code fail-after-inputs}): inputs since the first completed checkpoint, -1 before it. */
    private transient long inputsAfterCheckpoint;

    /** The scopes' estimators in memory, and their idle eviction (processing-time mode only). */
    private transient LiveScopes live;
    private transient SnapshotAssembler assembler;
    private transient ValidationGate gate;
    private transient Counter snapshotsAccepted;
    private transient Counter snapshotsRejected;
    private transient Counter controlsApplied;
    private transient Counter controlsIgnored;
    private transient Counter rejectedInputs;
    private transient Counter lateInputs;
    private transient Counter controlsAheadOfEventTime;
    private transient EstimatorRefusals refusals;
    /** Event-time mode: how far past a tick a control record's stamp is applied at that tick anyway, ms. */
    private transient long controlAheadMs;
    private transient ForestCarriers carriers;
    /** This subtask's scopes' active snapshots on the params topic at submission, until each scope looks. */
    private transient ActiveAtStart activeAtStart;

    /** Newest version per scope already on the params topic when the job was started (may be empty). */
    private final HashMap<String, Long> publishedVersions;
    /** Per scope, the versions on the params topic then, as ranges ({@link PublishedParams#live}). */
    private final HashMap<String, long[]> liveAtStart;
    /**
     * Per scope, the active snapshot there then, Avro-encoded ({@link PublishedParams#active}); shipped with the
     * function, dropped by {@link #open} once it has taken this subtask's scopes (each may carry a forest).
     */
    private HashMap<String, byte[]> activeOnTopic;

    public ScopeFitFunction(JobSettings settings) {
        this(settings, PublishedParams.NONE);
    }

    /**
     * @param published what {@code tierroute.params} held at start: the next version of a scope is one more than
     *     the larger of its state and the newest there, so a start without state (no checkpoint or savepoint)
     *     continues the sequence instead of restarting at 1; a scope whose state never published takes the active
     *     snapshot there as its active version ({@link #adoptActiveOnTopic}); a forest carrier the state names that
     *     was deleted there ({@code snapshots trim}) is not named again
     */
    public ScopeFitFunction(JobSettings settings, PublishedParams published) {
        this.settingsArguments = settings.toArguments().toArray(String[]::new);
        this.publishedVersions = new HashMap<>(published.newest());
        this.liveAtStart = new HashMap<>(published.live());
        this.activeOnTopic = new HashMap<>(published.active());
    }

    @Override
    public void open(OpenContext openContext) {
        AvroTrust.install(); // Flink's Avro state serializers decode our generated classes
        settings = JobSettings.parse(settingsArguments);
        var ctx = getRuntimeContext();
        version = ctx.getState(VERSION);
        control = ctx.getState(CONTROL);
        counters = ctx.getState(COUNTERS);
        refusedJumps = new RefusedJumps(ctx.getMapState(REFUSED_JUMPS));
        carriers = new ForestCarriers(publishedVersions, liveAtStart);
        var task = ctx.getTaskInfo();
        activeAtStart = new ActiveAtStart(activeOnTopic == null ? Map.of() : activeOnTopic,
            task.getMaxNumberOfParallelSubtasks(), task.getNumberOfParallelSubtasks(), task.getIndexOfThisSubtask());
        activeOnTopic = null; // the other subtasks' scopes: not kept for the task's life
        versions = new VersionHistory(ctx.getMapState(ACCEPTED), ctx.getMapState(HISTORY), ctx.getMapState(FORESTS),
            settings.historyVersions());
        // No TTL on the replay buffers: they are bounded by count, and a TTL check on every access and
        // the incremental clean-up cost measurable throughput (profiled) for no gain.
        buffers = new ReplayBuffers(ctx.getMapState(ROW_CHUNKS), ctx.getListState(ROW_TAIL),
            ctx.getMapState(TELEMETRY_CHUNKS), ctx.getListState(TELEMETRY_TAIL), ctx.getListState(BANDWIDTHS),
            settings.sampleRows(), settings.telemetryReplayRows());
        pendingInputs = ctx.getListState(PENDING_INPUTS);
        pendingControls = ctx.getListState(PENDING_CONTROLS);
        inputsAfterCheckpoint = -1;

        controlAheadMs = Math.max(CONTROL_AHEAD_MIN_MS,
            CONTROL_AHEAD_PUBLISH_INTERVALS * settings.publishInterval().toMillis());
        assembler = settings.eventClock() ? new SnapshotAssembler(settings.jobName(), () -> tickMs)
            : new SnapshotAssembler(settings.jobName(), System::currentTimeMillis);
        gate = new ValidationGate(GateConfig.DEFAULTS.withMinSamples(settings.gateMinSamples())
            .withMinR2(settings.gateMinR2()).withMaxJumpFactor(settings.gateMaxJumpFactor()));
        var m = ctx.getMetricGroup();
        snapshotsAccepted = m.counter("snapshotsAccepted");
        snapshotsRejected = m.counter("snapshotsRejected");
        controlsApplied = m.counter("controlsApplied");
        controlsIgnored = m.counter("controlsIgnored");
        rejectedInputs = m.counter("inputsRejectedByEstimators");
        lateInputs = m.counter("lateInputs");
        controlsAheadOfEventTime = m.counter("controlsAheadOfEventTime");
        live = new LiveScopes(m);
        refusals = new EstimatorRefusals(m);
        ForestConfig fc = ForestConfig.defaults().withTrees(settings.forestTrees());
        ForestConfig forestConfig = new ForestConfig(fc.trees(), fc.maxDepth(), fc.maxNodes(), fc.nodeSize(),
            fc.mtry(), fc.subsample(), fc.samplesPerLeaf(), fc.maxLevels(), fc.minLevelRows(),
            settings.forestMaxBytes(), fc.seed());
        forests = new ForestTraining(forestConfig, settings.minForestRows(), ctx.getState(PENDING_FOREST),
            ctx.getState(PENDING_FOREST_CARRIER), m.counter("forestTrainingFailures"), "forest-trainer-" + ctx.getTaskInfo().getIndexOfThisSubtask());
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
        if (forests != null) {
            forests.close();
        }
        super.close();
    }

    @Override
    public void processElement1(ScopeInput in, Context ctx, Collector<ParameterSnapshot> out) throws Exception {
        maybeFail();
        if (settings.eventClock()) {
            // Held until the tick covering its event time, then applied in event-time order with the tick's
            // other inputs: what a snapshot covers no longer depends on arrival order or wall-clock timing.
            long t = dueAt(EventOrder.timeOf(in), ctx);
            pendingInputs.add(in);
            ctx.timerService().registerEventTimeTimer(tickFor(t, settings.publishInterval().toMillis()));
            if (in.joined != null) {
                ctx.timerService().registerEventTimeTimer(tickFor(t, settings.forestInterval().toMillis()));
            }
            return;
        }
        live.clock(ctx.timerService().currentProcessingTime());
        ScopeCounters c = counters();
        apply(in, ctx.getCurrentKey(), c);
        if (in.joined != null && c.nextForestMs == 0) {
            c.nextForestMs = alignedAfter(ctx.timerService().currentProcessingTime(), settings.forestInterval().toMillis());
            ctx.timerService().registerProcessingTimeTimer(c.nextForestMs);
        }
        armPublish(c, ctx);
        counters.update(c);
        sweepIdleScopes();
    }

    /**
     * Event-time mode: when an input or control record of event time {@code t} can be applied: at {@code t}, or, when
     * it is already behind the watermark (late: its tick may have fired), just after the watermark. Late input is
     * counted once and logged at the 1st, 2nd, 4th, … occurrence: with it the history depends on timing.
     */
    private long dueAt(long t, Context ctx) {
        long wm = ctx.timerService().currentWatermark();
        if (t > wm) {
            return t;
        }
        lateInputs.inc();
        long n = lateInputs.getCount();
        if (Long.bitCount(n) == 1) {
            LOG.warn("{} record(s) behind the watermark so far (this one: event time {} <= watermark {}); each goes to "
                + "the next tick, so the published history is no longer a function of the input alone (an input: raise "
                + "--out-of-orderness; a control record: stamp it at or after the job's event time)", n, t, wm);
        }
        return wm == Long.MAX_VALUE ? Long.MAX_VALUE : wm + 1; // the inputs ended: the last tick takes it
    }

    /** Event-time mode: records that arrived behind the watermark (the {@code lateInputs} metric). */
    long lateInputCount() {
        return lateInputs.getCount();
    }

    /** Inputs the estimators refused whole (the {@code inputsRejectedByEstimators} metric). */
    long rejectedInputCount() {
        return rejectedInputs.getCount();
    }

    /** Event-time mode: control records applied at a tick before their own time, being far ahead of it. */
    long controlsAheadCount() {
        return controlsAheadOfEventTime.getCount();
    }

    /** The {@code liveScopes} gauge: scopes whose estimators are in memory. */
    int liveScopeCount() {
        return live.size();
    }

    long idleScopesEvictedCount() {
        return live.evictions();
    }

    EstimatorRefusals refusals() {
        return refusals;
    }

    /**
     * Event-time mode: the first multiple of {@code interval} at or after {@code t}, or Long.MAX_VALUE when there is none
     * (t in the last interval before it): {@code -floorDiv(-t, interval) * interval} wrapped negative there, and the
     * timer fired at once at a tick that could not cover the record.
     */
    static long tickFor(long t, long interval) {
        long rest = Math.floorMod(t, interval);
        if (rest == 0) {
            return t;
        }
        long up = interval - rest; // in (0, interval): t + up overflows only past the last multiple
        return t > Long.MAX_VALUE - up ? Long.MAX_VALUE : t + up;
    }

    /** Event-time mode: whether a control record is stamped more than {@link #controlAheadMs} past {@code tick}. */
    private boolean farAhead(SnapshotControl r, long tick) {
        return tick <= Long.MAX_VALUE - controlAheadMs && r.getTimestampMs() > tick + controlAheadMs;
    }

    /** Feeds one input to the scope's estimators and replay buffers and marks the scope dirty. */
    private void apply(ScopeInput in, String scope, ScopeCounters c) throws Exception {
        ScopeEstimators est = estimators(scope);
        live.inputTo(est);
        if (in.telemetry != null) {
            if (!est.add(in.telemetry)) {
                rejectedInputs.inc();
            }
            buffers.addTelemetry(in.telemetry, c);
        } else {
            if (!est.add(in.joined)) {
                rejectedInputs.inc();
            }
            c.rowsSinceForest++;
            buffers.addRow(in.joined, c);
        }
        c.dirty = true;
    }

    @Override
    public void processElement2(SnapshotControl record, Context ctx, Collector<ParameterSnapshot> out) throws Exception {
        if (settings.eventClock()) {
            // Applied at the tick covering the record's own timestamp, like the inputs; one stamped far ahead of the job's
            // event time at the tick just after the watermark, where onEventTick finds it far ahead of that tick too.
            // Without an event time yet (no watermark) the first tick of the scope's inputs finds it so.
            long interval = settings.publishInterval().toMillis();
            long wm = ctx.timerService().currentWatermark();
            boolean known = wm != Long.MIN_VALUE && wm != Long.MAX_VALUE;
            long next = known ? tickFor(wm + 1, interval) : Long.MIN_VALUE;
            boolean ahead = known && farAhead(record, next);
            pendingControls.add(record);
            ctx.timerService().registerEventTimeTimer(ahead ? next
                : tickFor(dueAt(record.getTimestampMs(), ctx), interval));
            return;
        }
        live.clock(ctx.timerService().currentProcessingTime());
        ScopeCounters c = counters();
        applyControl(record, ctx.getCurrentKey(), c);
        if (c.dirty) {
            armPublish(c, ctx);
        }
        counters.update(c);
    }

    /** Applies a control record unless its sequence is not above the applied one (then false); marks the scope dirty. */
    private boolean applyControl(SnapshotControl record, String scope, ScopeCounters c) throws Exception {
        adoptActiveOnTopic(scope); // before the check below: a PIN may name it
        SnapshotControl current = control.value();
        if (current != null && record.getSequence() <= current.getSequence()) {
            controlsIgnored.inc();
            LOG.info("scope {}: control sequence {} ignored (applied {})", record.getScope(), record.getSequence(),
                current.getSequence());
            return false;
        }
        control.update(record);
        controlsApplied.inc();
        if (record.getAction() == ControlAction.PIN && record.getVersion() != null
                && !versions.keeps(record.getVersion())) {
            LOG.warn("scope {}: PIN of version {}, which is not an accepted version this job keeps; the scope has "
                + "no active version the job can gate against until it is", record.getScope(), record.getVersion());
        }
        LOG.info("scope {}: applied control {} version {} sequence {} ({})", record.getScope(), record.getAction(),
            record.getVersion(), record.getSequence(), record.getReason());
        // The next snapshot carries the new sequence: after an UNPIN it is the one that becomes active.
        if (estimators(scope).hasData()) {
            c.dirty = true;
        }
        return true;
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<ParameterSnapshot> out) throws Exception {
        ScopeCounters c = counters();
        String scope = ctx.getCurrentKey();
        if (settings.eventClock()) {
            onEventTick(timestamp, ctx.timerService().currentWatermark(), scope, c, out);
            counters.update(c);
            return;
        }
        live.clock(ctx.timerService().currentProcessingTime());
        if (timestamp == c.nextForestMs) {
            c.nextForestMs = 0;
            if (forests.startInBackground(scope, c, buffers)) {
                armForestPoll(c, ctx);
            }
        }
        if (timestamp == c.nextForestPollMs) {
            c.nextForestPollMs = 0;
            // A finished model is not marked dirty: it enters the next snapshot that new input triggers.
            if (forests.poll(scope) == ForestTraining.Poll.STILL_RUNNING) {
                armForestPoll(c, ctx);
            }
        }
        if (timestamp == c.nextPublishMs) {
            c.nextPublishMs = 0;
            if (c.dirty) {
                c.dirty = false;
                publish(scope, c, ctx.timerService().currentWatermark(), out);
            }
        }
        counters.update(c);
        sweepIdleScopes();
    }

    /**
     * Event-time mode, the watermark passed {@code tick}: the held inputs with event time ≤ tick are applied
     * in {@link EventOrder}, then the control records due, then (at a multiple of the forest interval) the
     * forest is trained on this thread, then (at a multiple of the cadence) a snapshot stamped with the tick
     * is published if anything was applied since the last one. A control record is due at the tick at or after its
     * timestamp or, stamped more than {@link #controlAheadMs} past this tick, at this one. A saturated tick
     * (Long.MAX_VALUE, see {@link #tickFor}) applies what is due but is no tick of the cadence: no forest, no snapshot.
     */
    private void onEventTick(long tick, long watermark, String scope, ScopeCounters c, Collector<ParameterSnapshot> out)
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
            (r.getTimestampMs() <= tick || farAhead(r, tick) ? dueControls : laterControls).add(r);
        }
        if (!dueControls.isEmpty()) {
            pendingControls.update(laterControls);
            dueControls.sort(EventOrder.CONTROLS);
            for (SnapshotControl r : dueControls) {
                if (applyControl(r, scope, c) && r.getTimestampMs() > tick) {
                    aheadOfEventTime(r, tick, watermark);
                }
            }
        }
        tickMs = tick;
        if (tick == Long.MAX_VALUE) {
            return;
        }
        if (tick % settings.forestInterval().toMillis() == 0) {
            forests.trainNow(scope, c, buffers, tickMs);
        }
        if (tick % settings.publishInterval().toMillis() == 0 && c.dirty) {
            c.dirty = false;
            publish(scope, c, tick, out);
        }
    }

    /**
     * Event-time mode: a control record applied at {@code tick}, before its own time, as far ahead of the job's event
     * time: counted and logged at the 1st, 2nd, 4th, … occurrence (like late input, the history then depends on when
     * the record arrived).
     */
    private void aheadOfEventTime(SnapshotControl r, long tick, long watermark) {
        controlsAheadOfEventTime.inc();
        long n = controlsAheadOfEventTime.getCount();
        if (Long.bitCount(n) == 1) {
            LOG.warn("{} control record(s) stamped more than {} ms past the job's event time so far (this one: scope {} "
                + "sequence {} timestamp {}, watermark {}): applied at tick {} rather than at its own time, as the selectors "
                + "applied it on arrival (stamp control records with the job's event time)", n, controlAheadMs,
                r.getScope(), r.getSequence(), r.getTimestampMs(), watermark, tick);
        }
    }

    /**
     * Processing-time mode: drops the idle scopes' estimators ({@link LiveScopes}) and their carrier of this run (a
     * carrier the start's topic read shows deleted then travels in full once more, as after a restore).
     */
    private void sweepIdleScopes() {
        live.sweep(carriers::forget);
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
            List<BandwidthChange> changes = buffers.bandwidthChanges();
            if (changes.isEmpty()) {
                est.useBandwidths(activeSnapshot(scope)); // no change recorded (yet): the defaults or the active BW_t
            }
            long[] replayed = buffers.replayInto(est, counters(), changes);
            if (replayed[0] + replayed[1] > 0) {
                LOG.info("scope {}: estimators rebuilt from {} telemetry samples and {} joined rows", scope, replayed[0],
                    replayed[1]);
            }
            est.countRefusalsIn(refusals); // after the replay: those rows were counted when they arrived
            live.put(scope, est);
        }
        return est;
    }

    /** @param eventTimeMs the job's event time (the tick, or the watermark): links silent since long are dropped */
    private void publish(String scope, ScopeCounters c, long eventTimeMs, Collector<ParameterSnapshot> out)
            throws Exception {
        ScopeEstimators est = estimators(scope);
        if (!est.hasData()) {
            return;
        }
        List<LinkKey> retired = est.retireSilentLinks(eventTimeMs);
        if (!retired.isEmpty()) {
            LOG.info("scope {}: dropped the ρ of {} link(s) without telemetry for {} s of event time: {}", scope,
                retired.size(), ScopeEstimators.LINK_SILENCE_MS / 1000, retired.stream().limit(10)
                    .map(k -> k.worker() + "/" + k.tier()).toList() + (retired.size() > 10 ? " …" : ""));
        }
        long latest = Math.max(version.value() == null ? 0 : version.value(),
            publishedVersions.getOrDefault(scope, 0L));
        SnapshotControl ctl = control.value();
        ParameterSnapshot active = activeSnapshot(scope);
        QuantileForestModel fresh = forests.pending();
        FitResults fits = est.fits(settings.minFitSamples(), gate.config().minBandwidthSamples(), fresh);
        ParameterSnapshot candidate = assembler.assemble(scope, latest, active, fits);
        GateResult result = gate.validate(candidate, active, refusedJumps.watch());
        ParameterSnapshot gated = result.snapshot();
        // After the gate: it may hold a BW_t jump and publish the active BW_t, and it compares ρ with the active ρ,
        // both measured against the BW_t in use; what is published is ρ against the BW_t the record carries.
        est.rhoOnTheCarriedBandwidths(gated);
        long sequence = ctl == null ? 0 : ctl.getSequence();
        gated.setControlSequence(sequence);
        long v = gated.getVersion();
        version.update(v);
        refusedJumps.keepAfter(result);
        ParameterSnapshot snapshot = ModelReferences.forPublication(gated,
            carriers.known(scope, active, fresh, forests.pendingCarrier()));
        if (fresh != null && snapshot.getQuantileModel() != null && snapshot.getQuantileModel().equals(fresh)) {
            forests.pendingPublishedIn(v); // later records, accepted or not, refer to this one
        }
        if (snapshot.getQuantileModel() != null) {
            carriers.published(scope, v, snapshot.getQuantileModel());
        }
        if (result.accepted()) {
            snapshotsAccepted.inc();
            // Kept pending while the scope is pinned: the version carrying it is not active, and the next snapshots
            // are assembled against the pinned one; dropped there, the model was lost at the unpin (a QA run saw the
            // pinned version's older forest served until the next training).
            boolean pinned = ctl != null && ctl.getAction() == ControlAction.PIN;
            if (versions.keep(snapshot, gated.getQuantileModel(), sequence, fresh, ctl) && !pinned) {
                forests.pendingKept();
            }
            if (est.useBandwidths(snapshot)) {
                buffers.addBandwidthChange(est.bandwidths(buffers.telemetryPosition(c)));
            }
        } else {
            snapshotsRejected.inc();
        }
        // The gate's notes (a jump on overwhelming evidence, an imprecise fit applied because the data contradict the
        // value in force) are not in the record: the log is where an operator sees them. A rejected snapshot applies
        // nothing, so its notes would mislead.
        LOG.info("scope {}: published version {} {} (parent {}, control sequence {}){}{}{}", scope, v,
            snapshot.getStatus(), snapshot.getParentVersion(), sequence,
            snapshot.getRejectReasons().isEmpty() ? "" : ": " + snapshot.getRejectReasons(),
            !result.accepted() || result.notes().isEmpty() ? "" : "; gate notes: " + result.notes(),
            interceptNote(fits));
        out.collect(snapshot);
    }

    /**
     * The regression's intercept, the fixed time every worker adds to a TTFT: no price of a choice, so the snapshot does
     * not carry it, and the log is where an operator sees it. A negative one says the α's carry more than their share.
     */
    private static String interceptNote(FitResults fits) {
        LatencyFit l = fits.latency();
        if (l == null || l.samples() == 0) { // no regression yet (nothing, or the telemetry priors)
            return "";
        }
        return String.format(Locale.ROOT, "; TTFT intercept %.0f ± %.0f µs on %d rows", l.intercept(),
            l.interceptStdError(), l.samples());
    }

    /** The active snapshot per {@link ActivationRule} over this scope's accepted versions and control, or null. */
    private ParameterSnapshot activeSnapshot(String scope) throws Exception {
        adoptActiveOnTopic(scope);
        return versions.active(scope, control.value());
    }

    /**
     * A scope whose state never published (the job started without checkpoint or savepoint) keeps the snapshot the
     * params topic had active at submission as an accepted version, stamped with its own control sequence, so the rule
     * makes it active here as every reader does: the first candidate is gated against it (parent, jump checks) and
     * carries from it what the fit cannot determine yet (α's, λ, the admission wait, the forest) instead of the DESIGN
     * defaults, which the rule would otherwise have activated everywhere. State that published wins: it is the job's
     * own history.
     */
    private void adoptActiveOnTopic(String scope) throws Exception {
        if (!activeAtStart.has(scope)) {
            return;
        }
        if (version.value() != null) {
            activeAtStart.drop(scope);
            return;
        }
        ParameterSnapshot s = activeAtStart.take(scope);
        versions.keep(s, s.getQuantileModel(), s.getControlSequence(), null, control.value());
        LOG.info("scope {}: no state of its own: version {} (control sequence {}, {}), active on the params topic at "
            + "submission, is its active version", scope, s.getVersion(), s.getControlSequence(),
            s.getQuantileModel() == null ? "no quantile model" : "quantile model of version " + s.getQuantileModelVersion());
    }

    private void armForestPoll(ScopeCounters c, Context ctx) {
        c.nextForestPollMs = ctx.timerService().currentProcessingTime() + FOREST_POLL_MS;
        ctx.timerService().registerProcessingTimeTimer(c.nextForestPollMs);
    }
}
