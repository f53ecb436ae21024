package io.tierroute.jobs.fit;

import io.tierroute.jobs.ingest.RecordValidator;
import io.tierroute.schemas.avro.SnapshotControl;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimerService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Event-time mode ({@code --cadence-clock event}) of {@link ScopeFitFunction}: the inputs and control records held in
 * its {@code pendingInputs} / {@code pendingControls} list state until the event-time tick at a multiple of the cadence
 * that covers them, and the tick each is due at. A control record stamped more than {@link #controlAheadMs} past the
 * job's event time is applied at the next tick instead: every selector applied it on arrival, and waiting for its own
 * time (Long.MAX_VALUE passes {@code ControlRecordCheck}) left the job and the selectors disagreeing about the active
 * version.
 */
final class EventTicks {
    /** The operator's logger: these lines were logged under its name before this class was split from it. */
    private static final Logger LOG = LoggerFactory.getLogger(ScopeFitFunction.class);

    /**
     * A control record stamped further than the larger of this and {@link #CONTROL_AHEAD_PUBLISH_INTERVALS} publish
     * intervals past the job's event time is an anomaly (a clock far off, or a made-up stamp), applied at the next tick
     * rather than at its own time ({@link #controlAheadMs}).
     */
    static final long CONTROL_AHEAD_MIN_MS = 3_600_000;
    static final int CONTROL_AHEAD_PUBLISH_INTERVALS = 4;

    private final ListState<ScopeInput> pendingInputs;
    private final ListState<SnapshotControl> pendingControls;
    private final long publishIntervalMs;
    private final long forestIntervalMs;
    /** How far past a tick a control record's stamp is applied at that tick anyway, ms. */
    private final long controlAheadMs;
    private final Counter lateInputs;
    private final Counter controlsAheadOfEventTime;

    EventTicks(ListState<ScopeInput> pendingInputs, ListState<SnapshotControl> pendingControls, long publishIntervalMs,
               long forestIntervalMs, Counter lateInputs, Counter controlsAheadOfEventTime) {
        this.pendingInputs = pendingInputs;
        this.pendingControls = pendingControls;
        this.publishIntervalMs = publishIntervalMs;
        this.forestIntervalMs = forestIntervalMs;
        this.controlAheadMs = Math.max(CONTROL_AHEAD_MIN_MS, CONTROL_AHEAD_PUBLISH_INTERVALS * publishIntervalMs);
        this.lateInputs = lateInputs;
        this.controlsAheadOfEventTime = controlsAheadOfEventTime;
    }

    /**
     * Holds an input until the tick covering its event time, then applied in event-time order with the tick's other
     * inputs: what a snapshot covers no longer depends on arrival order or wall-clock timing. A joined row also arms the
     * forest's tick.
     */
    void hold(ScopeInput in, TimerService timers) throws Exception {
        long t = dueAt(EventOrder.timeOf(in), timers);
        pendingInputs.add(in);
        timers.registerEventTimeTimer(tickFor(t, publishIntervalMs));
        if (in.joined != null) {
            timers.registerEventTimeTimer(tickFor(t, forestIntervalMs));
        }
    }

    /**
     * Holds a control record until the tick covering its own timestamp, like the inputs; one stamped far ahead of the
     * job's event time until the tick just after the watermark, where {@link #takeDueControls} finds it far ahead of that
     * tick too. Without an event time yet (no watermark) the first tick of the scope's inputs finds it so, and so it
     * does one stamped before 2000, when no input can be.
     */
    void hold(SnapshotControl record, TimerService timers) throws Exception {
        long wm = timers.currentWatermark();
        boolean known = wm != Long.MIN_VALUE && wm != Long.MAX_VALUE;
        if (!known && record.getTimestampMs() < RecordValidator.MIN_TIMESTAMP_MS) {
            // Stamped before any input can be (a missing or made-up stamp; ControlRecordCheck, which the selectors
            // share, does not look at it) with no event time yet: its own tick would publish a snapshot stamped there,
            // a negative time the params producer refuses, at every restart. The scope's first tick takes it.
            pendingControls.add(record);
            return;
        }
        long next = known ? tickFor(wm + 1, publishIntervalMs) : Long.MIN_VALUE;
        boolean ahead = known && farAhead(record, next);
        pendingControls.add(record);
        timers.registerEventTimeTimer(ahead ? next : tickFor(dueAt(record.getTimestampMs(), timers), publishIntervalMs));
    }

    /** The held inputs with event time ≤ {@code tick}, taken out of the state, in {@link EventOrder#INPUTS}. */
    List<ScopeInput> takeDueInputs(long tick) throws Exception {
        List<ScopeInput> due = new ArrayList<>();
        List<ScopeInput> later = new ArrayList<>();
        for (ScopeInput in : pendingInputs.get()) {
            (EventOrder.timeOf(in) <= tick ? due : later).add(in);
        }
        if (!due.isEmpty()) {
            pendingInputs.update(later);
            due.sort(EventOrder.INPUTS);
        }
        return due;
    }

    /**
     * The held control records due at {@code tick}, taken out of the state, in {@link EventOrder#CONTROLS}: those
     * stamped at or before it, and those stamped more than {@link #controlAheadMs} past it.
     */
    List<SnapshotControl> takeDueControls(long tick) throws Exception {
        List<SnapshotControl> due = new ArrayList<>();
        List<SnapshotControl> later = new ArrayList<>();
        for (SnapshotControl r : pendingControls.get()) {
            (r.getTimestampMs() <= tick || farAhead(r, tick) ? due : later).add(r);
        }
        if (!due.isEmpty()) {
            pendingControls.update(later);
            due.sort(EventOrder.CONTROLS);
        }
        return due;
    }

    /**
     * When an input or control record of event time {@code t} can be applied: at {@code t}, or, when it is already
     * behind the watermark (late: its tick may have fired), just after the watermark. Late input is counted once and
     * logged at the 1st, 2nd, 4th, … occurrence: with it the history depends on timing.
     */
    private long dueAt(long t, TimerService timers) {
        long wm = timers.currentWatermark();
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

    /**
     * The first multiple of {@code interval} at or after {@code t}, or Long.MAX_VALUE when there is none (t in the last
     * interval before it): {@code -floorDiv(-t, interval) * interval} wrapped negative there, and the timer fired at once
     * at a tick that could not cover the record.
     */
    static long tickFor(long t, long interval) {
        long rest = Math.floorMod(t, interval);
        if (rest == 0) {
            return t;
        }
        long up = interval - rest; // in (0, interval): t + up overflows only past the last multiple
        return t > Long.MAX_VALUE - up ? Long.MAX_VALUE : t + up;
    }

    /** Whether a control record is stamped more than {@link #controlAheadMs} past {@code tick}. */
    private boolean farAhead(SnapshotControl r, long tick) {
        return tick <= Long.MAX_VALUE - controlAheadMs && r.getTimestampMs() > tick + controlAheadMs;
    }

    /**
     * A control record applied at {@code tick}, before its own time, as far ahead of the job's event time: counted and
     * logged at the 1st, 2nd, 4th, … occurrence (like late input, the history then depends on when the record arrived).
     */
    void aheadOfEventTime(SnapshotControl r, long tick, long watermark) {
        controlsAheadOfEventTime.inc();
        long n = controlsAheadOfEventTime.getCount();
        if (Long.bitCount(n) == 1) {
            LOG.warn("{} control record(s) stamped more than {} ms past the job's event time so far (this one: scope {} "
                + "sequence {} timestamp {}, watermark {}): applied at tick {} rather than at its own time, as the selectors "
                + "applied it on arrival (stamp control records with the job's event time)", n, controlAheadMs,
                r.getScope(), r.getSequence(), r.getTimestampMs(), watermark, tick);
        }
    }

    /** Records that arrived behind the watermark (the {@code lateInputs} metric). */
    long lateInputCount() {
        return lateInputs.getCount();
    }

    /** Control records applied at a tick before their own time, being far ahead of it. */
    long controlsAheadCount() {
        return controlsAheadOfEventTime.getCount();
    }
}
