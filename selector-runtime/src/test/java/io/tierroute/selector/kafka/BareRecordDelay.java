package io.tierroute.selector.kafka;

import io.tierroute.schemas.Topics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The baseline of the replica sync's delay: how long a bare record takes from a producer to a consumer on the test
 * broker, on a topic of its own with the sync topic's partitions and configs. The producer sends as the sync's does (no
 * linger, lz4, acks all); the consumer polls on a thread of its own, assigned every partition from their ends. One
 * record at a time ({@link #nextMicros}), so that a test can take it between two of its own measurements: the host's
 * speed changes within a run.
 */
final class BareRecordDelay implements AutoCloseable {

    private static final String TOPIC = "replica-sync-baseline";

    private final Duration timeout;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final AtomicLong received = new AtomicLong();
    private final AtomicBoolean polling = new AtomicBoolean(true);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Thread poller;
    private long sent;

    /** Creates the topic and the two clients, and sends one record first (the producer's metadata). */
    BareRecordDelay(Duration timeout) {
        this.timeout = timeout;
        Topics.Spec sync = Topics.specs().stream().filter(t -> t.name().equals(Topics.REPLICA_SYNC)).findFirst()
                .orElseThrow();
        KafkaFixture.broker().deleteTopics(List.of(TOPIC));
        KafkaFixture.broker().createTopic(TOPIC, sync.partitions(), sync.configs());
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaFixture.broker().bootstrapServers());
        pp.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        pp.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaFixture.broker().bootstrapServers());
        cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"); // as the sync's consumer
        producer = new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer());
        consumer = new KafkaConsumer<>(cp, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> parts = new ArrayList<>();
        for (int i = 0; i < sync.partitions(); i++) {
            parts.add(new TopicPartition(TOPIC, i));
        }
        consumer.assign(parts);
        consumer.seekToEnd(parts);
        parts.forEach(consumer::position); // resolved before the first record is sent
        poller = new Thread(() -> {
            try {
                while (polling.get()) {
                    received.addAndGet(consumer.poll(Duration.ofMillis(100)).count());
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "bare-record-consumer");
        poller.setDaemon(true); // never keeps a test JVM alive
        poller.start();
        try {
            nextMicros();
        } catch (RuntimeException e) { // the caller gets no instance to close
            try {
                close();
            } catch (InterruptedException | RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /** Sends one record and waits until the consumer has it (polled every 0.2 ms, as the test polls the replicas). */
    long nextMicros() {
        long start = System.nanoTime();
        long n = ++sent;
        producer.send(new ProducerRecord<>(TOPIC, ("r" + n).getBytes(), new byte[160]), (meta, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e);
            }
        });
        while (received.get() < n) {
            Throwable t = failure.get();
            if (t != null) {
                throw new IllegalStateException("the bare record " + n + " failed", t);
            }
            if (System.nanoTime() - start > timeout.toNanos()) {
                throw new IllegalStateException("the bare record " + n + " did not arrive within " + timeout);
            }
            LockSupport.parkNanos(200_000);
        }
        return (System.nanoTime() - start) / 1000;
    }

    @Override
    public void close() throws InterruptedException {
        polling.set(false);
        poller.join();
        producer.close(Duration.ofSeconds(5));
        consumer.close(Duration.ofSeconds(5));
        KafkaFixture.broker().deleteTopics(List.of(TOPIC));
    }
}
