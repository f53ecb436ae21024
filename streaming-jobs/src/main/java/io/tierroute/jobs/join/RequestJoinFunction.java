package io.tierroute.jobs.join;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.DeadLetter;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

import static io.tierroute.jobs.ingest.InboundSplit.DEAD_LETTERS;

/**
 * Joins a routing decision with its completion by request id, keyed by {@link RequestShards shard} of the id.
 *
 * <p>State life cycle, per request id (an entry of the shard's map state): whichever side arrives first
 * is kept with a deadline (a decision waits up to {@code decisionTimeout} for its completion; a completion
 * waits {@code completionGrace} for a decision that is still in flight on its topic). The other side
 * emits the joined row and removes the entry. A side whose deadline the watermark has passed is counted
 * ({@code decisionsNeverCompleted} or {@code completionsWithoutDecision}) and removed: by the clean-up
 * timer of its bucket, or, if an input for the same request id comes first, right then — so every count
 * and every join is what one event-time timer per request gave, without registering and deleting one
 * per request (a quarter of the join task's CPU). Clean-up timers: one per shard and bucket of event
 * time, at the bucket's end; a bucket is 1/8 of the side's wait ({@code decisionTimeout / 8} for
 * decisions, {@code completionGrace / 8} for completions), so an expired side leaves the state at most
 * 1/8 of its wait after its deadline and a shard has at most about 16 timers. A processing-time state TTL
 * ({@code stateTtl}) backs this up when the watermark stalls. A completion whose worker is not the
 * decision's chosen worker is a dead letter ("unknown worker"); a FAILED or CANCELLED completion is
 * counted and dropped (it has no time to first token to fit).
 */
public class RequestJoinFunction extends KeyedCoProcessFunction<Integer, DecisionRow, CompletionRow, JoinedRow> {
    private static final long serialVersionUID = 1L;

    static final String PENDING = "pending-by-request";
    /**
     * Clean-up buckets per wait (timeout or grace): a shard holds at most about 2 × 8 timers, and an
     * expired side stays in state at most 1/8 of its wait longer.
     */
    static final int BUCKETS_PER_WAIT = 8;

    private final long decisionTimeoutMs;
    private final long completionGraceMs;
    private final long decisionBucketMs;
    private final long completionBucketMs;
    private final Duration stateTtl;
    private final String consumer;

    private transient MapState<String, PendingJoin> pending;
    private transient Counter joined;
    transient Counter decisionsNeverCompleted; // package-visible: the tests read the counts
    transient Counter completionsWithoutDecision;
    private transient Counter duplicates;
    private transient Counter failedCompletions;
    private transient Counter workerMismatches;

    public RequestJoinFunction(Duration decisionTimeout, Duration completionGrace, Duration stateTtl, String consumer) {
        this.decisionTimeoutMs = decisionTimeout.toMillis();
        this.completionGraceMs = completionGrace.toMillis();
        this.decisionBucketMs = Math.max(1, decisionTimeoutMs / BUCKETS_PER_WAIT);
        this.completionBucketMs = Math.max(1, completionGraceMs / BUCKETS_PER_WAIT);
        this.stateTtl = stateTtl;
        this.consumer = consumer;
    }

    /**
     * The pending sides of a shard by request id, with a processing-time TTL per entry as the backstop of
     * the event-time clean-up (a watermark that stalls). Clean-up of expired entries: dropped from every full
     * snapshot (heap backend) and by RocksDB's compaction filter — not Flink's default incremental clean-up
     * on the heap backend, which walked the state table on every state access and was the largest item of
     * the job's profile (JFR: ≈ 25 % of all samples).
     */
    static MapStateDescriptor<String, PendingJoin> descriptor(Duration ttl) {
        MapStateDescriptor<String, PendingJoin> d = new MapStateDescriptor<>(PENDING, String.class, PendingJoin.class);
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
        pending = getRuntimeContext().getMapState(descriptor(stateTtl));
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
        PendingJoin p = waiting(d.requestId, ctx);
        if (p != null) {
            if (p.decision != null) {
                duplicates.inc();
                return;
            }
            emit(d, p.completion, ctx, out);
            pending.remove(d.requestId);
            return;
        }
        p = new PendingJoin();
        p.decision = d;
        keep(d.requestId, p, ctx, d.timestampMs + decisionTimeoutMs, decisionBucketMs);
    }

    @Override
    public void processElement2(CompletionRow c, Context ctx, Collector<JoinedRow> out) throws Exception {
        PendingJoin p = waiting(c.requestId, ctx);
        if (p != null) {
            if (p.completion != null) {
                duplicates.inc();
                return;
            }
            emit(p.decision, c, ctx, out);
            pending.remove(c.requestId);
            return;
        }
        p = new PendingJoin();
        p.completion = c;
        keep(c.requestId, p, ctx, c.finishedTimeMs + completionGraceMs, completionBucketMs);
    }

    /** The side waiting for this request id, or null; one the watermark has passed is counted and removed first. */
    private PendingJoin waiting(String requestId, Context ctx) throws Exception {
        PendingJoin p = pending.get(requestId);
        if (p != null && p.expiredAt(ctx.timerService().currentWatermark())) {
            countUnmatched(p);
            pending.remove(requestId);
            return null;
        }
        return p;
    }

    /** Clean-up of one bucket: every side of this shard whose deadline is at or before the timer. */
    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<JoinedRow> out) throws Exception {
        Iterator<Map.Entry<String, PendingJoin>> it = pending.iterator();
        while (it.hasNext()) {
            PendingJoin p = it.next().getValue();
            if (p.expiredAt(timestamp)) {
                countUnmatched(p);
                it.remove();
            }
        }
        if (pending.isEmpty()) {
            pending.clear(); // the iterator leaves an empty map behind on the heap backend
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

    /** Keeps {@code p} until its deadline; the shard's timer at the end of the deadline's bucket (Flink keeps one per time). */
    private void keep(String requestId, PendingJoin p, Context ctx, long deadlineMs, long bucketMs) throws Exception {
        p.deadlineMs = deadlineMs;
        pending.put(requestId, p);
        ctx.timerService().registerEventTimeTimer(bucketEnd(deadlineMs, bucketMs));
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
