package io.tierroute.selector.kafka;

import io.tierroute.schemas.Topics;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.sync.ReplicaSync;
import io.tierroute.selector.sync.wire.ReplicaSyncInbound;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Replica sync's inbound half over Kafka: reads every partition of {@code tierroute.replica-sync} (no group: each
 * replica hears every other) on one thread ({@code tierroute-replica-sync-in}) and hands the other replicas'
 * admissions and request events to this replica's {@link ReplicaSync}; its own records (its {@code replicaId}) are
 * skipped, and so are another deployment's (another {@code kafka.scope}: its workers are not these, whatever their
 * names). At start it reads from {@code replicaSync.lookback} ago, so requests other replicas admitted before it
 * started, and still in flight, count (a replica that restarts hears its previous run's too, under another id: they
 * are still on their workers); a record's time, mapped onto this process's clock, is when its request was admitted.
 * A record numbered in its {@value #SEQUENCE_HEADER} header that the direct path ({@code sync.direct}) brought first
 * is dropped as a copy. Each record goes through a {@link ReplicaSyncInbound}, which both paths share.
 *
 * <p>Bad records never stop it: undecodable bytes, an unknown schema, a worker this selector does not have (logged
 * once per name), or values no admission or event can hold are skipped, logged (rate-limited) and counted by reason.
 * A position the log no longer holds (the topic recreated, a new cluster) resumes at the end, said and counted:
 * what was lost were other replicas' messages, which no replay brings back. Partitions added while it runs are read
 * from their beginning (a restarted session that finds new ones reads them from the lookback); a failed session
 * resumes at the positions reached, as {@link KvEventConsumer}'s. A record that cannot be applied for any other
 * reason is skipped and counted as invalid, never retried by a session restart that would fail on it again; a record
 * batch poll() refuses (its CRC does not match: {@link UnreadableRecord}) is skipped and counted as corrupt. An
 * {@link Error} stops the consumer for good ({@link #stopped()}; {@code /healthz} answers 503).
 */
public final class ReplicaSyncConsumer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicaSyncConsumer.class);

    /** Reasons of {@code tierroute_replica_sync_bad_records_total}. */
    public enum BadReason { CORRUPT, UNKNOWN_SCHEMA, UNKNOWN_WORKER, INVALID }

    private final KafkaSettings settings;
    private final String replicaId;
    private final ReplicaSync sync;
    private final PartitionWatch partitionWatch;
    private final ConsumerThread loop;
    private final SessionPositions positions = new SessionPositions();
    private final LongAdder records = new LongAdder();
    private final LongAdder restarts = new LongAdder();
    private final LongAdder logResets = new LongAdder();
    private final ReplicaSyncInbound inbound;
    private ConsumerRecord<byte[], byte[]> current; // consumer thread: the record being handled, named if an Error stops it

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
        this.partitionWatch = new PartitionWatch(List.of(Topics.REPLICA_SYNC), partitionCheck);
        this.sync = sync;
        this.inbound = new ReplicaSyncInbound("replica sync consumer", replicaId, settings.scope(), workers, sync,
                Long.MAX_VALUE, false);
        this.loop = new ConsumerThread("tierroute-replica-sync-in", "replica sync consumer", this::session,
                (e, wait) -> {
                    restarts.increment();
                    log.error("replica sync consumer: {}; resuming at the same positions in {} ms",
                            SessionLoop.describe(e), wait, SessionLoop.traceWorthLogging(e));
                }, this::doing);
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
    public long ownRecords() { return inbound.count(ReplicaSyncInbound.Outcome.OWN); }
    /** Records of another scope's replicas (another deployment), skipped. */
    public long otherScopeRecords() { return inbound.count(ReplicaSyncInbound.Outcome.OTHER_SCOPE); }
    /** Other replicas' records handed to the sync. */
    public long handedOver() { return inbound.count(ReplicaSyncInbound.Outcome.HANDED_OVER); }
    /** Second copies of records the direct path brought first: dropped. */
    public long duplicateRecords() { return inbound.count(ReplicaSyncInbound.Outcome.DUPLICATE); }
    public long restarts() { return restarts.sum(); }
    /** Times the position reached was no longer in the log. */
    public long logResets() { return logResets.sum(); }
    public long badRecords(BadReason reason) { return inbound.count(ReplicaSyncInbound.Outcome.valueOf(reason.name())); }
    /** Why an Error stopped the consumer for good (the other replicas are no longer heard), or null while it runs. */
    public String stopped() { return loop.stopped(); }
    /** How late the last record handed over arrived (its sender's clock to this one's), ms; -1 before any. */
    public long lastDelayMillis() { return inbound.lastDelayMillis(); }

    private void session() {
        current = null;
        try (KafkaConsumer<byte[], byte[]> c = KafkaClients.historyConsumer(settings, "replica-sync")) {
            loop.consumer(c);
            List<TopicPartition> parts = new ArrayList<>(SessionPositions.await(c, Topics.REPLICA_SYNC,
                    settings.bootstrapServers(), loop::running, loop::pause, log, "replica sync consumer"));
            if (parts.isEmpty()) {
                return;
            }
            seekToLookback(c, positions.assignAndResume(c, parts));
            positions.positioned(c, parts);
            inbound.liveFrom(System.currentTimeMillis());
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
                } catch (KafkaException e) {
                    UnreadableRecord u = UnreadableRecord.of(c, e);
                    if (u == null) {
                        throw e;
                    }
                    u.skip(c); // restarting the session there would refuse it again, for ever
                    positions.reached(c, List.of(u.partition()));
                    inbound.unreadable(u.where(), u.why());
                    continue;
                }
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    current = r;
                    handle(r);
                }
                current = null;
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

    /** What the consumer thread is doing, for the line that says an Error stopped it. */
    private String doing() {
        ConsumerRecord<byte[], byte[]> r = current;
        return r == null ? "reading " + Topics.REPLICA_SYNC
                : "handling the record at " + r.topic() + "@" + r.partition() + ":" + r.offset();
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
        inbound.handle(r.value(), sequence(r), () -> r.topic() + "@" + r.partition() + ":" + r.offset());
    }

    /** The header that numbers a record ({@code io.tierroute.selector.sync.MessageId#sequence}), 8 bytes big-endian. */
    public static final String SEQUENCE_HEADER = "tierroute-seq";

    /** The record's sequence number, 0 when it carries none or a malformed one (then never taken for a copy). */
    static long sequence(ConsumerRecord<byte[], byte[]> r) {
        Header h = r.headers().lastHeader(SEQUENCE_HEADER);
        if (h == null || h.value() == null || h.value().length != Long.BYTES) {
            return 0;
        }
        return Math.max(0, ByteBuffer.wrap(h.value()).getLong());
    }

    @Override
    public void close() {
        loop.close(); // ends a back-off or a wait for the topic; wakes a blocked poll
    }
}
