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
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/**
 * The join restored from a checkpoint of the previous version (heap state backend, Flink's operator harness): a
 * decision waiting in state written in the old row layout, with the old serializer snapshot (the layout-1
 * {@link PendingJoinSerializer}: the same bytes and snapshot class and version), is migrated on restore and joins
 * its completion; the joined row keeps every old field and has no admission-wait row.
 */
class JoinStateOfPreviousVersionTest {
    private static final Duration TTL = Duration.ofHours(2);

    /** What the previous version's join kept: the same state names and TTL, rows in the layout before the kv fields. */
    static final class PreviousJoin extends KeyedCoProcessFunction<Integer, DecisionRow, CompletionRow, JoinedRow> {
        private transient MapState<String, PendingJoin> decisions;

        @Override
        public void open(OpenContext ctx) {
            MapStateDescriptor<String, PendingJoin> d = new MapStateDescriptor<>(RequestJoinFunction.DECISIONS,
                StringSerializer.INSTANCE, PendingJoinSerializer.of(RowFields.LAYOUT_BEFORE_KV_WAIT));
            d.enableTimeToLive(RequestJoinFunction.descriptor(RequestJoinFunction.DECISIONS, TTL).getTtlConfig());
            decisions = getRuntimeContext().getMapState(d);
        }

        @Override
        public void processElement1(DecisionRow d, Context ctx, Collector<JoinedRow> out) throws Exception {
            decisions.put(d.requestId, new PendingJoin(d, null, d.timestampMs + Duration.ofMinutes(30).toMillis(),
                Long.MIN_VALUE));
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

    @Test
    void aDecisionWaitingInThePreviousLayoutJoinsAfterTheRestore() throws Exception {
        DecisionRow d = new DecisionRow();
        d.requestId = "r-old";
        d.scope = "default";
        d.worker = "w1";
        d.timestampMs = 10_000;
        d.regressors.pEffTokens = 1000;
        d.regressors.kvOverflowTokens = 64;
        d.request.isl = 1200;
        d.request.model = "m";
        d.request.maxTokens = 512;
        d.admission.kvUsedTokens = 9_999; // not in the old layout: lost, as the previous version never had it
        OperatorSubtaskState state;
        try (var previous = harness(new PreviousJoin())) {
            previous.open();
            previous.processElement1(new StreamRecord<>(d, d.timestampMs));
            state = previous.snapshot(1, 1);
        }

        CompletionRow c = new CompletionRow();
        c.requestId = "r-old";
        c.scope = "default";
        c.worker = "w1";
        c.finishedTimeMs = 12_000;
        c.ok = true;
        c.realisedUs = 4000;
        c.outputTokens = 77;
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
