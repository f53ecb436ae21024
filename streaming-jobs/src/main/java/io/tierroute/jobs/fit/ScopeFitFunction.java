package io.tierroute.jobs.fit;

import io.tierroute.fitter.forest.ForestConfig;
import io.tierroute.fitter.snapshot.JumpWatch;
import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.PublishedParams;
import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.jobs.serde.ImmutableBytes;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.snapshot.ActivationRule;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Fits one scope's parameters and publishes its snapshots; the single writer of
 * {@code tierroute.params}. Keyed by scope; input 1 = telemetry samples and joined rows, input 2 =
 * control records of the same scope, so a pin and the snapshots it governs are ordered by one
 * operator. This class owns the keyed state and dispatches by mode; its parts: {@link EstimatorFeed} (inputs into
 * the estimators and replay buffers), {@link ActiveVersion} (control records, the active version),
 * {@link SnapshotPublisher} (candidate, gate, emission), {@link ProcessingTimers} and {@link EventTicks} (the two
 * modes' timers).
 *
 * <p><b>Publication.</b> A processing-time timer every {@code publishInterval} (armed by the first
 * input after the last snapshot, so an idle scope publishes nothing: {@link ProcessingTimers}) publishes a snapshot
 * validated against the <em>active</em> version, as {@link ActivationRule} makes it over the two topics
 * ({@link SnapshotPublisher}, {@link ActiveVersion}): a pinned scope is never overwritten.
 *
 * <p><b>Event-time mode</b> ({@code --cadence-clock event}, for deterministic tests): inputs and control
 * records wait in {@link #PENDING_INPUTS} / {@link #PENDING_CONTROLS} until an event-time tick at a
 * multiple of the cadence covers them ({@link EventTicks}), are applied in {@link EventOrder}, the forest is trained on
 * this thread at its tick, and the snapshot is stamped with the tick (module README, "Deterministic mode"). A control
 * record stamped far past the job's event time is applied at the next tick instead ({@link EventTicks}).
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
 *   <li>{@link #PINS_AHEAD}: the versions a PIN named before the scope published them, each published REJECTED when
 *       the counter reaches it ({@link PinsAhead}).</li>
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
    /** Versions a PIN named before the scope published them, → the PIN's sequence ({@link PinsAhead}). */
    static final MapStateDescriptor<Long, Long> PINS_AHEAD =
        new MapStateDescriptor<>("pinsAhead", LongSerializer.INSTANCE, LongSerializer.INSTANCE);
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
    /** {@link ProcessingTimers#FOREST_POLL_MS}. */
    static final long FOREST_POLL_MS = ProcessingTimers.FOREST_POLL_MS;
    /** {@link EventTicks#CONTROL_AHEAD_MIN_MS}. */
    static final long CONTROL_AHEAD_MIN_MS = EventTicks.CONTROL_AHEAD_MIN_MS;

    /** The job's settings as arguments ({@link JobSettings#toArguments}): what Flink ships to the task managers. */
    private final String[] settingsArguments;
    /** Parsed from {@link #settingsArguments} in {@link #open}. */
    private transient JobSettings settings;

    private transient ValueState<ScopeCounters> counters;
    private transient ReplayBuffers buffers;
    private transient ForestTraining forests;
    /** Event-time mode: the tick being published (the snapshots' createdAtMs). */
    private transient long tickMs;
    /** Fault injection ({@code fail-after-inputs}): inputs since the first completed checkpoint, -1 before it. */
    private transient long inputsAfterCheckpoint;

    /** The scopes' estimators in memory, and their idle eviction (processing-time mode only). */
    private transient LiveScopes live;
    private transient EstimatorFeed feed;
    private transient ActiveVersion active;
    private transient SnapshotPublisher publisher;
    private transient ProcessingTimers timers;
    private transient EventTicks ticks;
    private transient EstimatorRefusals refusals;
    private transient ForestCarriers carriers;

    /** Newest version per scope already on the params topic when the job was started (may be empty). */
    private final HashMap<String, Long> publishedVersions;
    /** Per scope, the versions on the params topic then, as ranges ({@link PublishedParams#live}). */
    private final HashMap<String, long[]> liveAtStart;
    /**
     * Per scope, the active snapshot there then, Avro-encoded ({@link PublishedParams#active}); shipped with the
     * function, dropped by {@link #open} once it has taken this subtask's scopes (each may carry a forest).
     */
    private HashMap<String, byte[]> activeOnTopic;
    /** The consumer settings that read the params topic at start (empty: none), to read a pinned version back. */
    private final HashMap<String, String> paramsReaderSettings;
    private transient PinnedVersionLookups pinnedLookups;
    private transient PinsAhead pinsAhead;
    private transient Counter heldAtMaxVersion;
    private transient Counter rhoLinksDroppedAtCap;

    public ScopeFitFunction(JobSettings settings) {
        this(settings, PublishedParams.NONE);
    }

    /**
     * @param published what {@code tierroute.params} held at start: the next version of a scope is one more than
     *     the larger of its state and the newest there, so a start without state (no checkpoint or savepoint)
     *     continues the sequence instead of restarting at 1; a scope whose state never published takes the active
     *     snapshot there as its active version ({@link ActiveVersion}); a forest carrier the state names that
     *     was deleted there ({@code snapshots trim}) is not named again; and with the read's consumer settings a
     *     pinned version the history no longer keeps is read back from there ({@link PinnedVersionLookups})
     */
    public ScopeFitFunction(JobSettings settings, PublishedParams published) {
        this.settingsArguments = settings.toArguments().toArray(String[]::new);
        this.publishedVersions = new HashMap<>(published.newest());
        this.liveAtStart = new HashMap<>(published.live());
        this.activeOnTopic = new HashMap<>(published.active());
        this.paramsReaderSettings = new HashMap<>(published.readerSettings());
    }

    @Override
    public void open(OpenContext openContext) {
        AvroTrust.install(); // Flink's Avro state serializers decode our generated classes
        settings = JobSettings.parse(settingsArguments);
        var ctx = getRuntimeContext();
        ValueState<Long> version = ctx.getState(VERSION);
        ValueState<SnapshotControl> control = ctx.getState(CONTROL);
        counters = ctx.getState(COUNTERS);
        RefusedJumps refusedJumps = new RefusedJumps(ctx.getMapState(REFUSED_JUMPS));
        carriers = new ForestCarriers(publishedVersions, liveAtStart);
        var task = ctx.getTaskInfo();
        ActiveAtStart activeAtStart = new ActiveAtStart(activeOnTopic == null ? Map.of() : activeOnTopic,
            task.getMaxNumberOfParallelSubtasks(), task.getNumberOfParallelSubtasks(), task.getIndexOfThisSubtask());
        activeOnTopic = null; // the other subtasks' scopes: not kept for the task's life
        VersionHistory versions = new VersionHistory(ctx.getMapState(ACCEPTED), ctx.getMapState(HISTORY),
            ctx.getMapState(FORESTS), settings.historyVersions());
        // No TTL on the replay buffers: they are bounded by count, and a TTL check on every access and
        // the incremental clean-up cost measurable throughput (profiled) for no gain.
        buffers = new ReplayBuffers(ctx.getMapState(ROW_CHUNKS), ctx.getListState(ROW_TAIL),
            ctx.getMapState(TELEMETRY_CHUNKS), ctx.getListState(TELEMETRY_TAIL), ctx.getListState(BANDWIDTHS),
            settings.sampleRows(), settings.telemetryReplayRows());
        ListState<ScopeInput> pendingInputs = ctx.getListState(PENDING_INPUTS);
        ListState<SnapshotControl> pendingControls = ctx.getListState(PENDING_CONTROLS);
        inputsAfterCheckpoint = -1;

        var m = ctx.getMetricGroup();
        Counter snapshotsAccepted = m.counter("snapshotsAccepted");
        Counter snapshotsRejected = m.counter("snapshotsRejected");
        Counter controlsApplied = m.counter("controlsApplied");
        Counter controlsIgnored = m.counter("controlsIgnored");
        Counter rejectedInputs = m.counter("inputsRejectedByEstimators");
        Counter lateInputs = m.counter("lateInputs");
        Counter controlsAheadOfEventTime = m.counter("controlsAheadOfEventTime");
        heldAtMaxVersion = m.counter("publishesHeldAtMaxVersion");
        rhoLinksDroppedAtCap = m.counter("rhoLinksDroppedAtCap");
        live = new LiveScopes(m);
        refusals = new EstimatorRefusals(m);
        ForestConfig fc = ForestConfig.defaults().withTrees(settings.forestTrees());
        ForestConfig forestConfig = new ForestConfig(fc.trees(), fc.maxDepth(), fc.maxNodes(), fc.nodeSize(),
            fc.mtry(), fc.subsample(), fc.samplesPerLeaf(), fc.maxLevels(), fc.minLevelRows(),
            settings.forestMaxBytes(), fc.seed());
        forests = new ForestTraining(forestConfig, settings.minForestRows(), settings.forestInterval().toMillis(),
            ctx.getState(PENDING_FOREST), ctx.getState(PENDING_FOREST_CARRIER), m.counter("forestTrainingFailures"),
            "forest-trainer-" + ctx.getTaskInfo().getIndexOfThisSubtask());
        m.gauge("forestTrainingsWaiting", (Gauge<Integer>) forests::waitingCount);

        timers = new ProcessingTimers(settings.publishInterval().toMillis(), settings.forestInterval().toMillis(),
            forests, buffers);
        ticks = new EventTicks(pendingInputs, pendingControls, settings.publishInterval().toMillis(),
            settings.forestInterval().toMillis(), lateInputs, controlsAheadOfEventTime);
        Map<String, String> reader = paramsReaderSettings;
        pinnedLookups = new PinnedVersionLookups(reader.isEmpty() ? null
            : (scope, v) -> PublishedParams.readAccepted(reader, scope, v), settings.eventClock());
        pinsAhead = new PinsAhead(ctx.getMapState(PINS_AHEAD), version, publishedVersions,
            m.counter("snapshotsPinnedBeforeTheyExisted"));
        active = new ActiveVersion(control, version, versions, activeAtStart, pinnedLookups, pinsAhead, controlsApplied,
            controlsIgnored, m.counter("publishesHeldForReadBack"));
        feed = new EstimatorFeed(settings, live, buffers, counters, active, refusals, rejectedInputs,
            m.counter("telemetryPastLinkSilence"));
        LongSupplier clockMs = settings.eventClock() ? () -> tickMs : System::currentTimeMillis;
        publisher = new SnapshotPublisher(settings, clockMs, version, pinsAhead, active, versions, refusedJumps,
            forests, carriers, buffers, snapshotsAccepted, snapshotsRejected, heldAtMaxVersion, rhoLinksDroppedAtCap);
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
        if (pinnedLookups != null) {
            pinnedLookups.close();
        }
        super.close();
    }

    @Override
    public void processElement1(ScopeInput in, Context ctx, Collector<ParameterSnapshot> out) throws Exception {
        maybeFail();
        if (settings.eventClock()) {
            ticks.hold(in, ctx.timerService());
            return;
        }
        live.clock(ctx.timerService().currentProcessingTime());
        ScopeCounters c = counters();
        feed.apply(in, ctx.getCurrentKey(), c, ctx.timerService().currentWatermark());
        if (in.joined != null) {
            timers.armForest(c, ctx.timerService());
        }
        timers.armPublish(c, ctx.timerService());
        counters.update(c);
        sweepIdleScopes();
    }

    /** Event-time mode: records that arrived behind the watermark (the {@code lateInputs} metric). */
    long lateInputCount() {
        return ticks.lateInputCount();
    }

    /** Inputs the estimators refused whole (the {@code inputsRejectedByEstimators} metric). */
    long rejectedInputCount() {
        return feed.rejectedInputCount();
    }

    /** Telemetry samples more than the links' silence behind event time (the {@code telemetryPastLinkSilence} metric). */
    long telemetryPastLinkSilenceCount() {
        return feed.pastLinkSilenceCount();
    }

    /** Publications held while a version was read back (the {@code publishesHeldForReadBack} metric). */
    long publishesHeldCount() {
        return active.publishesHeldCount();
    }

    /** The reads of versions the history does not keep (tests). */
    PinnedVersionLookups pinnedLookups() {
        return pinnedLookups;
    }

    /** Versions published REJECTED because a PIN named them first (the {@code snapshotsPinnedBeforeTheyExisted} metric). */
    long pinnedBeforeTheyExistedCount() {
        return pinsAhead.rejectedCount();
    }

    /** Publications held because the next version would pass 2^62 (the {@code publishesHeldAtMaxVersion} metric). */
    long heldAtMaxVersionCount() {
        return heldAtMaxVersion.getCount();
    }

    /** Event-time mode: control records applied at a tick before their own time, being far ahead of it. */
    long controlsAheadCount() {
        return ticks.controlsAheadCount();
    }

    /** The {@code liveScopes} gauge: scopes whose estimators are in memory. */
    int liveScopeCount() {
        return live.size();
    }

    /** The {@code forestTrainingsWaiting} gauge: scopes waiting for this subtask's forest-training thread. */
    int forestTrainingsWaitingCount() {
        return forests.waitingCount();
    }

    long idleScopesEvictedCount() {
        return live.evictions();
    }

    EstimatorRefusals refusals() {
        return refusals;
    }

    /** {@link EventTicks#tickFor}. */
    static long tickFor(long t, long interval) {
        return EventTicks.tickFor(t, interval);
    }

    @Override
    public void processElement2(SnapshotControl record, Context ctx, Collector<ParameterSnapshot> out) throws Exception {
        if (settings.eventClock()) {
            ticks.hold(record, ctx.timerService());
            return;
        }
        live.clock(ctx.timerService().currentProcessingTime());
        ScopeCounters c = counters();
        applyControl(record, ctx.getCurrentKey(), c);
        if (c.dirty) {
            timers.armPublish(c, ctx.timerService());
        }
        counters.update(c);
    }

    /** Applies a control record unless its sequence is not above the applied one (then false); marks the scope dirty. */
    private boolean applyControl(SnapshotControl record, String scope, ScopeCounters c) throws Exception {
        if (!active.applyControl(record, scope)) {
            return false;
        }
        // The next snapshot carries the new sequence: after an UNPIN it is the one that becomes active.
        if (feed.estimators(scope).hasData()) {
            c.dirty = true;
        }
        return true;
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<ParameterSnapshot> out) throws Exception {
        ScopeCounters c = counters();
        String scope = ctx.getCurrentKey();
        if (settings.eventClock()) {
            onEventTick(timestamp, ctx.timerService(), scope, c, out);
            counters.update(c);
            return;
        }
        live.clock(ctx.timerService().currentProcessingTime());
        timers.onForestTimers(timestamp, scope, c, ctx.timerService());
        if (timestamp == c.nextPublishMs) {
            c.nextPublishMs = 0;
            if (c.dirty && active.holdsPublication(scope)) {
                timers.armPublish(c, ctx.timerService()); // the next tick publishes once the read found the version
            } else if (c.dirty) {
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
     * timestamp or, stamped more than {@link EventTicks#controlAheadMs} past this tick, at this one. A saturated tick
     * (Long.MAX_VALUE, see {@link EventTicks#tickFor}) applies what is due but is no tick of the cadence: no forest, no
     * snapshot.
     */
    private void onEventTick(long tick, TimerService timerService, String scope, ScopeCounters c,
                             Collector<ParameterSnapshot> out) throws Exception {
        long watermark = timerService.currentWatermark();
        for (ScopeInput in : ticks.takeDueInputs(tick)) {
            feed.apply(in, scope, c, tick);
        }
        for (SnapshotControl r : ticks.takeDueControls(tick)) {
            if (applyControl(r, scope, c) && r.getTimestampMs() > tick) {
                ticks.aheadOfEventTime(r, tick, watermark);
            }
        }
        tickMs = tick;
        if (tick == Long.MAX_VALUE) {
            return;
        }
        if (tick % settings.forestInterval().toMillis() == 0) {
            forests.trainNow(scope, c, buffers, tickMs);
        }
        long interval = settings.publishInterval().toMillis();
        if (tick % interval == 0 && c.dirty && active.holdsPublication(scope)) {
            // a read back that failed (the poll waits for one under way): the next tick tries again
            timerService.registerEventTimeTimer(tick > Long.MAX_VALUE - interval ? Long.MAX_VALUE : tick + interval);
        } else if (tick % interval == 0 && c.dirty) {
            c.dirty = false;
            publish(scope, c, tick, out);
        }
    }

    /** @param eventTimeMs the job's event time (the tick, or the watermark): links silent since long are dropped */
    private void publish(String scope, ScopeCounters c, long eventTimeMs, Collector<ParameterSnapshot> out)
            throws Exception {
        publisher.publish(scope, feed.estimators(scope), c, eventTimeMs, out);
    }

    /**
     * Processing-time mode: drops the idle scopes' estimators ({@link LiveScopes}) and their carrier of this run (a
     * carrier the start's topic read shows deleted then travels in full once more, as after a restore).
     */
    private void sweepIdleScopes() {
        live.sweep(carriers::forget);
    }

    private ScopeCounters counters() throws Exception {
        ScopeCounters c = counters.value();
        return c != null ? c : new ScopeCounters();
    }
}
