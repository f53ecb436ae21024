package io.tierroute.sim.live;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.AllCleared;
import io.tierroute.schemas.avro.BlockMoved;
import io.tierroute.schemas.avro.BlockRemoved;
import io.tierroute.schemas.avro.BlockStored;
import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.KvEventBatch;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierLinkSample;
import io.tierroute.selector.protocol.KvEvent;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.LongAdder;

/**
 * What real engines publish, as Avro single-object records ({@link Codecs}): telemetry to
 * {@code tierroute.telemetry} (key = worker), KV event batches with a per-worker sequence to
 * {@code tierroute.kv-events} (key = worker) and completion logs to {@code tierroute.completions}
 * (key = request id). Not thread-safe: the live fleet calls it from its simulation thread (and closes it once that
 * thread ended). It counts each kind of record handed to the producer ({@code ...Sent}) and acknowledged by the broker
 * ({@code ...Acknowledged}), and the records that failed ({@link #sendFailures}) or that {@link #close} dropped
 * ({@link #droppedAtClose}): what is neither is still on its way ({@link #inFlight}).
 */
public final class FleetPublisher implements AutoCloseable {

    private final KafkaProducer<byte[], byte[]> producer;
    private final String model;
    private final long[] sequence;
    private final List<List<Object>> pending;
    private final long[] pendingAtMs;
    private final LongAdder telemetry = new LongAdder();
    private final LongAdder kvBatches = new LongAdder();
    private final LongAdder completions = new LongAdder();
    private final LongAdder telemetryAcked = new LongAdder();
    private final LongAdder kvBatchesAcked = new LongAdder();
    private final LongAdder completionsAcked = new LongAdder();
    /** Sends that failed before the close: the broker refused them, or they timed out (an outage, a missing ACL). */
    private final LongAdder failed = new LongAdder();
    /** Records the close gave up on: aborted by its timeout, or offered after it. */
    private final LongAdder dropped = new LongAdder();
    private volatile boolean closing;
    private volatile boolean closed;

    public FleetPublisher(String bootstrapServers, int workers, String model) {
        this(bootstrapServers, Map.of(), workers, model);
    }

    /** With {@code clientProperties} (security.protocol, sasl.*, ssl.* …) applied to the producer. */
    public FleetPublisher(String bootstrapServers, Map<String, String> clientProperties, int workers, String model) {
        this.producer = new KafkaProducer<>(producerProperties(bootstrapServers, clientProperties),
                new ByteArraySerializer(), new ByteArraySerializer());
        this.model = model;
        this.sequence = new long[workers];
        this.pending = new ArrayList<>(workers);
        for (int w = 0; w < workers; w++) {
            pending.add(new ArrayList<>());
        }
        this.pendingAtMs = new long[workers];
    }

    /**
     * The producer's settings: batching for a fleet's stream (linger.ms 20, batch.size 256 KiB) and acks=all, which
     * {@code clientProperties} may change like any other setting; the address and client id are the fleet's own.
     */
    static Properties producerProperties(String bootstrapServers, Map<String, String> clientProperties) {
        Properties p = new Properties();
        p.put("linger.ms", "20");
        p.put("batch.size", "262144");
        p.put("acks", "all");
        p.putAll(clientProperties);
        p.put("bootstrap.servers", bootstrapServers);
        p.put("client.id", "tierroute-live-fleet");
        return p;
    }

    static String worker(int w) {
        return "w" + w;
    }

    private static Tier tier(io.tierroute.selector.protocol.Tier t) {
        return Tier.valueOf(t.name());
    }

    private static List<Long> list(long[] a) {
        List<Long> out = new ArrayList<>(a.length);
        for (long x : a) {
            out.add(x);
        }
        return out;
    }

    /** Buffers one KV event of its worker; {@link #flushKv} sends the worker's buffer as one batch. */
    public void kv(KvEvent e, long eventMs) {
        int w = e.worker();
        List<Object> buf = pending.get(w);
        if (buf.isEmpty()) {
            pendingAtMs[w] = eventMs;
        }
        Object rec;
        if (e instanceof KvEvent.Stored s) {
            rec = BlockStored.newBuilder().setTier(tier(s.tier()))
                    .setParentHash(s.hasParent() ? s.parentHash() : null).setBlockHashes(list(s.blockHashes())).build();
        } else if (e instanceof KvEvent.Removed r) {
            rec = BlockRemoved.newBuilder().setTier(tier(r.tier())).setBlockHashes(list(r.blockHashes())).build();
        } else if (e instanceof KvEvent.Moved m) {
            rec = BlockMoved.newBuilder().setFromTier(tier(m.from())).setToTier(tier(m.to()))
                    .setBlockHashes(list(m.blockHashes())).build();
        } else {
            rec = AllCleared.newBuilder().build();
        }
        buf.add(rec);
    }

