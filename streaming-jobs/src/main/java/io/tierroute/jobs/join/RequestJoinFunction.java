package io.tierroute.jobs.join;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.DeadLetter;
import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

import static io.tierroute.jobs.ingest.InboundSplit.DEAD_LETTERS;

/**
 * Joins a routing decision with its completion, keyed by request id.
 *
 * <p>State life cycle, per request id: whichever side arrives first is kept with an event-time timer
 * (a decision waits up to {@code decisionTimeout} for its completion; a completion waits
 * {@code completionGrace} for a decision that is still in flight on its topic). The other side
 * emits the joined row and clears both values and the timer. When the timer fires first, the
 * waiting side is counted ({@code decisionsNeverCompleted} or {@code completionsWithoutDecision})
 * and cleared. A processing-time state TTL backs this up when the watermark stalls. A completion
 * whose worker is not the decision's chosen worker is a dead letter ("unknown worker"); a FAILED or
 * CANCELLED completion is counted and dropped (it has no time to first token to fit).
 */
public class RequestJoinFunction extends KeyedCoProcessFunction<String, DecisionRow, CompletionRow, JoinedRow> {
    private static final long serialVersionUID = 1L;

    static final String DECISION = "decision";
    static final String COMPLETION = "completion";
    static final String TIMER = "timer";

    private final long decisionTimeoutMs;
    private final long completionGraceMs;
    private final Duration stateTtl;
    private final String consumer;

    private transient ValueState<DecisionRow> decision;
    private transient ValueState<CompletionRow> completion;
    private transient ValueState<Long> timer;
    private transient Counter joined;
    private transient Counter decisionsNeverCompleted;
    private transient Counter completionsWithoutDecision;
    private transient Counter duplicates;
    private transient Counter failedCompletions;
    private transient Counter workerMismatches;

    public RequestJoinFunction(Duration decisionTimeout, Duration completionGrace, Duration stateTtl, String consumer) {
        this.decisionTimeoutMs = decisionTimeout.toMillis();
        this.completionGraceMs = completionGrace.toMillis();
        this.stateTtl = stateTtl;
        this.consumer = consumer;
    }

    static <T> ValueStateDescriptor<T> descriptor(String name, Class<T> type, Duration ttl) {
        ValueStateDescriptor<T> d = new ValueStateDescriptor<>(name, type);
        d.enableTimeToLive(StateTtlConfig.newBuilder(ttl).build());
        return d;
    }

    @Override
    public void open(OpenContext openContext) {
        AvroTrust.install(); // dead letters (Avro) are copied by Flink's Avro serializer on this TaskManager
        decision = getRuntimeContext().getState(descriptor(DECISION, DecisionRow.class, stateTtl));
        completion = getRuntimeContext().getState(descriptor(COMPLETION, CompletionRow.class, stateTtl));
        timer = getRuntimeContext().getState(descriptor(TIMER, Long.class, stateTtl));
        var metrics = getRuntimeContext().getMetricGroup();
        joined = metrics.counter("joinedRows");
        decisionsNeverCompleted = metrics.counter("decisionsNeverCompleted");
        completionsWithoutDecision = metrics.counter("completionsWithoutDecision");
        duplicates = metrics.counter("duplicateJoinInputs");
        failedCompletions = metrics.counter("failedCompletions");
        workerMismatches = metrics.counter("completionWorkerMismatches");
    }

    @Override
    public void processElement1(DecisionRow d, Context ctx, Collector<JoinedRow> out) throws Exception {
        if (decision.value() != null) {
            duplicates.inc();
            return;
        }
        CompletionRow c = completion.value();
        if (c != null) {
            emit(d, c, ctx, out);
            clear(ctx);
            return;
        }
        decision.update(d);
        arm(ctx, d.timestampMs + decisionTimeoutMs);
    }

    @Override
    public void processElement2(CompletionRow c, Context ctx, Collector<JoinedRow> out) throws Exception {
        if (completion.value() != null) {
            duplicates.inc();
            return;
        }
        DecisionRow d = decision.value();
        if (d != null) {
            emit(d, c, ctx, out);
            clear(ctx);
            return;
        }
        completion.update(c);
        arm(ctx, c.finishedTimeMs + completionGraceMs);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<JoinedRow> out) throws Exception {
        if (decision.value() != null) {
            decisionsNeverCompleted.inc();
        }
        if (completion.value() != null) {
            completionsWithoutDecision.inc();
        }
        decision.clear();
        completion.clear();
        timer.clear();
    }

    private void arm(Context ctx, long at) throws Exception {
        ctx.timerService().registerEventTimeTimer(at);
        timer.update(at);
    }

    private void clear(Context ctx) throws Exception {
        Long t = timer.value();
        if (t != null) {
            ctx.timerService().deleteEventTimeTimer(t);
        }
        decision.clear();
        completion.clear();
        timer.clear();
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

    /** The joined row of a decision and its OK completion. */
    static JoinedRow join(DecisionRow d, CompletionRow c) {
        JoinedRow r = new JoinedRow();
        r.scope = d.scope;
        r.worker = d.worker;
        r.eventTimeMs = c.finishedTimeMs;
        r.realisedUs = c.realisedUs;
        r.pEffTokens = d.pEffTokens;
        r.kvOverflowTokens = d.kvOverflowTokens;
        r.recomputeQuadratic = d.recomputeQuadratic;
        r.inflightDecodeTokens = d.inflightDecodeTokens;
        r.inflightDecodeQuadratic = d.inflightDecodeQuadratic;
        r.tierTransferUs = d.tierTransferUs;
        r.queueLength = d.queueLength;
        r.affinityDecay = d.affinityDecay;
        r.expectedToolHitFraction = d.expectedToolHitFraction;
        if (d.idleSinceLastStepMs != null && d.affinityDecay > 0) {
            r.returnIdleSeconds = d.idleSinceLastStepMs / 1000.0;
        }
        r.cacheHit = c.cachedTokens > 0;
        r.isl = d.isl;
        r.model = d.model;
        r.lora = d.lora;
        r.stepIndex = d.stepIndex;
        r.expectedTool = d.expectedTool;
        r.maxTokens = d.maxTokens;
        r.outputHint = d.outputHint;
        r.prefixGroupId = d.prefixGroupId;
        r.previousStepOutputTokens = d.previousStepOutputTokens;
        r.outputTokens = c.outputTokens;
        return r;
    }
}
