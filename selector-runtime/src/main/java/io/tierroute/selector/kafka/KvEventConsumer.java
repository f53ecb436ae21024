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
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.protocol.WorkerRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

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
 * by reason. A gap in a worker's batch sequence is counted and logged (events were lost upstream;
 * the index may hold stale blocks of that worker until they are removed or it restarts).
 */
public final class KvEventConsumer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KvEventConsumer.class);

    /** Reasons of {@code tierroute_kafka_kv_bad_records_total}. */
    public enum BadReason { CORRUPT, UNKNOWN_SCHEMA, UNKNOWN_WORKER, INVALID }

    private final KafkaSettings settings;
    private final WorkerRegistry workers;
    private final IndexWriter writer;
    private final Thread thread;
    private final CountDownLatch assigned = new CountDownLatch(1);
    private final long[] lastSequence;
    private final LongAdder batches = new LongAdder();
    private final LongAdder events = new LongAdder();
    private final LongAdder gaps = new LongAdder();
    private final LongAdder backpressure = new LongAdder();
    private final LongAdder[] bad = new LongAdder[BadReason.values().length];
    private final LogLimiter badLog = new LogLimiter(20, 1000);
    private final LogLimiter gapLog = new LogLimiter(20, 1000);
    private final Set<String> unknownLogged = ConcurrentHashMap.newKeySet();
    private volatile boolean running = true;
    private volatile KafkaConsumer<byte[], byte[]> consumer;

    public KvEventConsumer(KafkaSettings settings, WorkerRegistry workers, IndexWriter writer) {
        this.settings = settings;
        this.workers = workers;
        this.writer = writer;
        this.lastSequence = new long[workers.size()];
        Arrays.fill(lastSequence, -1);
        for (int i = 0; i < bad.length; i++) {
            bad[i] = new LongAdder();
        }
        this.thread = new Thread(this::run, "tierroute-kv-consumer");
        this.thread.setDaemon(true);
    }

    public KvEventConsumer start() {
        thread.start();
        return this;
    }

    /** Waits until the consumer is assigned and positioned (events produced after this are read). */
    public boolean awaitAssigned(Duration timeout) throws InterruptedException {
        return assigned.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    public long batches() { return batches.sum(); }
    public long events() { return events.sum(); }
    public long sequenceGaps() { return gaps.sum(); }
    public long backpressureWaits() { return backpressure.sum(); }
    public long badRecords(BadReason reason) { return bad[reason.ordinal()].sum(); }

    public long badRecords() {
        long n = 0;
        for (LongAdder a : bad) {
            n += a.sum();
        }
        return n;
    }

    private void run() {
        try (KafkaConsumer<byte[], byte[]> c = KafkaClients.assignedConsumer(settings, "kv")) {
            consumer = c;
            if (!running) {
                return;
            }
            List<TopicPartition> parts = List.of();
            boolean warned = false;
            while (running && parts.isEmpty()) {
                parts = KafkaClients.partitions(c, Topics.KV_EVENTS, Duration.ofSeconds(5));
                if (parts.isEmpty()) {
                    if (!warned) {
                        log.warn("kv consumer: topic {} not found at {} yet; retrying every second", Topics.KV_EVENTS,
                                settings.bootstrapServers());
                        warned = true;
                    }
                    Thread.sleep(1000);
                }
            }
            c.assign(parts);
            if (settings.kvEvents().startFrom().equals("earliest")) {
                c.seekToBeginning(parts);
            } else {
                c.seekToEnd(parts);
            }
            for (TopicPartition tp : parts) {
                c.position(tp); // resolve the lazy seek now, so "assigned" means positioned
            }
            log.info("kv consumer: reading {} ({} partitions) from the {}", Topics.KV_EVENTS, parts.size(),
                    settings.kvEvents().startFrom());
            assigned.countDown();
            while (running) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    List<KvEvent> list = toEvents(r);
                    if (list != null && !list.isEmpty()) {
                        submit(list);
                    }
                }
            }
        } catch (WakeupException | InterruptedException e) {
            // close()
        } catch (RuntimeException e) {
            if (running) {
                log.error("kv consumer stopped: {}", e.toString(), e);
            }
        } finally {
            consumer = null;
        }
    }

    /** Hands a batch to the index writer, waiting while it is full (never dropping engine events). */
    private void submit(List<KvEvent> list) throws InterruptedException {
        long pause = 1;
        while (!writer.submit(list)) {
            if (!running) {
                return;
            }
            backpressure.increment();
            Thread.sleep(pause);
            pause = Math.min(pause * 2, 50);
        }
        events.add(list.size());
    }

    /** The batch as protocol events, or null when it is bad (counted and logged). */
    List<KvEvent> toEvents(ConsumerRecord<byte[], byte[]> r) {
        batches.increment();
        KvEventBatch b;
        try {
            b = Codecs.KV_EVENT_BATCH.decode(r.value());
        } catch (RecordDecodeException e) {
            bad(e instanceof UnknownSchemaException ? BadReason.UNKNOWN_SCHEMA : BadReason.CORRUPT, r, e.getMessage());
            return null;
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
        checkSequence(worker, name, b.getSequence());
        List<KvEvent> out = new ArrayList<>(b.getEvents().size());
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
                        + problem + "; the batch is skipped");
                return null;
            }
        }
        return out;
    }

    private void checkSequence(int worker, String name, long seq) {
        long last = lastSequence[worker];
        lastSequence[worker] = seq;
        if (last < 0 || seq == last + 1) {
            return;
        }
        if (seq == 0) {
            log.info("kv consumer: worker '{}' restarted (batch sequence back to 0 after {})", name, last);
            return;
        }
        gaps.increment();
        if (gapLog.allow()) {
            log.warn("kv consumer: worker '{}' batch sequence jumped from {} to {}: events were lost or repeated "
                    + "upstream; its index entries may be stale until it clears or restarts", name, last, seq);
        }
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
        running = false;
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup(); // no interrupt: it would break the consumer's own close
        } else {
            thread.interrupt();
        }
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
