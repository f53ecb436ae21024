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
 * and cleared. A processing-time state TTL ({@code stateTtl}) backs this up when the watermark stalls.
 * All of it is one value state ({@link PendingJoin}): one state access per input. A completion
 * whose worker is not the decision's chosen worker is a dead letter ("unknown worker"); a FAILED or
 * CANCELLED completion is counted and dropped (it has no time to first token to fit).
 */
public class RequestJoinFunction extends KeyedCoProcessFunction<String, DecisionRow, CompletionRow, JoinedRow> {
    private static final long serialVersionUID = 1L;

    static final String PENDING = "pending";

    private final long decisionTimeoutMs;
    private final long completionGraceMs;
    private final Duration stateTtl;
    private final String consumer;

    private transient ValueState<PendingJoin> pending;
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

    /**
     * The pending state, with a processing-time TTL as the backstop of the event-time timers (a
     * watermark that stalls). Clean-up of expired entries: dropped from every full snapshot (heap
     * backend) and by RocksDB's compaction filter — not Flink's default incremental clean-up on the
     * heap backend, which walked the (mostly empty) state table on every state access and was the
     * largest item of the job's profile (JFR: ≈ 25 % of all samples).
     */
    static ValueStateDescriptor<PendingJoin> descriptor(Duration ttl) {
        ValueStateDescriptor<PendingJoin> d = new ValueStateDescriptor<>(PENDING, PendingJoin.class);
        d.enableTimeToLive(StateTtlConfig.newBuilder(ttl)
            .disableCleanupInBackground()
            .cleanupFullSnapshot()
            .cleanupInRocksdbCompactFilter(1000)
            .build());
        return d;
    }

    @Override
    public void open(OpenContext openContext) {
        AvroTrust.install(); // dead letters (Avro) are copied by Flink's Avro serializer on this TaskManager
        pending = getRuntimeContext().getState(descriptor(stateTtl));
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
        PendingJoin p = pending.value();
        if (p != null) {
            if (p.decision != null) {
                duplicates.inc();
                return;
            }
            emit(d, p.completion, ctx, out);
            clear(p, ctx);
            return;
        }
        p = new PendingJoin();
        p.decision = d;
        arm(p, ctx, d.timestampMs + decisionTimeoutMs);
    }

    @Override
    public void processElement2(CompletionRow c, Context ctx, Collector<JoinedRow> out) throws Exception {
        PendingJoin p = pending.value();
        if (p != null) {
            if (p.completion != null) {
                duplicates.inc();
                return;
            }
            emit(p.decision, c, ctx, out);
            clear(p, ctx);
            return;
        }
        p = new PendingJoin();
        p.completion = c;
        arm(p, ctx, c.finishedTimeMs + completionGraceMs);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<JoinedRow> out) throws Exception {
        PendingJoin p = pending.value();
        if (p == null) {
            return;
        }
        if (p.decision != null) {
            decisionsNeverCompleted.inc();
        }
        if (p.completion != null) {
            completionsWithoutDecision.inc();
        }
        clear(p, ctx);
    }

    private void arm(PendingJoin p, Context ctx, long at) throws Exception {
        p.eventTimer = at;
        ctx.timerService().registerEventTimeTimer(p.eventTimer);
        pending.update(p);
    }

    private void clear(PendingJoin p, Context ctx) {
        ctx.timerService().deleteEventTimeTimer(p.eventTimer);
        pending.clear();
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
