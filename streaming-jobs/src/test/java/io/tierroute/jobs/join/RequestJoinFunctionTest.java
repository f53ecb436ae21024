package io.tierroute.jobs.join;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.ingest.InboundSplit;
import io.tierroute.schemas.avro.DeadLetter;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The join's state life cycle on Flink's operator test harness: every path ends with no state, and with no
 * timer once the watermark has passed the clean-up buckets; the unmatched sides are counted.
 */
class RequestJoinFunctionTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(30);
    private static final Duration GRACE = Duration.ofMinutes(2);
    private static final Duration STATE_TTL = Duration.ofHours(2);

    private RequestJoinFunction function;
    private KeyedTwoInputStreamOperatorTestHarness<Integer, DecisionRow, CompletionRow, JoinedRow> harness;

    @BeforeEach
    void open() throws Exception {
        open(null);
    }

    /** A fresh function on a new harness, restored from {@code state} when it is not null. */
    private void open(OperatorSubtaskState state) throws Exception {
        open(state, 0);
    }

    /** As {@link #open(OperatorSubtaskState)}, with the harness's processing time at {@code clockMs} from the start. */
    private void open(OperatorSubtaskState state, long clockMs) throws Exception {
        function = new RequestJoinFunction(TIMEOUT, GRACE, STATE_TTL, "test");
        harness = JoinHarness.open(function, state, clockMs);
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    private static DecisionRow decision(String id, String worker, long t) {
        DecisionRow d = new DecisionRow();
        d.requestId = id;
        d.scope = "default";
        d.worker = worker;
        d.timestampMs = t;
        d.regressors.pEffTokens = 1000;
        d.regressors.affinityDecay = 0.5;
        d.idleSinceLastStepMs = 30_000L;
        d.request.isl = 1200;
        d.request.model = "m";
        d.request.maxTokens = 512;
        return d;
    }

    private static CompletionRow completion(String id, String worker, long t, boolean ok) {
        CompletionRow c = new CompletionRow();
        c.requestId = id;
        c.scope = "default";
        c.worker = worker;
        c.finishedTimeMs = t;
        c.ok = ok;
        c.realisedUs = 4000;
        c.cachedTokens = 1000; // of the decision's 1 200 prompt tokens: the workflow's context was still held
        c.outputTokens = 77;
        return c;
    }

    /**
     * No pending side left now; no timer nor any state (the pending timers' ends) once the watermark passed every
     * clean-up bucket.
     */
    private void assertNoStateLeft() throws Exception {
        assertThat(shardsWithWaitingSides()).as("shards with waiting sides").isZero();
        watermark(Long.MAX_VALUE);
        assertThat(harness.numEventTimeTimers()).as("event-time timers").isZero();
        assertThat(harness.numKeyedStateEntries()).as("keyed state entries").isZero();
    }

    /** The shards whose decisions' or completions' map holds a side (the join's other state, its timers, aside). */
    private long shardsWithWaitingSides() {
        KeyedStateBackend<Integer> backend = harness.getOperator().getKeyedStateBackend();
        try (Stream<Integer> d = backend.getKeys(RequestJoinFunction.DECISIONS, VoidNamespace.INSTANCE);
                Stream<Integer> c = backend.getKeys(RequestJoinFunction.COMPLETIONS, VoidNamespace.INSTANCE)) {
            return d.count() + c.count();
        }
    }

    private void watermark(long t) throws Exception {
        harness.processWatermark1(new Watermark(t));
        harness.processWatermark2(new Watermark(t));
    }

    private void assertUnmatched(long decisions, long completions) {
        assertThat(function.decisionsNeverCompleted.getCount()).as("decisionsNeverCompleted").isEqualTo(decisions);
        assertThat(function.completionsWithoutDecision.getCount()).as("completionsWithoutDecision").isEqualTo(completions);
    }


    @Test
    void decisionThenCompletionJoinsAndClearsEverything() throws Exception {
        harness.processElement1(new StreamRecord<>(decision("r1", "w1", 1_000), 1_000));
        assertThat(harness.numEventTimeTimers()).isEqualTo(1);
        harness.processElement2(new StreamRecord<>(completion("r1", "w1", 3_000, true), 3_000));

        List<JoinedRow> out = harness.extractOutputValues();
        assertThat(out).hasSize(1);
        JoinedRow r = out.get(0);
        assertThat(r.realisedUs).isEqualTo(4000);
        assertThat(r.eventTimeMs).isEqualTo(3_000);
        assertThat(r.returnIdleSeconds).isEqualTo(30.0);
        assertThat(r.decay().kind().name()).isEqualTo("RETURN_HIT");
        assertThat(r.output().outputTokens()).isEqualTo(77);
        assertNoStateLeft();
    }

    /** A shared system prompt that outlived the workflow's own context is no return hit: λ's evidence is the context. */
    @Test
    void aReturnThatFindsOnlyASharedPrefixIsAMiss() {
        assertThat(io.tierroute.fitter.decay.DecayObservation.contextHeld(200, 1200)).isFalse();
        assertThat(io.tierroute.fitter.decay.DecayObservation.contextHeld(600, 1200)).isTrue();
        assertThat(io.tierroute.fitter.decay.DecayObservation.contextHeld(0, 1200)).isFalse();
        assertThat(io.tierroute.fitter.decay.DecayObservation.contextHeld(1, 0)).as("no prompt length: any cached token").isTrue();
    }

    /**
     * A decision that says what the previous worker still held is λ's observation wherever the step went, judged by
     * that; without it, only a return to the previous worker is, judged by its completion (older selectors and state).
     */
    @Test
    void lambdasObservationComesFromThePreviousWorkersHoldingWhereverTheStepWent() {
        DecisionRow elsewhere = decision("e", "w2", 1_000);
        elsewhere.regressors.affinityDecay = 0; // went to another worker than its previous step's
        elsewhere.lastWorkerHeldTokens = 900;
        JoinedRow hit = RequestJoinFunction.join(elsewhere, completion("e", "w2", 2_000, true));
        assertThat(hit.decay().kind().name()).isEqualTo("RETURN_HIT");
        assertThat(hit.decay().idleSeconds()).isEqualTo(30.0);
        elsewhere.lastWorkerHeldTokens = 120; // a shared system prompt at most
        assertThat(RequestJoinFunction.join(elsewhere, completion("e", "w2", 2_000, true)).decay().kind().name())
            .isEqualTo("RETURN_MISS");

        DecisionRow returned = decision("r", "w1", 1_000);
        returned.lastWorkerHeldTokens = 0; // the index held nothing there; the engine's count is not asked
        assertThat(RequestJoinFunction.join(returned, completion("r", "w1", 2_000, true)).decay().kind().name())
            .isEqualTo("RETURN_MISS");

        elsewhere.lastWorkerHeldTokens = DecisionRow.HELD_UNSAID; // an older selector: a step elsewhere says nothing
        assertThat(RequestJoinFunction.join(elsewhere, completion("e", "w2", 2_000, true)).decay()).isNull();
        returned.lastWorkerHeldTokens = DecisionRow.HELD_UNSAID; // but a return is judged by its completion's cache
        assertThat(RequestJoinFunction.join(returned, completion("r", "w1", 2_000, true)).decay().kind().name())
            .isEqualTo("RETURN_HIT");
        returned.lastWorkerHeldTokens = DecisionRow.HELD_NOT_OBSERVED; // a v5 selector took none (an approximate worker)
        assertThat(RequestJoinFunction.join(returned, completion("r", "w1", 2_000, true)).decay())
            .as("not the biased return-only sample").isNull();
        returned.lastWorkerHeldTokens = DecisionRow.HELD_UNSAID;

        returned.idleSinceLastStepMs = 0L; // its previous step still ran: nothing had time to decay
        assertThat(RequestJoinFunction.join(returned, completion("r", "w1", 2_000, true)).decay()).isNull();
        elsewhere.lastWorkerHeldTokens = 900;
        elsewhere.idleSinceLastStepMs = 0L;
        assertThat(RequestJoinFunction.join(elsewhere, completion("e", "w2", 2_000, true)).decay()).isNull();

        DecisionRow first = decision("f", "w1", 1_000);
        first.idleSinceLastStepMs = null;
        first.regressors.affinityDecay = 0;
        assertThat(RequestJoinFunction.join(first, completion("f", "w1", 2_000, true)).decay())
            .as("a first step").isNull();
    }

    @Test
    void completionBeforeItsDecisionStillJoins() throws Exception {
        harness.processElement2(new StreamRecord<>(completion("r2", "w1", 3_000, true), 3_000));
        harness.processElement1(new StreamRecord<>(decision("r2", "w1", 1_000), 1_000));
        assertThat(harness.extractOutputValues()).hasSize(1);
        assertNoStateLeft();
    }

    @Test
    void decisionThatNeverCompletesIsDroppedAtTheTimeout() throws Exception {
        harness.processElement1(new StreamRecord<>(decision("r3", "w1", 1_000), 1_000));
        harness.processWatermark1(new Watermark(1_000 + TIMEOUT.toMillis() - 1));
        harness.processWatermark2(new Watermark(1_000 + TIMEOUT.toMillis() - 1));
        assertThat(harness.numKeyedStateEntries()).as("still waiting before the timeout").isPositive();
        // the clean-up timer of the deadline's bucket (≤ timeout / 8 later)
        watermark(function.decisionCleanup(1_000 + TIMEOUT.toMillis()));
        assertThat(harness.extractOutputValues()).isEmpty();
        assertUnmatched(1, 0);
        assertThat(harness.numKeyedStateEntries()).as("keyed state entries").isZero();
        // A completion arriving after the timeout has no decision left: it waits its grace, then goes too.
        harness.processElement2(new StreamRecord<>(completion("r3", "w1", 2_000_000, true), 2_000_000));
        watermark(function.completionCleanup(2_000_000 + GRACE.toMillis()));
        assertThat(harness.extractOutputValues()).isEmpty();
        assertUnmatched(1, 1);
        assertNoStateLeft();
    }

    @Test
    void completionWithoutDecisionIsDroppedAfterTheGrace() throws Exception {
        harness.processElement2(new StreamRecord<>(completion("r4", "w1", 5_000, true), 5_000));
        watermark(5_000 + GRACE.toMillis() - 1);
        assertThat(harness.numKeyedStateEntries()).as("still waiting before the grace ends").isPositive();
        watermark(function.completionCleanup(5_000 + GRACE.toMillis()));
        assertThat(harness.extractOutputValues()).isEmpty();
        assertUnmatched(0, 1);
        assertNoStateLeft();
    }

    @Test
    void aSideWhoseDeadlinePassedDoesNotJoinBeforeItsBucketIsCleanedUp() throws Exception {
        long deadline = 1_000 + TIMEOUT.toMillis();
        assertThat(function.decisionCleanup(deadline)).as("a deadline inside a bucket").isGreaterThan(deadline);
        harness.processElement1(new StreamRecord<>(decision("r8", "w1", 1_000), 1_000));
        watermark(deadline); // the deadline has passed, the bucket's clean-up timer has not fired
        assertThat(harness.numKeyedStateEntries()).isPositive();
        harness.processElement2(new StreamRecord<>(completion("r8", "w1", deadline + 5, true), deadline + 5));
        assertThat(harness.extractOutputValues()).as("as with a timer at the deadline: no join").isEmpty();
        assertUnmatched(1, 0);
        watermark(function.completionCleanup(deadline + 5 + GRACE.toMillis()));
        assertUnmatched(1, 1);
        assertNoStateLeft();
    }

    @Test
    void aLatePairStillJoinsBeforeTheNextWatermark() throws Exception {
        long now = 10_000_000;
        watermark(now);
        long late = now - TIMEOUT.toMillis() - 60_000; // both deadlines are behind the watermark on arrival
        harness.processElement1(new StreamRecord<>(decision("r9", "w1", late), late));
        harness.processElement2(new StreamRecord<>(completion("r9", "w1", late + 5, true), late + 5));
        assertThat(harness.extractOutputValues()).hasSize(1);
        assertNoStateLeft();
    }

    @Test
    void aLateSideWaitsItsTimeoutFromItsArrivalSoAWatermarkStepDoesNotLoseThePair() throws Exception {
        long now = 10_000_000;
        watermark(now);
        long late = now - TIMEOUT.toMillis() - 60_000;
        harness.processElement1(new StreamRecord<>(decision("r9", "w1", late), late));
        // the watermark moves on (other requests, telemetry) before the completion arrives on its own topic
        watermark(now + TIMEOUT.toMillis() / 2);
        harness.processElement2(new StreamRecord<>(completion("r9", "w1", late + 5, true), late + 5));
        assertThat(harness.extractOutputValues()).as("the late decision still waited for its completion").hasSize(1);
        assertUnmatched(0, 0);
        // a late side alone is counted once the watermark has moved its wait past its arrival
        harness.processElement2(new StreamRecord<>(completion("r10", "w1", late, true), late));
        long arrival = now + TIMEOUT.toMillis() / 2;
        watermark(arrival + GRACE.toMillis() - 1);
        assertUnmatched(0, 0);
        watermark(function.completionCleanup(arrival + GRACE.toMillis()));
        assertUnmatched(0, 1);
        assertNoStateLeft();
    }

    @Test
    void requestsShareTheirShardsCleanupTimers() throws Exception {
        for (int i = 0; i < 1_000; i++) {
            harness.processElement1(new StreamRecord<>(decision("q" + i, "w1", 1_000 + i), 1_000 + i));
        }
        assertThat(harness.numEventTimeTimers()).as("one per shard and bucket, not one per request")
            .isLessThanOrEqualTo(RequestShards.COUNT);
        for (int i = 0; i < 500; i++) {
            harness.processElement2(new StreamRecord<>(completion("q" + i, "w1", 2_000 + i, true), 2_000 + i));
        }
        assertThat(harness.extractOutputValues()).hasSize(500);
        watermark(function.decisionCleanup(1_000 + 999 + TIMEOUT.toMillis()));
        assertUnmatched(500, 0);
        assertNoStateLeft();
    }

    @Test
    void failedCompletionAndWorkerMismatchEmitNoRowAndClearState() throws Exception {
        harness.processElement1(new StreamRecord<>(decision("r5", "w1", 1_000), 1_000));
        harness.processElement2(new StreamRecord<>(completion("r5", "w1", 2_000, false), 2_000));
        harness.processElement1(new StreamRecord<>(decision("r6", "w1", 1_000), 1_000));
        harness.processElement2(new StreamRecord<>(completion("r6", "w9", 2_000, true), 2_000));
        assertThat(harness.extractOutputValues()).isEmpty();
        List<DeadLetter> dead = harness.getSideOutput(InboundSplit.DEAD_LETTERS).stream()
            .map(StreamRecord::getValue).toList();
        assertThat(dead).singleElement().satisfies(d -> {
            assertThat(d.getErrorType().toString()).isEqualTo("UnknownWorker");
            assertThat(d.getReason().toString()).contains("w9").contains("w1");
        });
        assertNoStateLeft();
    }

    @Test
    void duplicateDecisionIsIgnoredAndStateStaysBounded() throws Exception {
        harness.processElement1(new StreamRecord<>(decision("r7", "w1", 1_000), 1_000));
        harness.processElement1(new StreamRecord<>(decision("r7", "w2", 1_100), 1_100));
        assertThat(harness.numEventTimeTimers()).isEqualTo(1);
        harness.processElement2(new StreamRecord<>(completion("r7", "w1", 2_000, true), 2_000));
        assertThat(harness.extractOutputValues()).singleElement().satisfies(r -> assertThat(r.worker).isEqualTo("w1"));
        assertNoStateLeft();
    }

    /**
     * A backlog's steady state: every completion waits a moment for its decision, none expires. Once a shard's
     * first clean-up has counted what waits, its later clean-up timers scan nothing (before the ninth round
     * every completion bucket end scanned every shard's map); a side that does expire is still counted at its
     * bucket's clean-up, exactly as with a scan at every timer.
     */
    @Test
    void matchedRequestsNeedNoCleanupScanOnceTheShardsAreCounted() throws Exception {
        long bucket = GRACE.toMillis() / RequestJoinFunction.COMPLETION_BUCKETS;
        int perBucket = 400;
        int buckets = 20;
        long t = 0;
        for (int b = 0; b < buckets; b++) {
            for (int i = 0; i < perBucket; i++) {
                t += bucket / perBucket;
                String id = "b" + b + "-" + i;
                harness.processElement2(new StreamRecord<>(completion(id, "w1", t, true), t));
                harness.processElement1(new StreamRecord<>(decision(id, "w1", t - 10), t - 10));
            }
            watermark(t - 5_000);
        }
        assertThat(harness.extractOutputValues()).hasSize(buckets * perBucket);
        assertUnmatched(0, 0);
        assertThat(function.scans).as("at most one counting scan per shard and side, not one per bucket end")
            .isLessThanOrEqualTo(2L * RequestShards.COUNT);

        long scansBefore = function.scans;
        harness.processElement2(new StreamRecord<>(completion("alone", "w1", t, true), t));
        watermark(function.completionCleanup(t + GRACE.toMillis()) - 1);
        assertUnmatched(0, 0);
        watermark(function.completionCleanup(t + GRACE.toMillis()));
        assertUnmatched(0, 1);
        assertThat(function.scans).as("the bucket with the expired side was scanned").isGreaterThan(scansBefore);
        assertNoStateLeft();
    }

    /**
     * The counts are not state: after a restore the function does not know what waits, so it registers and scans
     * as if it counted nothing, and a restored side still expires at its bucket's clean-up (also when a new side
     * in the same bucket arrives first).
     */
    @Test
    void aRestoredSideIsStillCountedAtItsBucketsCleanup() throws Exception {
        harness.processElement1(new StreamRecord<>(decision("old", "w1", 1_000), 1_000));
        harness.processElement2(new StreamRecord<>(completion("c-old", "w1", 1_000, true), 1_000));
        OperatorSubtaskState state = harness.snapshot(1, 1);
        harness.close();
        open(state);
        harness.processElement1(new StreamRecord<>(decision("new", "w1", 1_500), 1_500));
        watermark(function.completionCleanup(1_000 + GRACE.toMillis()));
        assertUnmatched(0, 1);
        watermark(function.decisionCleanup(1_500 + TIMEOUT.toMillis()));
        assertUnmatched(2, 1);
        assertNoStateLeft();
    }

    /** A request id in the same shard as {@code requestId}, other than it. */
    static String sameShard(String requestId, String prefix) {
        for (int i = 0; ; i++) {
            String id = prefix + i;
            if (!id.equals(requestId) && RequestShards.of(id).equals(RequestShards.of(requestId))) {
                return id;
            }
        }
    }

    /**
     * The backstop when the watermark never advances (no watermark at all here): a side is counted and removed once it
     * has waited the state TTL of processing time, at its shard's timer (one per shard and bucket of TTL / 4), and not
     * before; a side that arrived later in the same shard waits its own TTL. Nothing is dropped uncounted.
     */
    @Test
    void aSideWhoseWatermarkNeverAdvancesIsCountedAfterTheStateTtlOfWallClock() throws Exception {
        long ttl = STATE_TTL.toMillis();
        for (int i = 0; i < 200; i++) {
            harness.processElement1(new StreamRecord<>(decision("s" + i, "w1", 1_000 + i), 1_000 + i));
        }
        harness.setProcessingTime(ttl / 4 + 1);
        String later = sameShard("s0", "late-c");
        harness.processElement2(new StreamRecord<>(completion(later, "w1", 2_000, true), 2_000));

        harness.setProcessingTime(ttl - 1);
        assertUnmatched(0, 0);
        harness.setProcessingTime(ttl);
        assertUnmatched(200, 0);
        assertThat(function.sidesExpiredByWallClock.getCount()).isEqualTo(200);
        assertThat(shardsWithWaitingSides()).as("the later completion still waits").isEqualTo(1);

        harness.setProcessingTime(ttl + ttl / 2 - 1);
        assertUnmatched(200, 0);
        harness.setProcessingTime(ttl + ttl / 2);
        assertUnmatched(200, 1);
        assertThat(function.sidesExpiredByWallClock.getCount()).isEqualTo(201);
        assertThat(harness.numKeyedStateEntries()).isZero();
        assertThat(harness.numProcessingTimeTimers()).as("none armed again once nothing waits").isZero();
        assertNoStateLeft();
    }

    /**
     * A job restored after an outage longer than the state TTL: the wait counts in running time, the wall clock without
     * the downtime. The sides restored keep the wait they had before the outage (the checkpoint keeps the running clock)
     * and resume it at the restart, so the backlog's partner still joins, and one whose partner never comes is counted
     * when its waits before and after the outage make up the TTL.
     */
    @Test
    void aRestoreAfterALongOutageCountsTheRunningTimeNotTheOutage() throws Exception {
        long ttl = STATE_TTL.toMillis();
        harness.processElement1(new StreamRecord<>(decision("before-1", "w1", 1_000), 1_000));
        harness.processElement1(new StreamRecord<>(decision("before-2", "w1", 1_000), 1_000));
        harness.setProcessingTime(ttl / 2);
        harness.processElement1(new StreamRecord<>(decision("later", "w1", 1_000), 1_000)); // the clock read last
        OperatorSubtaskState state = harness.snapshot(1, 1);
        harness.close();

        long restart = 5 * ttl;
        open(state, restart);
        harness.setProcessingTime(restart + 1); // the timers armed before the outage are overdue: they fire now
        assertUnmatched(0, 0);
        harness.processElement2(new StreamRecord<>(completion("before-1", "w1", 2_000, true), 2_000));
        assertThat(harness.extractOutputValues()).singleElement().satisfies(r -> assertThat(r.worker).isEqualTo("w1"));

        long dueBefore = restart + ttl / 2; // ttl/2 waited before the outage, ttl/2 after the restart
        harness.setProcessingTime(dueBefore - 1);
        assertUnmatched(0, 0);
        harness.setProcessingTime(dueBefore);
        assertUnmatched(1, 0);
        harness.setProcessingTime(restart + ttl - 1);
        assertUnmatched(1, 0);
        harness.setProcessingTime(restart + ttl); // "later" arrived at the checkpoint: its whole wait is after the restart
        assertUnmatched(2, 0);
        assertThat(function.sidesExpiredByWallClock.getCount()).isEqualTo(2);
        assertNoStateLeft();
    }

    /**
     * Failovers during a stall, each shorter than the TTL (1 h up, 30 min down, 45 min up, 30 min down; state TTL 2 h,
     * buckets of 30 min): a side is counted once it has waited 2 h of running time, not 2 h after the last restart and
     * not 2 h of wall clock, so restarts neither keep a stalled join's state growing nor expire sides during the outages.
     */
    @Test
    void sidesExpireAfterTheTtlOfRunningTimeAcrossRestarts() throws Exception {
        long minute = Duration.ofMinutes(1).toMillis();
        harness.processElement1(new StreamRecord<>(decision("stalled", "w1", 1_000), 1_000)); // due at running 2 h
        harness.setProcessingTime(60 * minute);
        OperatorSubtaskState first = harness.snapshot(1, 1); // running 1 h
        harness.close();

        open(first, 90 * minute); // 30 min down: running = wall - 30 min
        harness.setProcessingTime(120 * minute); // the timer armed at wall 2 h fires: running 1 h 30 min, not due
        assertUnmatched(0, 0);
        harness.setProcessingTime(135 * minute);
        OperatorSubtaskState second = harness.snapshot(2, 2); // running 1 h 45 min
        harness.close();

        open(second, 165 * minute); // 30 more min down: running = wall - 1 h
        harness.setProcessingTime(165 * minute + 1);
        assertUnmatched(0, 0);
        harness.setProcessingTime(180 * minute - 1);
        assertUnmatched(0, 0);
        harness.setProcessingTime(180 * minute); // running 2 h
        assertUnmatched(1, 0);
        assertThat(function.sidesExpiredByWallClock.getCount()).isEqualTo(1);
        assertNoStateLeft();
    }

    /**
     * A side whose event-time deadline the watermark has passed, but whose clean-up bucket has not ended, is counted
     * when the backstop meets it first, but not as the backstop's: the watermark did not stall for it.
     */
    @Test
    void aSideTheWatermarkExpiredIsNotCountedAsTheWallClocks() throws Exception {
        harness.processElement1(new StreamRecord<>(decision("late-cleanup", "w1", 1_000), 1_000));
        long deadline = 1_000 + TIMEOUT.toMillis();
        watermark(deadline + 1);
        assertThat(function.decisionCleanup(deadline)).as("its bucket ends later").isGreaterThan(deadline + 1);
        assertUnmatched(0, 0);
        harness.setProcessingTime(STATE_TTL.toMillis());
        assertUnmatched(1, 0);
        assertThat(function.sidesExpiredByWallClock.getCount()).isZero();
        assertNoStateLeft();
    }
}
