package io.tierroute.jobs.join;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import java.time.Duration;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The join's event-time clean-up timers while the watermark stalls (a source partition whose event time stops) and the
 * other partitions' event times go on: the wall-clock backstop removes the sides, and with them the timers of the
 * buckets no side holds any more, so the timers stay bounded by the shards times the buckets that hold sides (about
 * the state TTL's worth) instead of growing with the stall (before: 116 886 timers after one simulated day at 128
 * unmatched completions a minute, 350 940 after three). Counted on the operator harness, not by timing.
 */
class RequestJoinTimerBoundTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(30);
    private static final Duration GRACE = Duration.ofMinutes(2);
    private static final Duration STATE_TTL = Duration.ofHours(2);
    private static final long MINUTE = 60_000;
    private static final long T0 = 1_700_000_000_000L;
    private static final long DECISION_BUCKET = TIMEOUT.toMillis() / RequestJoinFunction.DECISION_BUCKETS;
    private static final long COMPLETION_BUCKET = GRACE.toMillis() / RequestJoinFunction.COMPLETION_BUCKETS;
    /**
     * How long a side can wait under a stalled watermark: the TTL of running time to its backstop timer, which is at the
     * end of a bucket of TTL / 4.
     */
    private static final long LONGEST_WAIT = STATE_TTL.toMillis() + STATE_TTL.toMillis() / WallClockBackstop.BUCKETS;

    private RequestJoinFunction function;
    private KeyedTwoInputStreamOperatorTestHarness<Integer, DecisionRow, CompletionRow, JoinedRow> harness;

    @BeforeEach
    void open() throws Exception {
        open(null, 0);
    }

    private void open(OperatorSubtaskState state, long clockMs) throws Exception {
        function = new RequestJoinFunction(TIMEOUT, GRACE, STATE_TTL, "test");
        harness = JoinHarness.open(function, state, clockMs);
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    private static DecisionRow decision(String id, long t) {
        DecisionRow d = new DecisionRow();
        d.requestId = id;
        d.scope = "default";
        d.worker = "w";
        d.timestampMs = t;
        d.request.isl = 1200;
        d.request.model = "m";
        d.request.maxTokens = 512;
        return d;
    }

    private static CompletionRow completion(String id, long t) {
        CompletionRow c = new CompletionRow();
        c.requestId = id;
        c.scope = "default";
        c.worker = "w";
        c.finishedTimeMs = t;
        c.ok = true;
        return c;
    }

    private void decide(String id, long t) throws Exception {
        harness.processElement1(new StreamRecord<>(decision(id, t), t));
    }

    private void complete(String id, long t) throws Exception {
        harness.processElement2(new StreamRecord<>(completion(id, t), t));
    }

    private void watermark(long t) throws Exception {
        harness.processWatermark1(new Watermark(t));
        harness.processWatermark2(new Watermark(t));
    }

    /** Buckets of {@code bucketMs} a shard can hold sides in at once under a stall: the longest wait's, and its ends. */
    private static long bucketsAlive(long bucketMs) {
        return LONGEST_WAIT / bucketMs + 2;
    }

    /**
     * The audit's scenario: the watermark stalls at T0 while 128 completions a minute whose decisions never come arrive,
     * event time and wall clock moving together, for three days. Before, every completion bucket's timer stayed (one per
     * shard and minute: 116 886 after a day, 350 940 after three); now only those of buckets holding sides, at most
     * shards × completion buckets alive, and the same on the third day as on the first. When the watermark resumes, the
     * sides still waiting are counted by event time and nothing is left.
     */
    @Test
    void aStalledWatermarkKeepsOnlyTheTimersOfBucketsThatHoldSides() throws Exception {
        watermark(T0); // then stalls: one partition's event time stops here
        long clock = 0;
        int n = 0;
        long bound = RequestShards.COUNT * bucketsAlive(COMPLETION_BUCKET);
        int[] timersAtDayEnd = new int[4];
        for (int day = 1; day <= 3; day++) {
            for (int minute = 0; minute < 1440; minute++) {
                long ev = T0 + ((day - 1) * 1440L + minute) * MINUTE;
                for (int k = 0; k < 128; k++) {
                    complete("r" + (n++), ev);
                }
                clock += MINUTE;
                harness.setProcessingTime(clock);
                if (minute % 60 == 59) {
                    assertThat(harness.numEventTimeTimers()).as("event-time timers on day %d, minute %d", day, minute)
                        .isLessThanOrEqualTo((int) bound);
                }
            }
            timersAtDayEnd[day] = harness.numEventTimeTimers();
        }
        long expiredByClock = function.sidesExpiredByWallClock.getCount();
        assertThat(expiredByClock).as("the backstop removed all but the last TTL's sides")
            .isGreaterThan(n - 128L * LONGEST_WAIT / MINUTE);
        assertThat(timersAtDayEnd[3]).as("timers after three days: no more than after one (before: 350 940 vs 116 886)")
            .isLessThanOrEqualTo(timersAtDayEnd[1] + RequestShards.COUNT);
        assertThat(function.cleanupTimersDeleted).as("one delete per shard and bucket at most, not per request")
            .isLessThanOrEqualTo(RequestShards.COUNT * 3 * 1440L);

        watermark(Long.MAX_VALUE); // the partition resumes
        assertThat(function.completionsWithoutDecision.getCount()).as("every completion counted once").isEqualTo(n);
        assertThat(function.sidesExpiredByWallClock.getCount()).isEqualTo(expiredByClock);
        assertThat(harness.numKeyedStateEntries()).isZero();
        assertThat(harness.numEventTimeTimers()).isZero();
    }

    /**
     * One minute of event time from {@code ev}: 64 requests with ids from {@code first}, a third of the completions
     * before their decisions, and one decision in ten that never completes; returns how many never complete.
     */
    private int matchedMinute(long ev, int first) throws Exception {
        int neverCompleted = 0;
        for (int k = 0; k < 64; k++) {
            String id = "m" + (first + k);
            long t = ev + k * 500L;
            if (k % 10 == 0) {
                decide(id, t);
                neverCompleted++;
            } else if (k % 3 == 0) {
                complete(id, t + 2_000);
                decide(id, t);
            } else {
                decide(id, t);
                complete(id, t + 2_000);
            }
        }
        return neverCompleted;
    }

    /**
     * Joins empty buckets too: under a stall, matched requests (a third of the completions before their decisions) and
     * one decision in ten that never completes, for a day. The timers of buckets that joins emptied are deleted by the
     * backstop's next pass of the shard, so the timers stay bounded and do not grow; every join and count is as before.
     */
    @Test
    void bucketsEmptiedByJoinsDuringAStallLoseTheirTimersToo() throws Exception {
        watermark(T0);
        long clock = 0;
        int requests = 0;
        int neverCompleted = 0;
        long bound = RequestShards.COUNT * (bucketsAlive(DECISION_BUCKET) + bucketsAlive(COMPLETION_BUCKET));
        int timersAt6h = 0;
        for (int minute = 0; minute < 1440; minute++) {
            long ev = T0 + minute * MINUTE;
            neverCompleted += matchedMinute(ev, requests);
            requests += 64;
            clock += MINUTE;
            harness.setProcessingTime(clock);
            if (minute % 60 == 59) {
                assertThat(harness.numEventTimeTimers()).as("event-time timers at minute %d", minute)
                    .isLessThanOrEqualTo((int) bound);
            }
            if (minute == 6 * 60 - 1) {
                timersAt6h = harness.numEventTimeTimers();
            }
        }
        assertThat(harness.numEventTimeTimers()).as("timers after a day: no more than after 6 h")
            .isLessThanOrEqualTo(timersAt6h + RequestShards.COUNT);
        assertThat(harness.extractOutputValues()).hasSize(requests - neverCompleted);

        watermark(Long.MAX_VALUE);
        assertThat(function.decisionsNeverCompleted.getCount()).isEqualTo(neverCompleted);
        assertThat(function.completionsWithoutDecision.getCount()).isZero();
        assertThat(harness.numKeyedStateEntries()).isZero();
        assertThat(harness.numEventTimeTimers()).isZero();
    }

    /**
     * One delete per bucket, not per side: 100 completions of one shard in one bucket, expired by the wall clock
     * together, delete their one timer. A side that enters the bucket afterwards registers it again and is counted by
     * event time when the watermark resumes.
     */
    @Test
    void anEmptiedBucketsTimerIsDeletedOnceAndRegisteredAgainForANewSide() throws Exception {
        watermark(T0);
        long ev = T0 + 10 * MINUTE;
        String first = "c-0";
        complete(first, ev);
        for (int i = 1; i < 100; i++) {
            complete(RequestJoinFunctionTest.sameShard(first, "c-" + i + "-"), ev);
        }
        assertThat(harness.numEventTimeTimers()).isEqualTo(1);
        harness.setProcessingTime(LONGEST_WAIT);
        assertThat(function.sidesExpiredByWallClock.getCount()).isEqualTo(100);
        assertThat(harness.numEventTimeTimers()).as("the emptied bucket's timer").isZero();
        assertThat(function.cleanupTimersDeleted).isEqualTo(1);

        complete(RequestJoinFunctionTest.sameShard(first, "again-"), ev); // the same bucket as the hundred
        assertThat(harness.numEventTimeTimers()).as("registered again").isEqualTo(1);
        watermark(function.completionCleanup(ev + GRACE.toMillis()) - 1);
        assertThat(function.completionsWithoutDecision.getCount()).isEqualTo(100);
        watermark(function.completionCleanup(ev + GRACE.toMillis()));
        assertThat(function.completionsWithoutDecision.getCount()).as("counted by event time").isEqualTo(101);
        assertThat(function.sidesExpiredByWallClock.getCount()).isEqualTo(100);
        assertThat(harness.numKeyedStateEntries()).isZero();
        assertThat(harness.numEventTimeTimers()).isZero();
    }

    /**
     * A decision bucket and a completion bucket that end at the same time share one timer: emptying the completions'
     * keeps it while a decision waits in the other, and the decision is then counted by event time.
     */
    @Test
    void aTimerSharedByBothSidesStaysWhileEitherHoldsItsBucket() throws Exception {
        long end = (T0 / (4 * DECISION_BUCKET) + 4) * 4 * DECISION_BUCKET; // a bucket end of both sides
        assertThat(end % COMPLETION_BUCKET).isZero();
        assertThat(end - TIMEOUT.toMillis()).as("the decision is not late").isGreaterThan(T0);
        watermark(T0);
        assertThat(function.completionCleanup(end)).isEqualTo(end);
        assertThat(function.decisionCleanup(end)).isEqualTo(end);
        complete("c", end - GRACE.toMillis()); // deadline: end
        harness.setProcessingTime(STATE_TTL.toMillis() / 2);
        String d = RequestJoinFunctionTest.sameShard("c", "d");
        decide(d, end - TIMEOUT.toMillis()); // deadline: end
        assertThat(harness.numEventTimeTimers()).isEqualTo(1);

        harness.setProcessingTime(STATE_TTL.toMillis());
        assertThat(function.completionsWithoutDecision.getCount()).as("the completion, by the wall clock").isEqualTo(1);
        assertThat(harness.numEventTimeTimers()).as("the decision still needs it").isEqualTo(1);
        watermark(end);
        assertThat(function.decisionsNeverCompleted.getCount()).as("the decision, by event time").isEqualTo(1);
        assertThat(function.sidesExpiredByWallClock.getCount()).isEqualTo(1);
        assertThat(harness.numKeyedStateEntries()).isZero();
        assertThat(harness.numEventTimeTimers()).isZero();
    }

    /**
     * After a restore (the counts are in memory only; the pending timers are in state): a restored side the wall clock
     * expires has its bucket's timer deleted, and so does one whose bucket a join emptied after the restore, which the
     * run before registered. Without the pending timers in state, that timer stayed until the watermark reached it.
     */
    @Test
    void restoredSidesTimersAreDeletedByTheBackstopWhetherItOrAJoinEmptiedTheirBucket() throws Exception {
        watermark(T0);
        long ev = T0 + 10 * MINUTE;
        complete("expires", ev);
        String joins = "joins";
        complete(joins, ev + 5 * MINUTE);
        assertThat(harness.numEventTimeTimers()).isEqualTo(2);
        OperatorSubtaskState state = harness.snapshot(1, 1);
        harness.close();

        open(state, 0);
        decide(joins, ev);
        assertThat(harness.extractOutputValues()).hasSize(1);
        harness.setProcessingTime(LONGEST_WAIT);
        assertThat(function.completionsWithoutDecision.getCount()).isEqualTo(1);
        assertThat(function.sidesExpiredByWallClock.getCount()).isEqualTo(1);
        assertThat(harness.numEventTimeTimers()).as("both buckets' timers, registered by the run before").isZero();
        assertThat(function.cleanupTimersDeleted).isEqualTo(2);
        watermark(Long.MAX_VALUE);
        assertThat(function.completionsWithoutDecision.getCount()).isEqualTo(1);
        assertThat(function.decisionsNeverCompleted.getCount()).isZero();
        assertThat(harness.numKeyedStateEntries()).isZero();
        assertThat(harness.numEventTimeTimers()).isZero();
    }

    /**
     * A job restored every 20 min through a stalled day, with matched requests (joins empty most buckets) and one
     * decision in ten that never completes: the timers stay as bounded as in one run and do not grow over the day
     * (with the pending timers in memory only, a reviewer's probe went from 6 820 to 22 691). Every join and count is
     * as in one run.
     */
    @Test
    void restoresDuringAStallKeepTheTimersBounded() throws Exception {
        watermark(T0);
        long clock = 0;
        int requests = 0;
        int neverCompleted = 0;
        int joined = 0;
        long neverCompletedCounted = 0;
        long bound = RequestShards.COUNT * (bucketsAlive(DECISION_BUCKET) + bucketsAlive(COMPLETION_BUCKET));
        int timersAt6h = 0;
        for (int minute = 0; minute < 1440; minute++) {
            long ev = T0 + minute * MINUTE;
            neverCompleted += matchedMinute(ev, requests);
            requests += 64;
            clock += MINUTE;
            harness.setProcessingTime(clock);
            if (minute % 20 == 19) {
                joined += harness.extractOutputValues().size();
                neverCompletedCounted += function.decisionsNeverCompleted.getCount();
                OperatorSubtaskState state = harness.snapshot(minute, clock);
                harness.close();
                open(state, clock);
            }
            if (minute % 60 == 59) {
                assertThat(harness.numEventTimeTimers()).as("event-time timers at minute %d", minute)
                    .isLessThanOrEqualTo((int) bound);
            }
            if (minute == 6 * 60 - 1) {
                timersAt6h = harness.numEventTimeTimers();
            }
        }
        assertThat(harness.numEventTimeTimers()).as("timers after a day of restores: no more than after 6 h")
            .isLessThanOrEqualTo(timersAt6h + RequestShards.COUNT);
        assertThat(joined + harness.extractOutputValues().size()).isEqualTo(requests - neverCompleted);

        watermark(Long.MAX_VALUE);
        assertThat(neverCompletedCounted + function.decisionsNeverCompleted.getCount()).isEqualTo(neverCompleted);
        assertThat(function.completionsWithoutDecision.getCount()).isZero();
        assertThat(harness.numKeyedStateEntries()).isZero();
        assertThat(harness.numEventTimeTimers()).isZero();
    }
}
