package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.scheduling.DecisionSink;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Publishes one {@code RoutingDecision} per admitted route to {@code tierroute.decisions} (key = the
 * request id) with the chosen worker's cost breakdown and the fitting features.
 *
 * <p>It never blocks a route: {@link #decided} (on the route thread) only offers a small hand-off
 * record ({@link Pending}: the decision and the few request fields the record carries, not the prompt) to a bounded
 * {@link ArrayBlockingQueue}; when the queue is full the decision is dropped and
 * counted ({@code tierroute_decisions_dropped_total{reason="buffer_full"}}). One thread
 * ({@code tierroute-decisions}) drains the queue, builds and encodes the Avro records and hands them
 * to the Kafka producer, which batches them ({@code linger}, {@code batchBytes}, compression). When
 * the broker is unreachable that thread waits in the producer (at most {@code max.block.ms}) while
 * the queue fills and routes keep going; records the producer fails to deliver are counted with
 * {@code reason="send_failed"}. Decisions still buffered when {@link #close} gives up on them (an
 * unreachable broker), or offered after it, are counted with {@code reason="closed"}, so that every
 * offered decision ends up acknowledged or in exactly one drop reason.
 *
 * <p>A bootstrap host that does not resolve (a DNS blip, a Kafka Service not created yet) makes the Kafka producer
 * refuse to be built at all. That no longer fails the selector's start, which {@code params.requireOnStart: false}
 * promises to survive: the thread builds the producer again, 1 s and then up to every 30 s, with a WARN each time
 * (at most one a minute), and decisions wait in the buffer meanwhile as they do for an unreachable broker. Any other
 * setting the producer refuses still fails the start.
 */
public final class DecisionPublisher implements DecisionSink, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DecisionPublisher.class);

    /**
     * A decision waiting to be sent: no prompt and no explained candidates, which the record does not carry, so that a
     * full buffer (an unreachable broker) holds {@code bufferSize} small records, not as many prompts.
     */
    record Pending(DecisionRecords.RequestFields request, RouteDecision decision, int candidates, long prefixGroupId,
                   long idleMs, long timestampMs) {

        static Pending of(RouteRequest request, RouteDecision decision, int candidates, long prefixGroupId, long idleMs,
                          long timestampMs) {
            return new Pending(DecisionRecords.RequestFields.of(request), decision.withoutCandidates(), candidates,
                    prefixGroupId, idleMs, timestampMs);
        }
    }

    private final KafkaSettings settings;
    private final String defaultModel;
    private final ArrayBlockingQueue<Pending> queue;
    private final Properties producerProperties;
    private volatile KafkaProducer<byte[], byte[]> producer; // null while its bootstrap host does not resolve
    private long nextProducerAttemptNanos = System.nanoTime(); // the sending thread's
    private final Object producerLock = new Object();        // the producer's assignment against close()
    private boolean producerClosed;                          // under producerLock: close() took the producer
    private final RestartBackoff producerBackoff = new RestartBackoff(); // each build attempt is its "session"
    private long nextUnresolvedWarnNanos = System.nanoTime(); // one WARN a minute at most about it
    private final Thread thread;
    private final LongAdder offered = new LongAdder();
    private final LongAdder droppedFull = new LongAdder();
    private final LongAdder droppedClosed = new LongAdder();
    private final LongAdder sendFailed = new LongAdder();
    private final LongAdder encodeFailed = new LongAdder();
    private final LongAdder sent = new LongAdder();
    private final LongAdder acked = new LongAdder();
    private final LogLimiter failLog = new LogLimiter(5, 10_000);
    private volatile boolean running = true;

    /**
     * @param settings     the kafka section (decisions settings, selector id, client properties)
     * @param defaultModel the model of requests that name none
     */
    public DecisionPublisher(KafkaSettings settings, String defaultModel) {
        this.settings = settings;
        this.defaultModel = defaultModel;
        KafkaSettings.Decisions d = settings.decisions();
        this.queue = new ArrayBlockingQueue<>(d.bufferSize());
        Properties p = KafkaClients.base(settings, "decisions");
        p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, Long.toString(d.linger().toMillis()));
        p.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(d.batchBytes()));
        p.putIfAbsent(ProducerConfig.COMPRESSION_TYPE_CONFIG, d.compression());
        p.putIfAbsent(ProducerConfig.ACKS_CONFIG, "all");
        // The producer thread may wait this long for metadata or buffer space; routes never do.
        p.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, "2000");
        p.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        p.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        this.producerProperties = p;
        this.producer = newProducer();
        this.thread = new Thread(this::run, "tierroute-decisions");
        this.thread.setDaemon(true);
    }

    /** A producer, or null (logged) when the bootstrap host does not resolve; any other refusal is thrown. */
    private KafkaProducer<byte[], byte[]> newProducer() {
        try {
            return new KafkaProducer<>(producerProperties, new ByteArraySerializer(), new ByteArraySerializer());
        } catch (org.apache.kafka.common.KafkaException e) {
            if (!unresolvable(e)) {
                throw e;
            }
            long now = System.nanoTime();
            if (now - nextUnresolvedWarnNanos >= 0) {
                nextUnresolvedWarnNanos = now + TimeUnit.MINUTES.toNanos(1);
                log.warn("decisions publisher: no producer yet: {} does not resolve ({}); decisions wait in the buffer "
                        + "(dropped, counted, once it is full) and the producer is built again", settings.bootstrapServers(),
                        SessionLoop.describe(e));
            }
            return null;
        }
    }

    private static boolean unresolvable(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof org.apache.kafka.common.config.ConfigException && String.valueOf(c.getMessage())
                    .contains("No resolvable bootstrap urls")) {
                return true;
            }
        }
        return false;
    }

    /** The sending thread: whether there is a producer, building it again when the back-off allows. */
    private boolean producerReady() {
        if (producer != null) {
            return true;
        }
        long now = System.nanoTime();
        if (now - nextProducerAttemptNanos < 0) {
            return false;
        }
        KafkaProducer<byte[], byte[]> made;
        producerBackoff.sessionStarts();
        try {
            made = newProducer();
        } catch (RuntimeException e) { // another refusal on a retry: the sending thread must not die of it
            log.error("decisions publisher: cannot build the producer: {}; trying again", SessionLoop.describe(e));
            made = null;
        }
        if (made == null) {
            nextProducerAttemptNanos = now + TimeUnit.MILLISECONDS.toNanos(producerBackoff.afterFailure());
            return false;
        }
        synchronized (producerLock) {
            if (producerClosed) { // close() gave up on this thread while it was building one: nobody else closes it
                made.close(Duration.ZERO);
                return false;
            }
            producer = made;
        }
        log.info("decisions publisher: producer built; {} decision(s) waiting in the buffer", queue.size());
        return true;
    }

    /** Whether the producer has been built (false while the bootstrap host does not resolve). */
    public boolean hasProducer() {
        return producer != null;
    }

    public DecisionPublisher start() {
        thread.start();
        return this;
    }

    /** On the route thread: one non-blocking offer; a full buffer drops the decision (counted). */
    @Override
    public void decided(RouteRequest request, RouteDecision decision, int candidateCount, long prefixGroupId,
                        long idleSinceLastStepMs, long timestampMs) {
        offered.increment();
        if (!running) {
            droppedClosed.increment();
            return;
        }
        Pending p = Pending.of(request, decision, candidateCount, prefixGroupId, idleSinceLastStepMs, timestampMs);
        if (!queue.offer(p)) {
            droppedFull.increment();
        } else if (!running && queue.remove(p)) {
            droppedClosed.increment(); // close() ran between the check and the offer: it would never be sent
        }
    }

    /** Decisions handed over by routes. */
    public long offered() { return offered.sum(); }
    /** Dropped because the buffer was full. */
    public long droppedBufferFull() { return droppedFull.sum(); }
    /** Dropped because the publisher was closing or closed (left in the buffer, or offered after close). */
    public long droppedClosed() { return droppedClosed.sum(); }
    /** Handed to the producer but not delivered (broker unreachable past the delivery timeout, …). */
    public long sendFailed() { return sendFailed.sum(); }
    /** Could not be built or encoded (a bug; logged). */
    public long encodeFailed() { return encodeFailed.sum(); }
    /** Handed to the producer. */
    public long sent() { return sent.sum(); }
    /** Acknowledged by the broker. */
    public long acknowledged() { return acked.sum(); }
    /** Decisions waiting in the buffer. */
    public int backlog() { return queue.size(); }
    public int capacity() { return settings.decisions().bufferSize(); }

    private void run() {
        List<Pending> batch = new ArrayList<>(512);
        while (running || !queue.isEmpty()) {
            if (!producerReady()) {
                if (!running) {
                    break; // close() counts what is left
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    // close(): the loop's condition decides
                }
                continue;
            }
            int done = 0;
            try {
                Pending first;
                try {
                    first = queue.poll(100, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    if (running) {
                        continue;
                    }
                    break; // close() gave up on the rest: it counts what is left
                }
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, 511);
                for (Pending p : batch) {
                    send(p);
                    done++;
                }
            } catch (RuntimeException e) { // never let the thread die while routes keep offering
                int lost = Math.max(0, batch.size() - done);
                encodeFailed.add(lost);
                log.error("decisions publisher: {} decision(s) lost: {}", lost, e.toString(), e);
            } finally {
                batch.clear();
            }
        }
    }

    private void send(Pending p) {
        byte[] value;
        try {
            value = Codecs.ROUTING_DECISION.encode(DecisionRecords.build(settings.selectorId(), defaultModel, p.request(),
                    p.decision(), p.candidates(), p.prefixGroupId(), p.idleMs(), p.timestampMs()));
        } catch (RuntimeException e) {
            encodeFailed.increment();
            log.error("decisions publisher: cannot build the record of request '{}': {}", p.decision().requestId(),
                    e.toString());
            return;
        }
        byte[] key = p.decision().requestId().getBytes(StandardCharsets.UTF_8);
        try {
            producer.send(new ProducerRecord<>(Topics.DECISIONS, key, value), (md, ex) -> {
                if (ex == null) {
                    acked.increment();
                } else {
                    sendFailed.increment();
                    if (failLog.allow()) {
                        log.warn("decisions publisher: a decision was not delivered to {}: {} ({} so far)",
                                Topics.DECISIONS, ex.toString(), sendFailed.sum());
                    }
                }
            });
            sent.increment();
        } catch (InterruptException e) {
            sendFailed.increment();
            Thread.interrupted(); // close() while waiting for metadata
        } catch (RuntimeException e) {
            // e.g. a timeout waiting for metadata when the broker is unreachable
            sendFailed.increment();
            if (failLog.allow()) {
                log.warn("decisions publisher: cannot send to {}: {} ({} so far)", Topics.DECISIONS, e.toString(),
                        sendFailed.sum());
            }
        }
    }

    /** Stops accepting, sends what is buffered (bounded), flushes and closes the producer. Idempotent. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) { // stuck on an unreachable broker: give up on what is buffered
            droppedClosed.add(drainAll());
            thread.interrupt(); // ends a wait for metadata in send (counted as send_failed)
            try {
                thread.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        droppedClosed.add(drainAll()); // each element is taken once: none is counted twice or sent as well
        KafkaProducer<byte[], byte[]> made;
        synchronized (producerLock) {
            producerClosed = true;
            made = producer;
        }
        if (made != null) {
            made.close(Duration.ofSeconds(5));
        }
        // A thread still sending the rest of a drained batch now fails fast on the closed producer and
        // counts each as send_failed; wait for it so that close() returns with every decision counted.
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("decisions publisher: the sending thread did not stop within 5 s of closing the producer");
        }
    }

    private int drainAll() {
        List<Pending> left = new ArrayList<>();
        queue.drainTo(left);
        return left.size();
    }
}
