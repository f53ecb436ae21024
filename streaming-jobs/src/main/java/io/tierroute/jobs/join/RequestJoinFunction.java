package io.tierroute.jobs.join;

import io.tierroute.fitter.decay.DecayObservation;
import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.DeadLetter;
import java.io.IOException;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.streaming.api.operators.StreamingRuntimeContext;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.tierroute.jobs.ingest.InboundSplit.DEAD_LETTERS;

/**
 * Joins a routing decision with its completion by request id, keyed by {@link RequestShards shard} of the id.
 *
 * <p>State life cycle, per request id: whichever side arrives first is kept in its side's map state of the
 * shard ({@code decisions} or {@code completions}, by request id) with a deadline (a decision waits up to
 * {@code decisionTimeout} for its completion; a completion waits {@code completionGrace} for a decision
 * that is still in flight on its topic; both counted from the side's event time, or from the watermark at
 * its arrival if that is later: {@link #waitUntil}). The other side emits the joined row and removes the
 * entry. A side whose deadline the watermark has passed is counted ({@code decisionsNeverCompleted} or
 * {@code completionsWithoutDecision}) and removed: by the clean-up timer of its bucket, or, if an input for
 * the same request id comes first, right then — so every count and every join is what one event-time timer
 * per request gave, without registering and deleting one per request (deleting one from Flink's timer heap
 * was 38 % of the join task's samples with 60 s of watermark drift, sixth round). Clean-up timers: one per
 * shard and bucket of event time, at the bucket's end; a bucket is {@code decisionTimeout / 8} for
 * decisions and {@code completionGrace / 2} for completions, so an expired side leaves the state at most
 * that long after its deadline and a shard has at most about 8 + 2 timers. A clean-up scans its side's
 * map of the shard; one map per side so that the completions' clean-up does not scan the decisions waiting
 * for theirs, and the short grace in 2 buckets, not 8: when the job catches up on a backlog, event time runs
 * ≈ 200× faster than the clock and the scans of both maps every 15 s of event time were a fifth of the join
 * task (sixth round). A bucket's timer is registered once, not for every side ({@link CleanupTimers}, which
 * keeps the shard's pending timers in keyed state), and what waits per shard and bucket is counted in memory
 * ({@link WaitingBuckets}): a clean-up timer at which no side can have expired does not scan (with a backlog
 * none ever expires; ninth round).
 * When the watermark stalls, a side that has waited {@code stateTtl} of the job's running time (the wall clock
 * without its downtime, kept across restores in operator state) is counted the same way and removed by its shard's
 * processing-time timer ({@link WallClockBackstop}; {@code joinSidesExpiredByWallClock} counts them apart and the
 * log says so): never dropped uncounted, as Flink's state TTL did before. That timer also deletes the clean-up
 * timers of the shard's buckets no side holds any more (emptied by it or by joins; one delete per bucket): a stalled
 * watermark fires none, while new sides' event times open new buckets, so they piled up in the timer heap and every
 * checkpoint (117 000 a day at 128 unmatched completions a minute); a checkpoint keeps which timers are pending, so
 * a restored run deletes those of the run before too. A bucket that gets a side again registers its timer again; a deleted timer's bucket that the watermark reaches has nothing to clean. A completion
 * whose worker is not the decision's chosen worker is a dead letter ("unknown worker"); a FAILED or
 * CANCELLED completion is counted and dropped (it has no time to first token to fit).
 */
