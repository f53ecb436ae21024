package io.tierroute.jobs.bench;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.jobs.join.RequestJoinFunction;
import io.tierroute.jobs.join.RequestShards;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;

/**
 * CPU per request (decision + completion) of the join function alone on Flink's operator harness (heap
 * state backend, heap timer queue), with {@code -Dlag=N} requests waiting for their completion at any
 * time (default 500): how much the join's state and timers cost as the number of waiting requests grows
 * (keyed by {@link RequestShards shard} since the sixth round; the fourth round's per-request timers before).
 */
public final class JoinFunctionCost {
    private JoinFunctionCost() {}

    public static void main(String[] args) throws Exception {
        int lag = Integer.getInteger("lag", 500);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 5; round++) { // the first rounds warm the JIT up
            RequestJoinFunction f = new RequestJoinFunction(Duration.ofMinutes(30), Duration.ofMinutes(2),
                Duration.ofHours(2), "bench");
            var h = new KeyedTwoInputStreamOperatorTestHarness<Integer, DecisionRow, CompletionRow, JoinedRow>(
                new KeyedCoProcessOperator<>(f), new RequestShards.OfDecision(), new RequestShards.OfCompletion(),
                Types.INT);
            h.open();
            int n = 300_000;
            long cpu0 = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                long t = 1_000_000L + i * 20L;
                DecisionRow d = new DecisionRow();
                d.requestId = "req-" + i;
                d.scope = "s";
                d.worker = "w" + (i % 8);
                d.timestampMs = t;
                d.request.model = "m";
                h.processElement1(new StreamRecord<>(d, t));
                if (i >= lag) {
                    int j = i - lag;
                    CompletionRow c = new CompletionRow();
                    c.requestId = "req-" + j;
                    c.scope = "s";
                    c.worker = "w" + (j % 8);
                    c.finishedTimeMs = t;
                    c.ok = true;
                    h.processElement2(new StreamRecord<>(c, t));
                }
                if (i % 1000 == 0) {
                    h.processWatermark1(new Watermark(t - 5000));
                    h.processWatermark2(new Watermark(t - 5000));
                }
                if (i % 50_000 == 0) {
                    h.getOutput().clear();
                }
            }
            System.out.printf("round %d: %.2f µs CPU per request, %d requests waiting, %d event-time timers%n", round,
                (threads.getCurrentThreadCpuTime() - cpu0) / 1e3 / n, lag, h.numEventTimeTimers());
            h.close();
        }
    }
}
