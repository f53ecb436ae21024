package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordDecodeException;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.UnknownSchemaException;
import io.tierroute.schemas.avro.ReplicaAdmitted;
import io.tierroute.schemas.avro.ReplicaRequestEvent;
import io.tierroute.schemas.avro.ReplicaSyncMessage;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.sequences.PrefixMarks;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sync.ReplicaSync;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Replica sync's inbound half over Kafka: reads every partition of {@code tierroute.replica-sync} (no group: each
 * replica hears every other) on one thread ({@code tierroute-replica-sync-in}) and hands the other replicas'
 * admissions and request events to this replica's {@link ReplicaSync}; its own records (its {@code replicaId}) are
 * skipped, and so are another deployment's (another {@code kafka.scope}: its workers are not these, whatever their
 * names). At start it reads from {@code replicaSync.lookback} ago, so requests other replicas admitted before it
 * started, and still in flight, count (a replica that restarts hears its previous run's too, under another id: they
 * are still on their workers); a record's time, mapped onto this process's clock, is when its request was admitted.
 *
 * <p>Bad records never stop it: undecodable bytes, an unknown schema, a worker this selector does not have (logged
 * once per name), or values no admission or event can hold are skipped, logged (rate-limited) and counted by reason.
 * A position the log no longer holds (the topic recreated, a new cluster) resumes at the end, said and counted:
 * what was lost were other replicas' messages, which no replay brings back. Partitions added while it runs are read
 * from their beginning (a restarted session that finds new ones reads them from the lookback); a failed session
 * resumes at the positions reached, as {@link KvEventConsumer}'s. A record that cannot be applied for any other
 * reason is skipped and counted as invalid, never retried by a session restart that would fail on it again.
 */
