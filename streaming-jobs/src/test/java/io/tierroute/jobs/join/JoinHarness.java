package io.tierroute.jobs.join;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;

/** The join's tests' operator harness: {@code function} keyed by request shard, as the job runs it. */
final class JoinHarness {

    private JoinHarness() {
    }

    /** Opened with its processing time at {@code clockMs}, restored from {@code state} when it is not null. */
    static KeyedTwoInputStreamOperatorTestHarness<Integer, DecisionRow, CompletionRow, JoinedRow> open(
            RequestJoinFunction function, OperatorSubtaskState state, long clockMs) throws Exception {
        KeyedTwoInputStreamOperatorTestHarness<Integer, DecisionRow, CompletionRow, JoinedRow> harness =
            new KeyedTwoInputStreamOperatorTestHarness<>(new KeyedCoProcessOperator<>(function),
                new RequestShards.OfDecision(), new RequestShards.OfCompletion(), Types.INT);
        harness.setProcessingTime(clockMs);
        if (state != null) {
            harness.initializeState(state);
        }
        harness.open();
        return harness;
    }
}