public class RequestJoinFunction extends KeyedCoProcessFunction<Integer, DecisionRow, CompletionRow, JoinedRow>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(RequestJoinFunction.class);
    /** At most one warning per minute about sides the wall clock expired (a stalled watermark hits every shard). */
    private static final long WARN_EVERY_MS = 60_000;

    static final String DECISIONS = "waiting-decisions";
    static final String COMPLETIONS = "waiting-completions";
    /** Operator state: the backstop's running clock at each subtask's checkpoint (union: a rescale reads them all). */
    static final String RUNNING_CLOCK = "join-running-clock";
    /** Operator state: the running clock sides of unknown arrival (from the version before) wait from; union too. */
    static final String UNKNOWN_ARRIVAL = "join-unknown-arrival";
    /** Clean-up buckets per decision timeout: an expired decision stays in state at most 1/8 of the timeout longer. */
    static final int DECISION_BUCKETS = 8;
    /** Clean-up buckets per completion grace: the grace is short, its scans frequent (see the class comment). */
    static final int COMPLETION_BUCKETS = 2;

    private final long decisionTimeoutMs;
    private final long completionGraceMs;
    private final long decisionBucketMs;
    private final long completionBucketMs;
    private final long stateTtlMs;
    private final String consumer;

    private transient MapState<String, PendingJoin> decisions;
    private transient MapState<String, PendingJoin> completions;
    private transient Counter joined;
    transient Counter decisionsNeverCompleted; // package-visible: the tests read the counts
    transient Counter completionsWithoutDecision;
    private transient Counter duplicates;
    private transient Counter failedCompletions;
    private transient Counter workerMismatches;
    /** Sides waiting per shard and clean-up bucket, in memory ({@link WaitingBuckets}): no idle scans, no idle timers. */
    private transient WaitingBuckets decisionBuckets;
    private transient WaitingBuckets completionBuckets;
    /** The shards' clean-up timers that may be pending, in keyed state ({@link CleanupTimers}): one registration each. */
    private transient CleanupTimers cleanupTimers;
    private transient WallClockBackstop backstop;
    private transient ListState<Long> runningClock;
    private transient ListState<Long> unknownArrival;
    transient Counter sidesExpiredByWallClock;
    /** When the backstop last warned (wall clock; NONE: not yet). */
    private transient long lastWarnMs;
    /** Clean-up scans of a shard's map run, package-visible for the tests. */
    transient long scans;
    /** Clean-up timers the backstop deleted (buckets no side held), package-visible for the tests. */
    transient long cleanupTimersDeleted;

    public RequestJoinFunction(Duration decisionTimeout, Duration completionGrace, Duration stateTtl, String consumer) {
        this.decisionTimeoutMs = decisionTimeout.toMillis();
        this.completionGraceMs = completionGrace.toMillis();
        this.decisionBucketMs = Math.max(1, decisionTimeoutMs / DECISION_BUCKETS);
        this.completionBucketMs = Math.max(1, completionGraceMs / COMPLETION_BUCKETS);
        this.stateTtlMs = stateTtl.toMillis();
        this.consumer = consumer;
    }

    /**
     * One side's waiting entries of a shard by request id. No Flink state TTL: it dropped what it expired uncounted (and,
     * on the heap backend, only from full snapshots); the join's {@link WallClockBackstop} counts and removes instead. A
     * checkpoint of the version with the TTL restores into these (Flink migrates TTL state to plain state,
     * {@code JoinStateOfPreviousVersionTest}).
     */
    static MapStateDescriptor<String, PendingJoin> descriptor(String name) {
        return new MapStateDescriptor<>(name, String.class, PendingJoin.class);
    }

    /** Before {@link #open}: the backstop, its running clock resumed from the one a restored checkpoint kept. */
    @Override
    public void initializeState(FunctionInitializationContext ctx) throws Exception {
        var store = ctx.getOperatorStateStore();
        runningClock = store.getUnionListState(new ListStateDescriptor<>(RUNNING_CLOCK, Long.class));
        unknownArrival = store.getUnionListState(new ListStateDescriptor<>(UNKNOWN_ARRIVAL, Long.class));
        backstop = new WallClockBackstop(stateTtlMs);
        backstop.start(processingTime(), latest(runningClock), latest(unknownArrival));
    }

    /** The latest of the values every subtask kept; NONE when none did (a fresh start, or the version before). */
    private static long latest(ListState<Long> union) throws Exception {
        long latest = WallClockBackstop.NONE;
        for (Long v : union.get()) {
            latest = Math.max(latest, v);
        }
        return latest;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
        runningClock.update(List.of(backstop.running(processingTime())));
        unknownArrival.update(List.of(backstop.unknownArrival()));
    }

    /**
     * The operator's processing time outside an element or a timer (where no timer service is at hand): the same
     * service the timers use, so that a test's harness clock drives it too.
     */
    private long processingTime() {
        return ((StreamingRuntimeContext) getRuntimeContext()).getProcessingTimeService().getCurrentProcessingTime();
    }

    @Override
    public void open(OpenContext openContext) {
        AvroTrust.install(); // dead letters (Avro) are copied by Flink's Avro serializer on this TaskManager
        decisions = getRuntimeContext().getMapState(descriptor(DECISIONS));
        completions = getRuntimeContext().getMapState(descriptor(COMPLETIONS));
        decisionBuckets = new WaitingBuckets(decisionBucketMs);
        completionBuckets = new WaitingBuckets(completionBucketMs);
        cleanupTimers = new CleanupTimers(getRuntimeContext().getState(CleanupTimers.descriptor()));
        var metrics = getRuntimeContext().getMetricGroup();
        joined = metrics.counter("joinedRows");
        decisionsNeverCompleted = metrics.counter("decisionsNeverCompleted");
        completionsWithoutDecision = metrics.counter("completionsWithoutDecision");
        duplicates = metrics.counter("duplicateJoinInputs");
        failedCompletions = metrics.counter("failedCompletions");
        workerMismatches = metrics.counter("completionWorkerMismatches");
        sidesExpiredByWallClock = metrics.counter("joinSidesExpiredByWallClock");
        lastWarnMs = WallClockBackstop.NONE;
    }

    @Override
    public void processElement1(DecisionRow d, Context ctx, Collector<JoinedRow> out) throws Exception {
        long watermark = ctx.timerService().currentWatermark();
        int shard = RequestShards.index(ctx.getCurrentKey());
        if (backstop.unarmed(shard)) {
            armBackstop(ctx, shard); // sides restored without an arrival clock may wait here with no timer of their own
        }
        PendingJoin c = waiting(completions, completionBuckets, shard, d.requestId, watermark);
        if (c != null) {
            emit(d, c.completion, ctx, out);
            completions.remove(d.requestId);
            completionBuckets.removed(shard, c.deadlineMs);
            return;
        }
        if (waiting(decisions, decisionBuckets, shard, d.requestId, watermark) != null) {
            duplicates.inc();
            return;
        }
        long now = armBackstop(ctx, shard);
        PendingJoin p = new PendingJoin(d, null, waitUntil(d.timestampMs, watermark, decisionTimeoutMs), watermark, now);
        decisions.put(d.requestId, p);
        long cleanup = decisionBuckets.added(shard, p.deadlineMs);
        if (cleanupTimers.register(shard, cleanup, watermark)) {
            ctx.timerService().registerEventTimeTimer(cleanup);
        }
    }

    @Override
    public void processElement2(CompletionRow c, Context ctx, Collector<JoinedRow> out) throws Exception {
        long watermark = ctx.timerService().currentWatermark();
        int shard = RequestShards.index(ctx.getCurrentKey());
        if (backstop.unarmed(shard)) {
            armBackstop(ctx, shard);
        }
        PendingJoin d = waiting(decisions, decisionBuckets, shard, c.requestId, watermark);
        if (d != null) {
            emit(d.decision, c, ctx, out);
            decisions.remove(c.requestId);
            decisionBuckets.removed(shard, d.deadlineMs);
            return;
        }
        if (waiting(completions, completionBuckets, shard, c.requestId, watermark) != null) {
            duplicates.inc();
            return;
        }
        long now = armBackstop(ctx, shard);
        PendingJoin p = new PendingJoin(null, c, waitUntil(c.finishedTimeMs, watermark, completionGraceMs), watermark, now);
        completions.put(c.requestId, p);
        long cleanup = completionBuckets.added(shard, p.deadlineMs);
        if (cleanupTimers.register(shard, cleanup, watermark)) {
            ctx.timerService().registerEventTimeTimer(cleanup);
        }
    }

    /**
     * Arms the shard's wall-clock timer for a side that waits from now (one timer per shard and bucket) and returns the
     * running clock, the side's arrival. Only a side that waits reads the clock, and an input of a shard with no timer
     * armed in this run: sides restored from a version before the backstop have no timer of their own.
     */
    private long armBackstop(Context ctx, int shard) {
        long now = backstop.running(ctx.timerService().currentProcessingTime());
        long at = backstop.arm(shard, backstop.dueAt(now));
        if (at != WallClockBackstop.NONE) {
            ctx.timerService().registerProcessingTimeTimer(at);
        }
        return now;
    }

    /**
     * The side waiting in {@code side} for this request id, or null; one the watermark has passed is counted
     * and removed first (its bucket's clean-up has not run yet; a timer at its deadline would have fired).
     */
    private PendingJoin waiting(MapState<String, PendingJoin> side, WaitingBuckets buckets, int shard, String requestId,
            long watermark) throws Exception {
        PendingJoin p = side.get(requestId);
        if (p != null && p.expiredAt(watermark)) {
            countUnmatched(p);
            side.remove(requestId);
            buckets.removed(shard, p.deadlineMs);
            return null;
        }
        return p;
    }

    /**
     * A processing-time timer is the wall-clock backstop's ({@link #expireByWallClock}). An event-time one is the
     * clean-up at a bucket end: every side of this shard that the watermark has expired (its deadline is at or
     * before the watermark, which is at or past the timer). The completions' buckets are shorter; the
     * decisions' map is scanned only at its own bucket ends (a time that is a bucket end of both: both maps).
     * A map none of whose sides can have expired by the {@link WaitingBuckets counts} is not scanned (the
     * scan would remove nothing); a scan recounts the sides it leaves.
     */
    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<JoinedRow> out) throws Exception {
        int shard = RequestShards.index(ctx.getCurrentKey());
        if (ctx.timeDomain() == TimeDomain.PROCESSING_TIME) {
            expireByWallClock(shard, timestamp, ctx);
            return;
        }
        long watermark = ctx.timerService().currentWatermark();
        cleanupTimers.fired(shard, watermark);
        if (timestamp % completionBucketMs == 0 && completionBuckets.mayHaveExpired(shard, watermark)) {
            cleanUp(completions, completionBuckets.recount(shard), watermark);
        }
        if (timestamp % decisionBucketMs == 0 && decisionBuckets.mayHaveExpired(shard, watermark)) {
            cleanUp(decisions, decisionBuckets.recount(shard), watermark);
        }
    }

    private void cleanUp(MapState<String, PendingJoin> side, WaitingBuckets.Counting remaining, long watermark)
            throws Exception {
        scans++;
        Iterator<Map.Entry<String, PendingJoin>> it = side.iterator();
        while (it.hasNext()) {
            PendingJoin p = it.next().getValue();
            if (p.expiredAt(watermark)) {
                countUnmatched(p);
                it.remove();
            } else {
                remaining.add(p.deadlineMs);
            }
        }
        if (side.isEmpty()) {
            side.clear(); // the iterator leaves an empty map behind on the heap backend
        }
    }

    /**
     * The backstop's clean-up of a shard at its timer: counts and removes every side of both maps that has waited the
     * TTL of running time, deletes the clean-up timers no side needs any more ({@link #deleteEmptyBucketTimers}), and
     * arms the shard's timer again for the earliest side left (a side restored from a checkpoint, whose timer from the
     * run before fired early by the downtime, or one of this run's later buckets).
     * The clock is taken at least at the timer's time, so a clock that stepped back cannot leave the shard unarmed.
     */
    private void expireByWallClock(int shard, long timestamp, OnTimerContext ctx) throws Exception {
        backstop.fired(shard, timestamp);
        long wall = Math.max(ctx.timerService().currentProcessingTime(), timestamp);
        long now = backstop.running(wall);
        long watermark = ctx.timerService().currentWatermark();
        long before = sidesExpiredByWallClock.getCount();
        TreeSet<Long> emptied = new TreeSet<>();
        long earliestLeft = Math.min(expireByWallClock(decisions, decisionBuckets, shard, now, watermark, emptied),
            expireByWallClock(completions, completionBuckets, shard, now, watermark, emptied));
        deleteEmptyBucketTimers(shard, watermark, emptied, ctx);
        if (earliestLeft != Long.MAX_VALUE) {
            long at = backstop.arm(shard, earliestLeft);
            if (at != WallClockBackstop.NONE) {
                ctx.timerService().registerProcessingTimeTimer(at);
            }
        }
        long expired = sidesExpiredByWallClock.getCount() - before;
        if (expired > 0) {
            if (lastWarnMs == WallClockBackstop.NONE || wall - lastWarnMs >= WARN_EVERY_MS) {
                LOG.warn("{} join sides of shard {} waited --state-ttl ({} ms) of running time without the watermark"
                    + " passing their deadlines; counted as decisionsNeverCompleted / completionsWithoutDecision and"
                    + " removed (joinSidesExpiredByWallClock). Is a source partition stalled, or its event times far"
                    + " behind?", expired, shard, stateTtlMs);
                lastWarnMs = wall;
            } else { // every shard's timer falls due at once in a stall: one warning a minute, the rest at INFO
                LOG.info("{} join sides of shard {} waited --state-ttl of running time", expired, shard);
            }
        }
    }

    /**
     * One side's map of the shard: counts and removes what is due by the running clock (as the backstop's only if the
     * watermark had not expired it too: a side whose event-time bucket was not cleaned yet is no stalled watermark's),
     * adds the bucket ends of the sides it removed to {@code emptied} and recounts the sides left (the scan sees them
     * all, so the shard's counts are exact after it, also when a restore or a stall from the start left them unknown);
     * returns the earliest due time of what is left, Long.MAX_VALUE when nothing is.
     */
    private long expireByWallClock(MapState<String, PendingJoin> side, WaitingBuckets buckets, int shard, long now,
            long watermark, Set<Long> emptied) throws Exception {
        long earliestLeft = Long.MAX_VALUE;
        WaitingBuckets.Counting remaining = buckets.recount(shard);
        Iterator<Map.Entry<String, PendingJoin>> it = side.iterator();
        while (it.hasNext()) {
            PendingJoin p = it.next().getValue();
            long due = backstop.dueAt(p.arrivalClockMs);
            if (due <= now) {
                countUnmatched(p);
                it.remove();
                emptied.add(buckets.end(p.deadlineMs));
                if (!p.expiredAt(watermark)) {
                    sidesExpiredByWallClock.inc();
                }
            } else {
                remaining.add(p.deadlineMs);
                earliestLeft = Math.min(earliestLeft, due);
            }
        }
        if (side.isEmpty()) {
            side.clear(); // the iterator leaves an empty map behind on the heap backend
        }
        return earliestLeft;
    }

    /**
     * Deletes the shard's clean-up timers that no side of either map needs: those of the buckets the backstop just
     * emptied ({@code emptied}, also a side restored from the version that kept no {@link CleanupTimers}) and those
     * registered, in this run or one before it, whose sides have all gone (joined, or counted by the watermark before
     * the clean-up), once each. Only timers after the watermark are pending; the counts of both maps are exact here
     * (the backstop's scan recounted them). A timer of the decisions and the completions at the same time stays while
     * either side holds its bucket. A side that later enters a deleted timer's bucket registers it again
     * ({@link CleanupTimers#deleted}).
     */
    private void deleteEmptyBucketTimers(int shard, long watermark, TreeSet<Long> emptied, OnTimerContext ctx)
            throws IOException {
        for (long end : cleanupTimers.pending(shard, watermark)) {
            emptied.add(end);
        }
        for (long end : emptied.tailSet(watermark, false)) {
            if (!decisionBuckets.mayHold(shard, end) && !completionBuckets.mayHold(shard, end)) {
                ctx.timerService().deleteEventTimeTimer(end);
                cleanupTimers.deleted(shard, end);
                cleanupTimersDeleted++;
            }
        }
    }

    private void countUnmatched(PendingJoin p) {
        if (p.decision != null) {
            decisionsNeverCompleted.inc();
        }
        if (p.completion != null) {
            completionsWithoutDecision.inc();
        }
    }

    /**
     * The deadline of a side with event time {@code eventTimeMs} that arrived at {@code watermark}: it waits
     * {@code waitMs} of event time from the later of the two. An on-time side waits from its own time; a late
     * one (its time behind the watermark) gets the same wait from its arrival, so its partner, arriving on the
     * other topic a moment later, still joins however far the watermark moves meanwhile — before, a late side
     * expired at the next watermark, and a watermark step between the two topics' deliveries lost the pair
     * (HostileInputTest, once in CI: 1 of 5 late pairs fitted).
     */
    static long waitUntil(long eventTimeMs, long watermark, long waitMs) {
        return Math.max(eventTimeMs, watermark) + waitMs;
    }

    /** The first multiple of {@code bucketMs} at or after {@code t}. */
    static long bucketEnd(long t, long bucketMs) {
        long end = Math.floorDiv(t, bucketMs) * bucketMs;
        return end < t ? end + bucketMs : end;
    }

    /** When the clean-up of a decision waiting until {@code deadlineMs} runs. */
    long decisionCleanup(long deadlineMs) {
        return bucketEnd(deadlineMs, decisionBucketMs);
    }

    /** When the clean-up of a completion waiting until {@code deadlineMs} runs. */
    long completionCleanup(long deadlineMs) {
        return bucketEnd(deadlineMs, completionBucketMs);
    }

    private void emit(DecisionRow d, CompletionRow c, Context ctx, Collector<JoinedRow> out) {
        if (!d.worker.equals(c.worker)) {
            workerMismatches.inc();
            ctx.output(DEAD_LETTERS, DeadLetter.newBuilder()
                .setSourceTopic(Topics.COMPLETIONS)
                .setPartition(c.partition)
                .setOffset(c.offset)
                .setKey(null)
                .setValue(null)
                .setErrorType("UnknownWorker")
                .setReason("completion of request " + c.requestId + " names worker " + c.worker
                    + ", but the decision (" + Topics.DECISIONS + " partition " + d.partition + " offset " + d.offset
                    + ") routed it to " + d.worker + "; the record is at the given partition and offset")
                .setConsumer(consumer)
                .setTimestampMs(System.currentTimeMillis())
                .build());
            return;
        }
        if (!c.ok) {
            failedCompletions.inc();
            return;
        }
        joined.inc();
        out.collect(join(d, c));
    }

    /**
     * λ's observation of a step with a previous one, a hit when the context is held ({@link DecayObservation#contextHeld}).
     * A decision that says what the previous worker still held (the selector's index at the decision,
     * {@code lastWorkerHeldTokens}) is one wherever the step went; one whose selector said it took none
     * ({@link DecisionRow#HELD_NOT_OBSERVED}: its previous step failed, or ran on an approximate worker) is none. From an
     * older selector or state ({@link DecisionRow#HELD_UNSAID}) only a return to the previous worker is, judged by its
     * completion's cached tokens: the cost model returns mostly while the context is still held, so those under-count
     * misses and bias 1/λ long. A step whose previous one still ran (idle 0) is none: nothing had time to decay (a miss
     * would be impossible to the fit, which refuses it, and a hit adds no exposure).
     */
    static void decayObservation(DecisionRow d, CompletionRow c, JoinedRow r) {
        if (d.idleSinceLastStepMs == null || d.idleSinceLastStepMs <= 0) {
            return;
        }
        long held = d.lastWorkerHeldTokens >= 0 ? d.lastWorkerHeldTokens
            : d.lastWorkerHeldTokens == DecisionRow.HELD_UNSAID && d.regressors.affinityDecay > 0 ? c.cachedTokens : -1;
        if (held >= 0) {
            r.returnIdleSeconds = d.idleSinceLastStepMs / 1000.0;
            r.cacheHit = DecayObservation.contextHeld(held, d.request.isl);
        }
    }

    /** The joined row of a decision and its OK completion; it shares the decision's parts. */
    static JoinedRow join(DecisionRow d, CompletionRow c) {
        JoinedRow r = new JoinedRow(d.regressors, d.request, d.admission);
        r.scope = d.scope;
        r.worker = d.worker;
        r.eventTimeMs = c.finishedTimeMs;
        r.realisedUs = c.realisedUs;
        decayObservation(d, c, r);
        r.outputTokens = c.outputTokens;
        // Unknown stays unknown (NaN): a completion that did not say, or one restored from state written before these.
        r.decodeUs = c.decodeUs < 0 ? Double.NaN : c.decodeUs;
        r.queueWaitUs = c.queueWaitUs < 0 ? Double.NaN : c.queueWaitUs;
        r.prefillUs = c.prefillUs < 0 ? Double.NaN : c.prefillUs;
        return r;
    }
}
