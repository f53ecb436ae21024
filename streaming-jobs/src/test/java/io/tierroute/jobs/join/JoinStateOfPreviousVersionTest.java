package io.tierroute.jobs.join;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.serde.PendingJoinSerializer;
import io.tierroute.jobs.serde.RowFields;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The join restored from checkpoints of earlier versions (Flink's operator harness). A decision waiting in state
 * written in the old row layout, with the old serializer snapshot (the layout-1 {@link PendingJoinSerializer}: the
 * same bytes and snapshot class and version), is migrated on restore and joins its completion; the joined row keeps
 * every old field and has no admission-wait row. Sides of the version before the arrival clock, kept under Flink's
 * state TTL, restore into the join's plain map states on both state backends, join, and are counted by the wall-clock
 * backstop when their partner never comes.
 */
class JoinStateOfPreviousVersionTest {
    private static final Duration TTL = Duration.ofHours(2);

    /**
     * What earlier versions' join kept: the same state names, Flink's state TTL as they configured it, waiting sides in
     * an older layout ({@link RowFields#LAYOUT_BEFORE_KV_WAIT}, or {@link RowFields#LAYOUT_KV_WAIT} without the arrival
     * clock).
     */
    static final class PreviousJoin extends KeyedCoProcessFunction<Integer, DecisionRow, CompletionRow, JoinedRow> {
        private final int layout;
        private transient MapState<String, PendingJoin> decisions;

        PreviousJoin(int layout) {
            this.layout = layout;
        }

        @Override
        public void open(OpenContext ctx) {
            MapStateDescriptor<String, PendingJoin> d = new MapStateDescriptor<>(RequestJoinFunction.DECISIONS,
                StringSerializer.INSTANCE, PendingJoinSerializer.of(layout));
            d.enableTimeToLive(StateTtlConfig.newBuilder(TTL)
                .disableCleanupInBackground()
                .cleanupFullSnapshot()
                .cleanupInRocksdbCompactFilter(1000)
                .build());
            decisions = getRuntimeContext().getMapState(d);
        }

        @Override
        public void processElement1(DecisionRow d, Context ctx, Collector<JoinedRow> out) throws Exception {
            decisions.put(d.requestId, new PendingJoin(d, null, d.timestampMs + Duration.ofMinutes(30).toMillis(),
                Long.MIN_VALUE, PendingJoin.UNKNOWN_ARRIVAL_CLOCK));
        }

        @Override
        public void processElement2(CompletionRow c, Context ctx, Collector<JoinedRow> out) {
            throw new UnsupportedOperationException();
        }
    }

    private static <F extends KeyedCoProcessFunction<Integer, DecisionRow, CompletionRow, JoinedRow>>
            KeyedTwoInputStreamOperatorTestHarness<Integer, DecisionRow, CompletionRow, JoinedRow> harness(F f)
            throws Exception {
        return new KeyedTwoInputStreamOperatorTestHarness<>(new KeyedCoProcessOperator<>(f),
            new RequestShards.OfDecision(), new RequestShards.OfCompletion(), Types.INT);
    }

    private static <F extends KeyedCoProcessFunction<Integer, DecisionRow, CompletionRow, JoinedRow>>
            KeyedTwoInputStreamOperatorTestHarness<Integer, DecisionRow, CompletionRow, JoinedRow> harness(F f,
            String backend) throws Exception {
        var h = harness(f);
        h.setStateBackend(backend.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend());
        return h;
    }

    private static DecisionRow decision(String id) {
        DecisionRow d = new DecisionRow();
        d.requestId = id;
        d.scope = "default";
        d.worker = "w1";
        d.timestampMs = 10_000;
        d.regressors.pEffTokens = 1000;
        d.request.isl = 1200;
        d.request.model = "m";
        d.request.maxTokens = 512;
        d.admission.kvUsedTokens = 4_096;
        return d;
    }

    private static CompletionRow completion(String id) {
        CompletionRow c = new CompletionRow();
        c.requestId = id;
        c.scope = "default";
        c.worker = "w1";
        c.finishedTimeMs = 12_000;
        c.ok = true;
        c.realisedUs = 4000;
        c.outputTokens = 77;
        return c;
    }

    /**
     * The version just before the arrival clock (row layout 2, Flink's state TTL on the maps) on either backend: the
     * restored decision joins its completion with every field, and a restored decision whose completion never comes is
     * counted by the wall-clock backstop a state TTL after the restart (the old version armed no such timer; the first
     * input of its shard arms one), never dropped uncounted. The state this version writes then restores on the same
     * backend with its timers, and a side's wait excludes the downtime.
     */
    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void sidesKeptUnderFlinksStateTtlRestoreJoinAndAreCountedByTheWallClock(String backend) throws Exception {
        String stalled = RequestJoinFunctionTest.sameShard("joins", "stalled-");
        OperatorSubtaskState state;
        try (var previous = harness(new PreviousJoin(RowFields.LAYOUT_KV_WAIT), backend)) {
            previous.open();
            for (String id : List.of("joins", stalled)) {
                DecisionRow d = decision(id);
                previous.processElement1(new StreamRecord<>(d, d.timestampMs));
            }
            state = previous.snapshot(1, 1);
        }

        RequestJoinFunction join = new RequestJoinFunction(Duration.ofMinutes(30), Duration.ofMinutes(2), TTL, "t");
        long ttl = TTL.toMillis();
        long restart = 1_000_000;
        String fresh = RequestJoinFunctionTest.sameShard("joins", "fresh-");
        OperatorSubtaskState current;
        try (var restored = harness(join, backend)) {
            restored.setProcessingTime(restart);
            restored.initializeState(state);
            restored.open();
            CompletionRow c = completion("joins"); // joins at once, and arms the shard's wall-clock timer
            restored.processElement2(new StreamRecord<>(c, c.finishedTimeMs));
            assertThat(restored.extractOutputValues()).singleElement().satisfies(j -> {
                assertThat(j.request.isl).isEqualTo(1200);
                assertThat(j.admission.kvUsedTokens).isEqualTo(4_096);
            });

            restored.setProcessingTime(restart + ttl - 1);
            assertThat(join.decisionsNeverCompleted.getCount()).isZero();
            restored.setProcessingTime(restart + ttl + ttl / 4);
            assertThat(join.decisionsNeverCompleted.getCount()).as("the restored one, a TTL after the restart").isEqualTo(1);
            assertThat(join.sidesExpiredByWallClock.getCount()).isEqualTo(1);
            CompletionRow tooLate = completion(stalled);
            restored.processElement2(new StreamRecord<>(tooLate, tooLate.finishedTimeMs));
            assertThat(restored.extractOutputValues()).as("the counted decision left the state").hasSize(1);

            DecisionRow d = decision(fresh); // written in the current layout, with its arrival clock
            restored.processElement1(new StreamRecord<>(d, d.timestampMs));
            current = restored.snapshot(2, 2);
        }

        // this version's state and timers restore on the same backend, a TTL of downtime later
        long arrival = restart + ttl + ttl / 4;
        RequestJoinFunction again = new RequestJoinFunction(Duration.ofMinutes(30), Duration.ofMinutes(2), TTL, "t");
        try (var restored = harness(again, backend)) {
            restored.setProcessingTime(arrival + ttl);
            restored.initializeState(current);
            restored.open();
            // due at running arrival + ttl, i.e. wall arrival + 2 ttl; counted at the bucket end after it
            restored.setProcessingTime(arrival + 2 * ttl - 1);
            assertThat(again.decisionsNeverCompleted.getCount()).as("the downtime does not count").isZero();
            restored.setProcessingTime(RequestJoinFunction.bucketEnd(arrival + 2 * ttl, ttl / WallClockBackstop.BUCKETS));
            assertThat(again.decisionsNeverCompleted.getCount()).isEqualTo(1);
            CompletionRow tooLate = completion(fresh);
            restored.processElement2(new StreamRecord<>(tooLate, tooLate.finishedTimeMs));
            assertThat(restored.extractOutputValues()).as("the counted decision left the state").isEmpty();
        }
    }

    /**
     * A side of the version before keeps its wait across later restores: it waits from the first restore into this
     * version (which the checkpoints keep), not from each restart, so failovers during a stall cannot hold it for ever.
     */
    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void aSideOfTheVersionBeforeWaitsFromTheFirstRestoreAcrossLaterOnes(String backend) throws Exception {
        String old = "old-side";
        OperatorSubtaskState state;
        try (var previous = harness(new PreviousJoin(RowFields.LAYOUT_KV_WAIT), backend)) {
            previous.open();
            DecisionRow d = decision(old);
            previous.processElement1(new StreamRecord<>(d, d.timestampMs));
            state = previous.snapshot(1, 1);
        }
        long ttl = TTL.toMillis();
        long upgrade = 1_000_000;
        OperatorSubtaskState afterUpgrade;
        RequestJoinFunction first = new RequestJoinFunction(Duration.ofMinutes(30), Duration.ofMinutes(2), TTL, "t");
        try (var restored = harness(first, backend)) {
            restored.setProcessingTime(upgrade);
            restored.initializeState(state);
            restored.open();
            DecisionRow other = decision(RequestJoinFunctionTest.sameShard(old, "other-")); // arms the shard's timer
            restored.processElement1(new StreamRecord<>(other, other.timestampMs));
            restored.setProcessingTime(upgrade + ttl / 2);
            afterUpgrade = restored.snapshot(2, 2);
        }
        long downtime = ttl;
        long restart = upgrade + ttl / 2 + downtime;
        RequestJoinFunction second = new RequestJoinFunction(Duration.ofMinutes(30), Duration.ofMinutes(2), TTL, "t");
        try (var restored = harness(second, backend)) {
            restored.setProcessingTime(restart);
            restored.initializeState(afterUpgrade);
            restored.open();
            long due = upgrade + ttl + downtime; // a TTL of running time after the upgrade
            restored.setProcessingTime(due - 1);
            assertThat(second.decisionsNeverCompleted.getCount()).isZero();
            restored.setProcessingTime(RequestJoinFunction.bucketEnd(due, ttl / WallClockBackstop.BUCKETS));
            assertThat(second.decisionsNeverCompleted.getCount()).as("the old side and the other").isEqualTo(2);
        }
    }

    @Test
    void aDecisionWaitingInThePreviousLayoutJoinsAfterTheRestore() throws Exception {
        DecisionRow d = decision("r-old");
        d.regressors.kvOverflowTokens = 64;
        d.admission.kvUsedTokens = 9_999; // not in the old layout: lost, as the previous version never had it
        OperatorSubtaskState state;
        try (var previous = harness(new PreviousJoin(RowFields.LAYOUT_BEFORE_KV_WAIT))) {
            previous.open();
            previous.processElement1(new StreamRecord<>(d, d.timestampMs));
            state = previous.snapshot(1, 1);
        }

        CompletionRow c = completion("r-old");
        c.decodeUs = 300_000;
        c.queueWaitUs = 1_000;
        c.prefillUs = 2_000;
        try (var restored = harness(new RequestJoinFunction(Duration.ofMinutes(30), Duration.ofMinutes(2), TTL, "t"))) {
            restored.initializeState(state);
            restored.open();
            restored.processElement2(new StreamRecord<>(c, c.finishedTimeMs));
            List<JoinedRow> out = restored.extractOutputValues();
            assertThat(out).hasSize(1);
            JoinedRow j = out.get(0);
            assertThat(j.regressors.pEffTokens).isEqualTo(1000);
            assertThat(j.regressors.kvOverflowTokens).isEqualTo(64);
            assertThat(j.request.isl).isEqualTo(1200);
            assertThat(j.request.model).isEqualTo("m");
            assertThat(j.decodeUs).isEqualTo(300_000);
            assertThat(j.admission.kvUsedTokens).isNaN();
            assertThat(j.kvWait()).as("unknown decision fields: skipped by the admission wait's fit").isNull();
            // the migrated state snapshots again in the current layout
            assertThat(restored.snapshot(2, 2)).isNotNull();
        }
    }
}
