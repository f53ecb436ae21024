package io.tierroute.selector.kafka;

import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.logging.LogLimiter;
import io.tierroute.selector.threads.PartStop;
import io.tierroute.selector.threads.Uninterrupted;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A bounded hand-off buffer in front of a Kafka producer, and the one thread that drains it: what a selector publishes
 * from its route threads ({@link DecisionPublisher}, {@link ReplicaSyncPublisher}) without a route ever waiting.
 *
 * <p>{@link #offer} only offers an item to a bounded {@link ArrayBlockingQueue}; when it is full the item is dropped
 * and counted ({@link #droppedBufferFull}). The thread ({@code threadName}) drains the queue, encodes each item into
 * a record and hands it to the producer, which batches them. When the broker is unreachable that thread waits in the
 * producer (at most {@code max.block.ms}) while the queue fills and routes keep going; records the producer fails to
 * deliver are counted as {@link #sendFailed}. Items still buffered when {@link #close} gives up on them (an
 * unreachable broker), or offered after it, are counted as {@link #droppedClosed}, so that every offered item ends up
 * acknowledged or in exactly one drop reason.
 *
 * <p>A bootstrap host that does not resolve (a DNS blip, a Kafka Service not created yet) makes the Kafka producer
 * refuse to be built at all. That does not fail the selector's start, which {@code params.requireOnStart: false}
 * promises to survive: the thread builds the producer again, 1 s and then up to every 30 s, with a WARN each time
 * (at most one a minute), and items wait in the buffer meanwhile as they do for an unreachable broker. Any other
 * setting the producer refuses fails the start.
 *
 * <p>An {@link Error} on the sending thread (out of memory, a class that failed to load) stops it for good
 * ({@link #stopped()}, logged once; {@code /healthz} answers 503): what it held and everything offered after is counted
 * as {@link #droppedClosed}, not left to fill the buffer and pass for {@code buffer_full}.
 *
 * @param <P> what a route thread hands over: small, never the prompt
 */
final class HandOffProducer<P> implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HandOffProducer.class);

    /** Builds the record of an item on the sending thread; a failure is counted as {@link #encodeFailed}. */
    interface Encoder<P> {
        ProducerRecord<byte[], byte[]> record(P item);
    }

    /**
     * What is published, in the log's words.
     *
     * @param name       the publisher in log lines ({@code decisions publisher})
     * @param items      what it publishes, plural ({@code decisions})
     * @param topic      where
     * @param threadName its sending thread
     */
    record Names(String name, String items, String topic, String threadName) {}

    private final KafkaSettings settings;
    private final Names names;
    private final int capacity;
    private final Encoder<P> encoder;
    private final java.util.function.Function<P, String> describe;
    private final ArrayBlockingQueue<P> queue;
    private final Properties producerProperties;
    private volatile boolean flushRequested;
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
    private final PartStop stop;

    /**
     * @param settings   the kafka section (client properties)
     * @param clientId   the producer's {@code client.id} suffix
     * @param capacity   items the buffer holds
     * @param tuning     producer settings of this publisher (linger, batch, compression), under the user's properties
     * @param encoder    an item's record
     * @param describe   an item in a log line (its request id)
     */
    HandOffProducer(KafkaSettings settings, Names names, String clientId, int capacity, Properties tuning,
                    Encoder<P> encoder, java.util.function.Function<P, String> describe) {
        this.settings = settings;
        this.names = names;
        this.capacity = capacity;
        this.encoder = encoder;
        this.describe = describe;
        this.queue = new ArrayBlockingQueue<>(capacity);
        Properties p = KafkaClients.base(settings, clientId);
        tuning.forEach(p::putIfAbsent);
        p.putIfAbsent(ProducerConfig.ACKS_CONFIG, "all");
        // The producer thread may wait this long for metadata or buffer space; routes never do.
        p.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, "2000");
        p.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(defaultDeliveryTimeoutMs(p)));
        this.producerProperties = p;
        this.stop = new PartStop(names.name());
        this.producer = newProducer();
        this.thread = new Thread(this::run, names.threadName());
        this.thread.setDaemon(true);
    }

    /**
     * 30 s, or the linger plus the request timeout where the user's linger makes that longer: Kafka refuses a producer
     * whose delivery timeout is below their sum, so a long {@code linger.ms} given alone must not stop the selector.
     * A value that is no number counts as 0 here; the producer then refuses it by name.
     */
    static long defaultDeliveryTimeoutMs(Properties p) {
        // Kafka's delivery.timeout.ms is an int; linger.ms a long: the sum is capped (Kafka then refuses the linger).
        long sum = millis(p, ProducerConfig.LINGER_MS_CONFIG) + millis(p, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG);
        return Math.min(Integer.MAX_VALUE, Math.max(30_000L, sum));
    }

    /** A setting in ms, at most {@code Integer.MAX_VALUE} (so two add without overflow); 0 when absent or no number. */
    private static long millis(Properties p, String key) {
        Object v = p.get(key);
        try {
            return v == null ? 0 : Math.min(Integer.MAX_VALUE, Math.max(0, Long.parseLong(v.toString().trim())));
        } catch (NumberFormatException e) {
            return 0;
        }
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
                log.warn("{}: no producer yet: {} does not resolve ({}); {} wait in the buffer (dropped, counted, "
                        + "once it is full) and the producer is built again", names.name(), settings.bootstrapServers(),
                        SessionLoop.describe(e), names.items());
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
            log.error("{}: cannot build the producer: {}; trying again", names.name(), SessionLoop.describe(e));
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
        log.info("{}: producer built; {} {} waiting in the buffer", names.name(), queue.size(), names.items());
        return true;
    }

    /** Whether the producer has been built (false while the bootstrap host does not resolve). */
    public boolean hasProducer() {
        return producer != null;
    }

    HandOffProducer<P> start() {
        thread.start();
        return this;
    }

    /**
     * On the route thread: one non-blocking offer of the item {@code item} builds (not built once closed); a full
     * buffer drops it (counted).
     */
    void offer(java.util.function.Supplier<P> item) {
        offered.increment();
        if (!running) {
            droppedClosed.increment();
            return;
        }
        P p = item.get();
        if (!queue.offer(p)) {
            droppedFull.increment();
        } else if (!running && queue.remove(p)) {
            droppedClosed.increment(); // close() ran between the check and the offer: it would never be sent
        }
    }

    /** Items handed over by routes. */
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
    /** Why an Error stopped the sending thread for good (nothing is published any more), or null while it runs. */
    public String stopped() { return stop.why(); }
    /** Items waiting in the buffer. */
    public int backlog() { return queue.size(); }
    public int capacity() { return capacity; }

    private void run() {
        try {
            sendLoop();
        } catch (Throwable t) { // an Error: the thread's state is in doubt and it would most likely come back
            running = false; // offers from now on are counted as closed
            stop.record(t, "sending " + names.items() + " to " + names.topic());
            droppedClosed.add(drainAll());
        }
    }

    private void sendLoop() {
        List<P> batch = new ArrayList<>(512);
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
                P first;
                try {
                    first = queue.poll(100, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    if (running) {
                        continue;
                    }
                    break; // close() gave up on the rest: it counts what is left
                }
                if (first == null) {
                    flushIfAsked();
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, 511);
                for (P p : batch) {
                    send(p);
                    done++;
                }
                flushIfAsked();
            } catch (Exception e) { // never let the thread die of a failure while routes keep offering
                int lost = Math.max(0, batch.size() - done);
                encodeFailed.add(lost);
                log.error("{}: {} {} lost: {}", names.name(), lost, names.items(), e.toString(), e);
            } catch (Error e) {
                droppedClosed.add(Math.max(0, batch.size() - done)); // never sent: the thread stops (run())
                throw e;
            } finally {
                batch.clear();
            }
        }
    }

    /**
     * Asks the sending thread to send what the producer still holds for its linger once the buffer is empty: a stop
     * that waits for the last items' acknowledgements would otherwise wait out a long {@code linger.ms}.
     */
    public void flushSoon() {
        flushRequested = true;
    }

    private void flushIfAsked() {
        if (flushRequested && queue.isEmpty()) {
            flushRequested = false;
            try {
                producer.flush(); // blocks this thread only: routes offer to the buffer
            } catch (InterruptException e) {
                Thread.interrupted(); // close(): the loop's condition decides
            } catch (RuntimeException e) { // nothing lost: what was sent is counted by its callback
                log.warn("{}: flushing the producer failed: {}", names.name(), e.toString());
            }
        }
    }

    private void send(P p) {
        ProducerRecord<byte[], byte[]> record;
        try {
            record = encoder.record(p);
        } catch (RuntimeException e) {
            encodeFailed.increment();
            log.error("{}: cannot build the record of request '{}': {}", names.name(), describe.apply(p), e.toString());
            return;
        }
        try {
            producer.send(record, (md, ex) -> {
                if (ex == null) {
                    acked.increment();
                } else {
                    sendFailed.increment();
                    if (failLog.allow()) {
                        log.warn("{}: a record was not delivered to {}: {} ({} so far)", names.name(), names.topic(),
                                ex.toString(), sendFailed.sum());
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
                log.warn("{}: cannot send to {}: {} ({} so far)", names.name(), names.topic(), e.toString(),
                        sendFailed.sum());
            }
        }
    }

    /**
     * Stops accepting, sends what is buffered (bounded), flushes and closes the producer. Idempotent. A caller that is
     * interrupted still waits for each step ({@link Uninterrupted}; its interrupt kept): the producer's close would
     * otherwise throw before flushing.
     */
    @Override
    public void close() {
        running = false;
        Uninterrupted.join(thread, 5_000);
        if (thread.isAlive()) { // stuck on an unreachable broker: give up on what is buffered
            droppedClosed.add(drainAll());
            thread.interrupt(); // ends a wait for metadata in send (counted as send_failed)
            Uninterrupted.join(thread, 2_000);
        }
        droppedClosed.add(drainAll()); // each element is taken once: none is counted twice or sent as well
        KafkaProducer<byte[], byte[]> made;
        synchronized (producerLock) {
            producerClosed = true;
            made = producer;
        }
        if (made != null) {
            Uninterrupted.run(() -> made.close(Duration.ofSeconds(5)));
        }
        // A thread still sending the rest of a drained batch now fails fast on the closed producer and
        // counts each as send_failed; wait for it so that close() returns with every item counted.
        Uninterrupted.join(thread, 5_000);
        if (thread.isAlive()) {
            log.warn("{}: the sending thread did not stop within 5 s of closing the producer", names.name());
        }
    }

    private int drainAll() {
        List<P> left = new ArrayList<>();
        queue.drainTo(left);
        return left.size();
    }
}