    /** Sends every worker's buffered KV events, one {@code KvEventBatch} per worker with the next sequence number. */
    public void flushKv() {
        for (int w = 0; w < pending.size(); w++) {
            List<Object> buf = pending.get(w);
            if (buf.isEmpty()) {
                continue;
            }
            KvEventBatch b = KvEventBatch.newBuilder().setWorker(worker(w)).setModel(model).setLora(null).setNamespace(null)
                    .setSequence(sequence[w]++).setTimestampMs(pendingAtMs[w]).setEvents(new ArrayList<>(buf)).build();
            buf.clear();
            send(Topics.KV_EVENTS, worker(w), b.getTimestampMs(), Codecs.KV_EVENT_BATCH.encode(b), kvBatches,
                    kvBatchesAcked);
        }
    }

    public void telemetry(EngineTelemetry t) {
        send(Topics.TELEMETRY, t.getWorker().toString(), t.getTimestampMs(), Codecs.ENGINE_TELEMETRY.encode(t), telemetry,
                telemetryAcked);
    }

    public void completion(CompletionLog c) {
        send(Topics.COMPLETIONS, c.getRequestId().toString(), c.getFinishedTimeMs(), Codecs.COMPLETION_LOG.encode(c),
                completions, completionsAcked);
    }

    static TierLinkSample link(Tier tier, long bytes, long intervalMs) {
        return TierLinkSample.newBuilder().setTier(tier).setBytesMoved(bytes).setIntervalMs(intervalMs).build();
    }

    /**
     * Hands one record to the producer, counted in {@code sent} first (a send may fail at once, calling back before it
     * returns), then in {@code acked} or as failed when the broker answers.
     */
    private void send(String topic, String key, long timestampMs, byte[] value, LongAdder sent, LongAdder acked) {
        sent.increment();
        if (closed) { // the producer would throw; a record offered after the close is dropped, and counted so
            dropped.increment();
            return;
        }
        try {
            producer.send(new ProducerRecord<>(topic, null, timestampMs, key.getBytes(StandardCharsets.UTF_8), value),
                    (md, ex) -> {
                        if (ex == null) {
                            acked.increment();
                        } else if (closing) {
                            dropped.increment(); // aborted by the close's timeout (or failed during it)
                        } else {
                            failed.increment();
                        }
                    });
        } catch (RuntimeException e) { // thrown instead of a callback (the producer closing under it): settled here
            (closing ? dropped : failed).increment();
            throw e;
        }
    }

    /** Records handed to the producer, acknowledged or not. */
    public long telemetrySent() { return telemetry.sum(); }
    public long kvBatchesSent() { return kvBatches.sum(); }
    public long completionsSent() { return completions.sum(); }
    public long sent() { return telemetrySent() + kvBatchesSent() + completionsSent(); }

    /** Records the broker acknowledged: what reached the topics (and, for completions, the fitting job). */
    public long telemetryAcknowledged() { return telemetryAcked.sum(); }
    public long kvBatchesAcknowledged() { return kvBatchesAcked.sum(); }
    public long completionsAcknowledged() { return completionsAcked.sum(); }
    public long acknowledged() { return telemetryAcknowledged() + kvBatchesAcknowledged() + completionsAcknowledged(); }

    /** Records whose send failed before the close (refused, or timed out: {@code max.block.ms}, {@code delivery.timeout.ms}). */
    public long sendFailures() { return failed.sum(); }

    /** Records the close dropped: still buffered when its 5 s ran out, or offered after it. 0 before the close. */
    public long droppedAtClose() { return dropped.sum(); }

    /** Records neither acknowledged, failed nor dropped yet: on their way to the broker. */
    public long inFlight() { return counts().inFlight(); }

    /** Whether {@link #close} ran: its counts are final then. */
    public boolean closed() { return closed; }

    /**
     * The counts read once each, the outcomes before the sends (a record settling between the reads is then in flight,
     * never counted twice): they add up, acknowledged + failed + dropped + in flight = sent, while records settle.
     */
    public Counts counts() {
        boolean wasClosed = closed;
        long t = telemetryAcked.sum();
        long k = kvBatchesAcked.sum();
        long c = completionsAcked.sum();
        long f = failed.sum();
        long d = dropped.sum();
        return new Counts(t, k, c, f, d, sent(), wasClosed);
    }

    /** One reading of the publisher's counts ({@link #counts}); {@code closed}: they are final. */
    public record Counts(long telemetryAcknowledged, long kvBatchesAcknowledged, long completionsAcknowledged,
                         long failed, long dropped, long sent, boolean closed) {
        public long acknowledged() { return telemetryAcknowledged + kvBatchesAcknowledged + completionsAcknowledged; }
        public long inFlight() { return Math.max(0, sent - acknowledged() - failed - dropped); }
    }

    /**
     * Sends the buffered KV events and closes the producer, waiting up to 5 s for what is on its way; the records it
     * still held then are dropped and counted in {@link #droppedAtClose}. Safe twice.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            flushKv();
        } finally {
            closing = true;
            try {
                producer.close(Duration.ofSeconds(5)); // past its timeout it aborts what is left: their callbacks count them
            } finally { // even if the close threw (an interrupt): the counts are settled, the summary adds up
                closed = true;
                dropped.add(counts().inFlight()); // no callback came for them (none should be left): dropped all the same
            }
        }
    }
}
