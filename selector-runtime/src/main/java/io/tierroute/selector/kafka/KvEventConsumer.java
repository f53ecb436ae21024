package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordDecodeException;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.UnknownSchemaException;
import io.tierroute.schemas.avro.AllCleared;
import io.tierroute.schemas.avro.BlockMoved;
import io.tierroute.schemas.avro.BlockRemoved;
import io.tierroute.schemas.avro.BlockStored;
import io.tierroute.schemas.avro.KvEventBatch;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.ingest.IndexWriter;
import io.tierroute.selector.logging.LogLimiter;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.scheduling.UnpricedTiers;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import net.openhft.hashing.LongHashFunction;

/**
 * Feeds {@code tierroute.kv-events} into the prefix index through the index's single writer
 * ({@link IndexWriter}, the server's {@code KvEventPipeline}). One thread
 * ({@code tierroute-kv-consumer}) with a consumer assigned to every partition (each replica keeps a
 * whole index; no group, no committed offsets: the index starts empty, so the consumer starts at the
 * end of the topic, or its beginning with {@code startFrom: earliest}).
 *
 * <p>Each {@link KvEventBatch} becomes one list of protocol {@link KvEvent}s with the worker NAME
 * mapped to its dense index through the {@link WorkerRegistry}, submitted in order. When the writer
 * is full the consumer waits and retries the same batch (back-pressure, nothing is dropped). Bad
 * records never stop it: undecodable bytes, an unknown schema, an unknown worker, or an invalid event
 * (no block hashes, a move to the same tier) skip that batch, are logged (rate-limited) and counted
 * by reason.
 *
 * <p><b>Resynchronisation.</b> A worker's batches carry a sequence that rises by 1 from 0 at its
 * start (KvEventBatch.avsc). Whenever this consumer cannot know that it has applied every event of a
 * worker, it treats that worker's index state as unknown: it puts a {@link KvEvent.Cleared} for the
 * worker in front of the batch (or alone, for a batch it had to skip), so the stale blocks go and the
 * following events rebuild the worker's entries (as Dynamo's router does on a gap). That happens on a
 * gap (events lost upstream), a sequence that goes back without being 0 (repeated or reordered
 * batches), a restart (back to 0: the engine's cache is empty), and a batch of a known worker that
 * had to be skipped (undecodable with the worker as key, or an invalid event). Each is counted in
 * {@code tierroute_kv_consumer_resyncs_total{reason}}. The first batch seen from a worker is not
 * checked: the index had nothing of it before. An exact repeat of the worker's last batch (the same sequence and
 * the same bytes: an at-least-once producer's retry) is no step back: it is skipped and counted
 * ({@code tierroute_kv_consumer_duplicate_batches_total}), since applying it again would change nothing and clearing
 * the worker would drop blocks its engine holds and never announces again. The same sequence with other bytes
 * resyncs.
 *
 * <p><b>A log that goes away.</b> When the topic is deleted and created again, cut by retention below the position
 * reached, or the broker replaced by a new cluster, that position is no longer in the log: the consumer says so (WARN,
 * with the positions and the log's new bounds), counts it ({@code tierroute_kv_consumer_log_resets_total}) and reads
 * those partitions from the start of what they hold now; a log truncated by a leader change resumes where it diverged.
 * The events it missed or read twice show in each worker's sequence (a gap, a step back, a restart), which resyncs that
 * worker as above; a silent rewind would have hidden why the index was rebuilt.
 *
 * <p><b>A topic that grows.</b> Partitions added to the topic while it runs ({@link PartitionWatch}: looked for every
 * 10 s, seen once the consumer's metadata is refreshed) are read from their beginning, logged (WARN) and counted
 * ({@code tierroute_kv_consumer_partitions_added_total}): the workers whose key now hashes there keep feeding the index.
 * A worker whose batches move partition may show a step in its sequence, which resyncs it.
 *
 * <p><b>A damaged batch.</b> A record batch whose CRC does not match ({@link UnreadableRecord}) is skipped where
 * {@code poll()} refuses it, counted as corrupt and logged like the other bad records; the worker whose batch it was
 * shows a gap in its sequence and is rebuilt as above. Restarting the session there would refuse it again, for ever.
 *
 * <p><b>Failures.</b> An exception from the consumer does not end it: it logs, counts
 * ({@code tierroute_kv_consumer_restarts_total}), waits (1 s, doubling to 30 s) and resumes with a new
 * consumer at the positions it had reached, so no event is skipped. An {@link Error} (out of memory, …) stops it for
 * good, said by {@link #stopped()}: the index then no longer follows the engines, and {@code /healthz} answers 503; so
 * does an index writer that has stopped for good (nothing would apply the events again).
 */