public final class ReplicaSyncConsumer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicaSyncConsumer.class);

    /** Reasons of {@code tierroute_replica_sync_bad_records_total}. */
    public enum BadReason { CORRUPT, UNKNOWN_SCHEMA, UNKNOWN_WORKER, INVALID }

    private final KafkaSettings settings;
    private final String replicaId;
    private final WorkerRegistry workers;
    private final ReplicaSync sync;
    private final PartitionWatch partitionWatch;
    private final ConsumerThread loop;
    private final SessionPositions positions = new SessionPositions();
    private final LongAdder records = new LongAdder();
    private final LongAdder own = new LongAdder();
    private final LongAdder otherScope = new LongAdder();
    private volatile long positionedAtMs = Long.MAX_VALUE; // when the first session was positioned
    private final LongAdder restarts = new LongAdder();
    private final LongAdder logResets = new LongAdder();
    private final LongAdder[] bad = new LongAdder[BadReason.values().length];
    private final LogLimiter badLog = new LogLimiter(20, 1000);
    private final Set<String> unknownLogged = ConcurrentHashMap.newKeySet();
    private volatile long lastDelayMillis = -1;

    /**
     * @param replicaId this process's id on the topic: records carrying it are its own
     * @param workers   the workers the admissions name
     * @param sync      where the other replicas' messages go
     */
    public ReplicaSyncConsumer(KafkaSettings settings, String replicaId, WorkerRegistry workers, ReplicaSync sync) {
        this(settings, replicaId, workers, sync, PartitionWatch.DEFAULT_PERIOD);
    }

    ReplicaSyncConsumer(KafkaSettings settings, String replicaId, WorkerRegistry workers, ReplicaSync sync,
                        Duration partitionCheck) {
        this.settings = settings;
        this.replicaId = replicaId;
        this.workers = workers;
        this.sync = sync;
        this.partitionWatch = new PartitionWatch(List.of(Topics.REPLICA_SYNC), partitionCheck);
        for (int i = 0; i < bad.length; i++) {
            bad[i] = new LongAdder();
        }
        this.loop = new ConsumerThread("tierroute-replica-sync-in", this::session, (e, wait) -> {
            restarts.increment();
            log.error("replica sync consumer: {}; resuming at the same positions in {} ms", SessionLoop.describe(e), wait,
                    SessionLoop.traceWorthLogging(e));
        });
    }

    public ReplicaSyncConsumer start() {
        loop.start();
        return this;
    }

    /** Waits until the consumer is assigned and positioned (messages sent after this are heard). */
    public boolean awaitAssigned(Duration timeout) throws InterruptedException {
        return loop.awaitAssigned(timeout);
    }

    /** Records read, this replica's own included. */
    public long records() { return records.sum(); }
    /** This replica's own records, skipped. */
    public long ownRecords() { return own.sum(); }
    /** Records of another scope's replicas (another deployment), skipped. */
    public long otherScopeRecords() { return otherScope.sum(); }
    public long restarts() { return restarts.sum(); }
    /** Times the position reached was no longer in the log. */
    public long logResets() { return logResets.sum(); }
    public long badRecords(BadReason reason) { return bad[reason.ordinal()].sum(); }
    /** How late the last record handed over arrived (its sender's clock to this one's), ms; -1 before any. */
    public long lastDelayMillis() { return lastDelayMillis; }

    private void session() {
        try (KafkaConsumer<byte[], byte[]> c = KafkaClients.historyConsumer(settings, "replica-sync")) {
            loop.consumer(c);
            List<TopicPartition> parts = new ArrayList<>(SessionPositions.await(c, Topics.REPLICA_SYNC,
                    settings.bootstrapServers(), loop::running, loop::pause, log, "replica sync consumer"));
            if (parts.isEmpty()) {
                return;
            }
            seekToLookback(c, positions.assignAndResume(c, parts));
            positions.positioned(c, parts);
            if (positionedAtMs == Long.MAX_VALUE) {
                positionedAtMs = System.currentTimeMillis();
            }
            log.info("replica sync consumer: reading {} ({} partitions) from {} ago; this replica is '{}'",
                    Topics.REPLICA_SYNC, parts.size(), settings.replicaSync().lookback(), replicaId);
            loop.assigned();
            while (loop.running()) {
                ConsumerRecords<byte[], byte[]> batch;
                try {
                    batch = c.poll(Duration.ofMillis(100));
                } catch (InvalidOffsetException e) {
                    logResets.increment();
                    log.warn("replica sync consumer: {}; reading on from the end (the other replicas' messages in "
                            + "between are lost: their requests count again from their next admission)",
                            KafkaClients.outOfRange(c, e));
                    c.seekToEnd(e.partitions());
                    positions.reached(c, e.partitions());
                    continue;
                }
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    handle(r);
                }
                positions.reached(c, batch.partitions());
                sync.expire();
                List<TopicPartition> added = partitionWatch.newPartitions(c, parts);
                if (!added.isEmpty()) {
                    PartitionWatch.readFromTheBeginning(c, parts, added);
                    positions.reached(c, added);
                    log.warn("replica sync consumer: {} has {} new partition(s) {}; reading them from their beginning",
                            Topics.REPLICA_SYNC, added.size(), added);
                }
            }
        } finally {
            loop.consumer(null);
        }
    }

    /** The first offset written at or after {@code lookback} ago on each partition, or its end. */
    private void seekToLookback(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> fresh) {
        if (fresh.isEmpty()) {
            return;
        }
        Duration lookback = settings.replicaSync().lookback();
        if (lookback.isZero()) {
            SessionPositions.seekToEnd(c, fresh);
            return;
        }
        long from = System.currentTimeMillis() - lookback.toMillis();
        Map<TopicPartition, Long> query = new HashMap<>();
        fresh.forEach(tp -> query.put(tp, from));
        Map<TopicPartition, OffsetAndTimestamp> found = c.offsetsForTimes(query, Duration.ofSeconds(10));
        List<TopicPartition> toEnd = new ArrayList<>();
        for (TopicPartition tp : fresh) {
            OffsetAndTimestamp o = found.get(tp);
            if (o == null) {
                toEnd.add(tp); // nothing written since then
            } else {
                c.seek(tp, o.offset());
            }
        }
        SessionPositions.seekToEnd(c, toEnd);
    }

    /** One record: another replica's admission or event handed to the sync, this replica's skipped, a bad one counted. */
    void handle(ConsumerRecord<byte[], byte[]> r) {
        records.increment();
        ReplicaSyncMessage m;
        try {
            m = Codecs.REPLICA_SYNC_MESSAGE.decode(r.value());
        } catch (RecordDecodeException e) {
            bad(e instanceof UnknownSchemaException ? BadReason.UNKNOWN_SCHEMA : BadReason.CORRUPT, r, e.getMessage());
            return;
        }
        if (replicaId.equals(m.getReplicaId())) {
            own.increment();
            return;
        }
        if (!settings.scope().equals(m.getScope())) {
            otherScope.increment(); // another deployment's replicas: their workers are not ours, whatever their names
            return;
        }
        try {
            checkId("requestId", m.getRequestId());
        } catch (IllegalArgumentException e) {
            bad(BadReason.INVALID, r, e.getMessage());
            return;
        }
        // A clock ahead counts as no delay; one a day behind or more, as a day (the request has long expired here).
        long delayMs = Math.min(Math.max(0, System.currentTimeMillis() - m.getTimestampMs()), MAX_DELAY_MS);
        if (m.getTimestampMs() >= positionedAtMs) {
            lastDelayMillis = delayMs; // not what was read back at the start: that is as old as the lookback
        }
        long atNanos = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(delayMs);
        try {
            if (m.getMessage() instanceof ReplicaAdmitted a) {
                Optional<Integer> w = workers.find(a.getWorker());
                if (w.isEmpty()) {
                    bad[BadReason.UNKNOWN_WORKER.ordinal()].increment();
                    if (unknownLogged.size() < 1000 && unknownLogged.add(a.getWorker())) {
                        log.warn("replica sync consumer: admissions to worker '{}', which this selector does not have, "
                                + "are ignored (first from replica '{}' at {}@{}:{}; the replicas' worker lists differ; "
                                + "logged once per worker)", a.getWorker(), m.getSelectorId(), r.topic(), r.partition(),
                                r.offset());
                    }
                    return;
                }
                sync.admitted(admission(m.getRequestId(), w.get(), a), atNanos);
            } else if (m.getMessage() instanceof ReplicaRequestEvent e) {
                if (e.getTokens() > io.tierroute.selector.scheduling.RouteRequest.MAX_INPUT_TOKENS) {
                    throw new IllegalArgumentException("tokens must be at most "
                            + io.tierroute.selector.scheduling.RouteRequest.MAX_INPUT_TOKENS + ", got " + e.getTokens());
                }
                sync.event(new RequestEvent(m.getRequestId(), RequestEvent.Type.valueOf(e.getType().name()),
                        e.getTokens()));
            } else {
                bad(BadReason.INVALID, r, "neither an admission nor an event: " + m.getMessage());
            }
        } catch (IllegalArgumentException e) {
            bad(BadReason.INVALID, r, "request '" + m.getRequestId() + "': " + e.getMessage());
        } catch (RuntimeException e) {
            // Not a value check's: a bug somewhere behind. The record is skipped, not retried: a session restart would
            // read it again and fail the same way, forever.
            bad(BadReason.INVALID, r, "request '" + m.getRequestId() + "' could not be applied: " + e);
        }
    }

    /** Ids and names as the HTTP API bounds them (a request id, a workflow id, a tool name). */
    static final int MAX_ID_CHARS = io.tierroute.selector.config.ConfigLoader.MAX_NAME_CHARS;
    private static final long MAX_DELAY_MS = TimeUnit.DAYS.toMillis(1);
    /** Expected tools of one admission, as the HTTP API bounds them. */
    static final int MAX_TOOLS = 256;

    private static void checkId(String what, String id) {
        if (id != null && (id.isEmpty() || id.length() > MAX_ID_CHARS)) {
            throw new IllegalArgumentException(what + " must have 1 to " + MAX_ID_CHARS + " characters, got "
                    + id.length());
        }
    }

    /** The record's admission; {@link IllegalArgumentException} for values none could hold. */
    private static ReplicaAdmission admission(String requestId, int worker, ReplicaAdmitted a) {
        checkId("workflowId", a.getWorkflowId());
        if (a.getExpectedNextTools().size() > MAX_TOOLS) {
            throw new IllegalArgumentException("expectedNextTools has " + a.getExpectedNextTools().size()
                    + " tools; at most " + MAX_TOOLS);
        }
        for (String tool : a.getExpectedNextTools()) {
            checkId("an expected tool", tool);
        }
        List<Long> tiers = a.getTierTokens();
        if (!tiers.isEmpty() && tiers.size() != Tier.COUNT) {
            throw new IllegalArgumentException("tierTokens has " + tiers.size() + " entries; expected none or "
                    + Tier.COUNT);
        }
        long[] tierTokens = tiers.isEmpty() ? null : new long[Tier.COUNT];
        for (int t = 0; tierTokens != null && t < Tier.COUNT; t++) {
            tierTokens[t] = tiers.get(t);
            if (tierTokens[t] < 0) {
                throw new IllegalArgumentException("tierTokens[" + t + "] is negative: " + tierTokens[t]);
            }
        }
        long[] marks = new long[a.getPrefixMarks().size()];
        for (int i = 0; i < marks.length; i++) {
            marks[i] = a.getPrefixMarks().get(i);
        }
        return new ReplicaAdmission(requestId, worker, a.getPromptTokens(), a.getPredictedOutputTokens(),
                a.getPrefillTokens(), tierTokens, PrefixMarks.ofMarks(marks, a.getPrefixMarkTokens()), a.getWorkflowId(),
                a.getExpectedNextTools());
    }

    private void bad(BadReason reason, ConsumerRecord<byte[], byte[]> r, String message) {
        bad[reason.ordinal()].increment();
        if (badLog.allow()) {
            log.warn("replica sync consumer: bad record {}@{}:{} ({}): {}", r.topic(), r.partition(), r.offset(),
                    reason.name().toLowerCase(), message);
        }
    }

    @Override
    public void close() {
        loop.close(); // ends a back-off or a wait for the topic; wakes a blocked poll
    }
}