public final class KvEventConsumer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KvEventConsumer.class);

    /** Reasons of {@code tierroute_kv_consumer_bad_records_total}. */
    public enum BadReason { CORRUPT, UNKNOWN_SCHEMA, UNKNOWN_WORKER, INVALID }

    /** Reasons of {@code tierroute_kv_consumer_resyncs_total}: why a worker's index state was cleared. */
    public enum ResyncReason { GAP, OUT_OF_ORDER, RESTART, SKIPPED_BATCH }


    private final KafkaSettings settings;
    private final WorkerRegistry workers;
    private final IndexWriter writer;
    private final ConsumerThread loop;
    private final long[] lastSequence;   // consumer thread only; -1: unknown (nothing to compare with)
    /** Per worker, XXH3 of the last batch's record value (consumer thread only): tells a re-sent batch from a reused sequence. */
    private final long[] lastBatchHash;
    private final LongAdder[] resyncs = new LongAdder[ResyncReason.values().length];
    private final LongAdder restarts = new LongAdder();
    private final LongAdder logResets = new LongAdder();
    private final SessionPositions positions = new SessionPositions();
    private final LongAdder batches = new LongAdder();
    private final LongAdder events = new LongAdder();
    private final LongAdder gaps = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder backpressure = new LongAdder();
    private final LongAdder[] bad = new LongAdder[BadReason.values().length];
    private final LogLimiter badLog = new LogLimiter(20, 1000);
    private final LogLimiter gapLog = new LogLimiter(20, 1000);
    private static final LongHashFunction BATCH_HASH = LongHashFunction.xx3();
    private final Set<String> unknownLogged = ConcurrentHashMap.newKeySet();
    private final UnpricedTiers unpriced; // null: no worker configuration to check the events' tiers against
    private final PartitionWatch partitionWatch;
    private ConsumerRecord<byte[], byte[]> current; // consumer thread: the record being applied, named if an Error stops it

    public KvEventConsumer(KafkaSettings settings, WorkerRegistry workers, IndexWriter writer) {
        this(settings, workers, writer, null);
    }

    /** As above, counting (and logging once) events on a tier a worker is configured without in {@code unpriced}. */
    public KvEventConsumer(KafkaSettings settings, WorkerRegistry workers, IndexWriter writer, UnpricedTiers unpriced) {
        this(settings, workers, writer, unpriced, PartitionWatch.DEFAULT_PERIOD);
    }

    /** As above, looking for partitions added to the topic every {@code partitionCheck} (tests: a short one). */
    KvEventConsumer(KafkaSettings settings, WorkerRegistry workers, IndexWriter writer, UnpricedTiers unpriced,
            Duration partitionCheck) {
        this.partitionWatch = new PartitionWatch(List.of(Topics.KV_EVENTS), partitionCheck);
        this.settings = settings;
        this.workers = workers;
        this.writer = writer;
        this.unpriced = unpriced;
        this.lastSequence = new long[workers.size()];
        Arrays.fill(lastSequence, -1);
        this.lastBatchHash = new long[workers.size()];
        for (int i = 0; i < bad.length; i++) {
            bad[i] = new LongAdder();
        }
        for (int i = 0; i < resyncs.length; i++) {
            resyncs[i] = new LongAdder();
        }
        this.loop = new ConsumerThread("tierroute-kv-consumer", "kv consumer", this::session, (e, wait) -> {
            restarts.increment();
            log.error("kv consumer: {}; resuming at the same positions in {} ms", SessionLoop.describe(e), wait,
                    SessionLoop.traceWorthLogging(e));
        }, this::doing);
    }

    public KvEventConsumer start() {
        loop.start();
        return this;
    }

    /** Waits until the consumer is assigned and positioned (events produced after this are read). */
    public boolean awaitAssigned(Duration timeout) throws InterruptedException {
        return loop.awaitAssigned(timeout);
    }

    public long batches() { return batches.sum(); }
    public long events() { return events.sum(); }
    /** Sequence discontinuities other than a restart (a gap, or a sequence that went back). */
    public long sequenceGaps() { return gaps.sum(); }
    /** Batches skipped as an exact repeat of the worker's last one (same sequence, same bytes): a producer's retry. */
    public long duplicateBatches() { return duplicates.sum(); }
    public long resyncs(ResyncReason reason) { return resyncs[reason.ordinal()].sum(); }
    /** Sessions restarted after a consumer error. */
    public long restarts() { return restarts.sum(); }
    /** Times the position reached was no longer in the log (topic recreated or truncated, a new cluster). */
    public long logResets() { return logResets.sum(); }
    public long backpressureWaits() { return backpressure.sum(); }
    /** Partitions added to the topic while it was read (each read from its beginning since). */
    public long partitionsAdded() { return partitionWatch.added(); }
    public long badRecords(BadReason reason) { return bad[reason.ordinal()].sum(); }
    /**
     * Why an Error, or the index writer's own stop, stopped the consumer for good (the index no longer follows the
     * engines), or null while it runs.
     */
    public String stopped() { return loop.stopped(); }

    public long badRecords() {
        long n = 0;
        for (LongAdder a : bad) {
            n += a.sum();
        }
        return n;
    }

    private void session() {
        current = null;
        try (KafkaConsumer<byte[], byte[]> c = KafkaClients.historyConsumer(settings, "kv")) {
            loop.consumer(c);
            if (!loop.running()) {
                return;
            }
            List<TopicPartition> parts = new ArrayList<>(SessionPositions.await(c, Topics.KV_EVENTS,
                    settings.bootstrapServers(), loop::running, loop::pause, log, "kv consumer"));
            if (parts.isEmpty()) {
                return;
            }
            List<TopicPartition> fresh = positions.assignAndResume(c, parts);
            if (positions.resumed() && !fresh.isEmpty()) {
                // A restarted session that lists partitions the last one never read: added while it ran, before its
                // watch saw them. Everything on them came after this consumer started: from their beginning.
                partitionWatch.counted(fresh.size());
                sayAdded(fresh);
                c.seekToBeginning(fresh);
            } else if (settings.kvEvents().startFrom().equals("earliest")) {
                SessionPositions.seekToBeginning(c, fresh);
            } else {
                SessionPositions.seekToEnd(c, fresh);
            }
            positions.positioned(c, parts);
            log.info("kv consumer: reading {} ({} partitions) from the {}", Topics.KV_EVENTS, parts.size(),
                    fresh.size() == parts.size() ? settings.kvEvents().startFrom()
                            : "positions reached before the restart");
            loop.assigned();
            while (loop.running()) {
                ConsumerRecords<byte[], byte[]> records;
                try {
                    records = c.poll(Duration.ofMillis(200));
                } catch (InvalidOffsetException e) {
                    resumeWhereTheLogAllows(c, e);
                    continue;
                } catch (KafkaException e) {
                    UnreadableRecord u = UnreadableRecord.of(c, e);
                    if (u == null) {
                        throw e;
                    }
                    skip(c, u);
                    continue;
                }
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    current = r;
                    List<KvEvent> list;
                    try {
                        list = toEvents(r);
                    } catch (RuntimeException e) { // a bug in the conversion must not stop the index's feed
                        bad(BadReason.INVALID, r, "cannot convert the batch: " + e);
                        list = lost(r);
                    }
                    if (unpriced != null && list != null) {
                        unpriced.check(list);
                    }
                    if (list != null && !list.isEmpty() && !submit(list)) {
                        return; // closed while the writer was full
                    }
                }
                current = null;
                positions.reached(c, records.partitions());
                List<TopicPartition> added = partitionWatch.newPartitions(c, parts);
                if (!added.isEmpty()) {
                    readAdded(c, parts, added);
                }
            }
        } finally {
            loop.consumer(null);
        }
    }

    /**
     * A record poll() refuses (a damaged batch): skipped, counted and logged as corrupt. Its worker, unknown without its
     * bytes, is resynced by the gap its next batch shows.
     */
    private void skip(KafkaConsumer<byte[], byte[]> c, UnreadableRecord u) {
        u.skip(c);
        positions.reached(c, List.of(u.partition()));
        bad[BadReason.CORRUPT.ordinal()].increment();
        if (badLog.allow()) {
            log.warn("kv consumer: bad record {} (corrupt): cannot be read ({}); skipped: the worker whose batch it was "
                    + "is rebuilt when its sequence shows the gap", u.where(), u.why());
        }
    }

    /** What the consumer thread is doing, for the line that says an Error stopped it. */
    private String doing() {
        ConsumerRecord<byte[], byte[]> r = current;
        return r == null ? "reading " + Topics.KV_EVENTS
                : "applying the batch at " + r.topic() + "@" + r.partition() + ":" + r.offset();
    }

    /** Partitions added to the topic since {@code parts} were assigned: read from their beginning, said and kept. */
    private void readAdded(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> parts, List<TopicPartition> added) {
        PartitionWatch.readFromTheBeginning(c, parts, added);
        positions.reached(c, added);
        sayAdded(added);
    }

    private static void sayAdded(List<TopicPartition> added) {
        log.warn("kv consumer: {} has {} new partition(s) {}; reading them from their beginning", Topics.KV_EVENTS,
                added.size(), added);
    }

    /**
     * The position reached is not in the log any more: say why, count it, and go on from where the log allows. A log
     * truncated below it (an unclean leader election) resumes at the offsets where the new leader's log diverges, as
     * {@code auto.offset.reset=earliest} would have silently; records deleted by retention before they were read, and a
     * topic recreated or a new cluster, resume at the log's start.
     */
    private void resumeWhereTheLogAllows(KafkaConsumer<byte[], byte[]> c, InvalidOffsetException e) {
        logResets.increment();
        if (e instanceof LogTruncationException t) {
            Map<TopicPartition, Long> at = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
            t.divergentOffsets().forEach((tp, o) -> at.put(tp, o.offset()));
            log.warn("kv consumer: {} was truncated below the positions reached (a leader's log diverged); resuming at {}",
                    Topics.KV_EVENTS, at);
            at.forEach(c::seek);
            Set<TopicPartition> rest = new HashSet<>(e.partitions());
            rest.removeAll(at.keySet());
            SessionPositions.seekToBeginning(c, rest);
        } else {
            log.warn("kv consumer: {}; reading those partitions from the start of what they hold now (each worker whose "
                    + "events were lost is rebuilt when its sequence shows the gap)", KafkaClients.outOfRange(c, e));
            c.seekToBeginning(e.partitions());
        }
        positions.reached(c, e.partitions());
    }

    /**
     * Hands a batch to the index writer, waiting while it is full (never dropping engine events).
     * False when closed meanwhile.
     */
    private boolean submit(List<KvEvent> list) {
        long pause = 1;
        while (!offer(list)) {
            backpressure.increment();
            if (!loop.pause(pause)) {
                return false;
            }
            pause = Math.min(pause * 2, 50);
        }
        if (!loop.running()) {
            return false; // stopped for good by offer: the batch was not taken
        }
        events.add(list.size());
        return true;
    }

    /**
     * {@link IndexWriter#submit}, but once the writer has stopped for good (now, or while this waited on a full queue)
     * nothing will apply events again: this consumer stops for good too (said on /healthz) rather than restart
     * sessions that fail on every batch. Then true (nothing to wait for), with the loop no longer running.
     */
    private boolean offer(List<KvEvent> list) {
        String writerStopped = writer.failure();
        if (writerStopped == null) {
            try {
                return writer.submit(list);
            } catch (IllegalStateException e) {
                writerStopped = writer.failure();
                if (writerStopped == null) {
                    throw e;
                }
            }
        }
        loop.stopFor(new IllegalStateException("the index writer has stopped (" + writerStopped + ")"),
                "handing a batch to the index");
        return true;
    }

    /**
     * The batch as protocol events (none for an exact repeat of the worker's last), or null when it is bad (counted and
     * logged).
     */
    List<KvEvent> toEvents(ConsumerRecord<byte[], byte[]> r) {
        batches.increment();
        KvEventBatch b;
        try {
            b = Codecs.KV_EVENT_BATCH.decode(r.value());
        } catch (RecordDecodeException e) {
            bad(e instanceof UnknownSchemaException ? BadReason.UNKNOWN_SCHEMA : BadReason.CORRUPT, r, e.getMessage());
            return lost(r);
        }
        String name = b.getWorker();
        Optional<Integer> w = workers.find(name);
        if (w.isEmpty()) {
            bad[BadReason.UNKNOWN_WORKER.ordinal()].increment();
            if (unknownLogged.size() < 1000 && unknownLogged.add(name)) {
                log.warn("kv consumer: events of worker '{}', which this selector does not have, are ignored "
                        + "(first seen at {}@{}:{}; logged once per worker)", name, r.topic(), r.partition(), r.offset());
            }
            return null;
        }
        int worker = w.get();
        if (b.getSequence() < 0) {
            // No engine numbers so (0 at its start, +1 per batch); taken as a number, a batch after it would pass for
            // the worker's first and a gap go unseen. Lost like a batch that cannot be read.
            bad(BadReason.INVALID, r, "worker '" + name + "' batch sequence " + b.getSequence() + " < 0; the batch is "
                    + "skipped and the worker's index entries cleared");
            lastSequence[worker] = -1;
            resyncs[ResyncReason.SKIPPED_BATCH.ordinal()].increment();
            return List.of(new KvEvent.Cleared(worker));
        }
        long hash = BATCH_HASH.hashBytes(r.value());
        if (b.getSequence() == lastSequence[worker] && hash == lastBatchHash[worker]) {
            // An at-least-once producer's retry: applying it again changes nothing, and clearing the worker (as for a
            // sequence that goes back) would drop blocks the engine holds and never announces again.
            duplicates.increment();
            return List.of(); // not bad: nothing to apply (null is a bad record's)
        }
        lastBatchHash[worker] = hash;
        ResyncReason resync = checkSequence(worker, name, b.getSequence());
        List<KvEvent> out = new ArrayList<>(b.getEvents().size() + 1);
        if (resync != null) {
            out.add(new KvEvent.Cleared(worker)); // unknown state: drop it, the events that follow rebuild it
        }
        for (int i = 0; i < b.getEvents().size(); i++) {
            Object e = b.getEvents().get(i);
            String problem = null;
            if (e instanceof BlockStored s) {
                long[] h = hashes(s.getBlockHashes());
                if (h.length == 0) {
                    problem = "stored event with no block hashes";
                } else {
                    Long parent = s.getParentHash();
                    out.add(new KvEvent.Stored(worker, tier(s.getTier()), parent != null, parent == null ? 0 : parent, h));
                }
            } else if (e instanceof BlockRemoved rm) {
                long[] h = hashes(rm.getBlockHashes());
                if (h.length == 0) {
                    problem = "removed event with no block hashes";
                } else {
                    out.add(new KvEvent.Removed(worker, tier(rm.getTier()), h));
                }
            } else if (e instanceof BlockMoved m) {
                long[] h = hashes(m.getBlockHashes());
                if (h.length == 0) {
                    problem = "moved event with no block hashes";
                } else if (m.getFromTier() == m.getToTier()) {
                    problem = "moved event from " + m.getFromTier() + " to the same tier";
                } else {
                    out.add(new KvEvent.Moved(worker, tier(m.getFromTier()), tier(m.getToTier()), h));
                }
            } else if (e instanceof AllCleared) {
                out.add(new KvEvent.Cleared(worker));
            } else {
                problem = "unknown event type " + (e == null ? "null" : e.getClass().getSimpleName());
            }
            if (problem != null) {
                bad(BadReason.INVALID, r, "worker '" + name + "' batch " + b.getSequence() + " events[" + i + "]: "
                        + problem + "; the batch is skipped and the worker's index entries cleared");
                if (resync == null) {
                    resyncs[ResyncReason.SKIPPED_BATCH.ordinal()].increment();
                }
                return List.of(new KvEvent.Cleared(worker));
            }
        }
        return out;
    }

    /**
     * A batch of a known worker (the record key names it) had to be skipped: its events are lost, so
     * the worker's state is unknown from here. Returns a clear of that worker, or null.
     */
    private List<KvEvent> lost(ConsumerRecord<byte[], byte[]> r) {
        if (r.key() == null) {
            return null;
        }
        Optional<Integer> w = workers.find(new String(r.key(), java.nio.charset.StandardCharsets.UTF_8));
        if (w.isEmpty()) {
            return null;
        }
        lastSequence[w.get()] = -1; // cleared now: the next batch starts afresh
        resyncs[ResyncReason.SKIPPED_BATCH.ordinal()].increment();
        return List.of(new KvEvent.Cleared(w.get()));
    }

    /** Checks {@code seq} against the worker's last one; a reason when its index state must be cleared. */
    private ResyncReason checkSequence(int worker, String name, long seq) {
        long last = lastSequence[worker];
        lastSequence[worker] = seq;
        if (last < 0 || seq == last + 1) {
            return null;
        }
        ResyncReason reason = seq == 0 ? ResyncReason.RESTART : seq > last ? ResyncReason.GAP : ResyncReason.OUT_OF_ORDER;
        resyncs[reason.ordinal()].increment();
        if (reason == ResyncReason.RESTART) {
            log.info("kv consumer: worker '{}' restarted (batch sequence back to 0 after {}); its index entries are "
                    + "cleared and rebuilt from its new events", name, last);
            return reason;
        }
        gaps.increment();
        if (gapLog.allow()) {
            log.warn("kv consumer: worker '{}' batch sequence jumped from {} to {}: events were lost or repeated "
                    + "upstream; its index entries are cleared and rebuilt from the events that follow", name, last, seq);
        }
        return reason;
    }

    private static long[] hashes(List<Long> list) {
        long[] h = new long[list == null ? 0 : list.size()];
        for (int i = 0; i < h.length; i++) {
            h[i] = list.get(i);
        }
        return h;
    }

    private static Tier tier(io.tierroute.schemas.avro.Tier t) {
        return Tier.valueOf(t.name());
    }

    private void bad(BadReason reason, ConsumerRecord<byte[], byte[]> r, String message) {
        bad[reason.ordinal()].increment();
        if (badLog.allow()) {
            log.warn("kv consumer: bad record {}@{}:{} ({}): {}", r.topic(), r.partition(), r.offset(),
                    reason.name().toLowerCase(), message);
        }
    }

    @Override
    public void close() {
        loop.close(); // ends a back-off, a wait for the topic or for the writer; wakes a blocked poll
    }
}
