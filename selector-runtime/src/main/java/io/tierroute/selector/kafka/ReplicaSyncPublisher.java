package io.tierroute.selector.kafka;

import io.tierroute.schemas.Topics;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.sync.NumberedMessage;
import io.tierroute.selector.sync.NumberedTransport;
import io.tierroute.selector.sync.wire.ReplicaSyncWire;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * Replica sync's outbound half over Kafka: each admission of this replica and each request event reported to it
 * becomes a {@code ReplicaSyncMessage} on {@code tierroute.replica-sync} (key = the request id, so a request's
 * messages from one replica stay in order), through a {@link HandOffProducer} ({@code tierroute-replica-sync-out}
 * thread: a route never waits; past {@code replicaSync.bufferSize} a message is dropped and counted). No linger: what
 * the other replicas price is only as fresh as this (5 ms of linger put a warm link's delay at 25-45 ms against 7-25
 * without, on loopback), and the producer still batches what piles up while a request is in flight. Each record carries
 * its message's number in the {@value ReplicaSyncConsumer#SEQUENCE_HEADER} header, so a receiver that heard it by the
 * direct path first drops this copy.
 */
public final class ReplicaSyncPublisher implements NumberedTransport, AutoCloseable {

    private final HandOffProducer<NumberedMessage> out;

    /**
     * @param replicaId this process's id on the topic (the consumer skips records carrying it)
     * @param workers   the names of the admissions' workers
     */
    public ReplicaSyncPublisher(KafkaSettings settings, String replicaId, WorkerRegistry workers) {
        Properties tuning = new Properties();
        tuning.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        tuning.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        ReplicaSyncWire wire = new ReplicaSyncWire(replicaId, settings.selectorId(), settings.scope(), workers);
        this.out = new HandOffProducer<>(settings, new HandOffProducer.Names("replica sync publisher",
                "replica sync messages", Topics.REPLICA_SYNC, "tierroute-replica-sync-out"), "replica-sync",
                settings.replicaSync().bufferSize(), tuning, n -> record(wire, n), NumberedMessage::requestId);
    }

    private static ProducerRecord<byte[], byte[]> record(ReplicaSyncWire wire, NumberedMessage n) {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(Topics.REPLICA_SYNC,
                n.requestId().getBytes(StandardCharsets.UTF_8), wire.encode(n));
        r.headers().add(ReplicaSyncConsumer.SEQUENCE_HEADER, ByteBuffer.allocate(Long.BYTES).putLong(n.sequence()).array());
        return r;
    }

    public ReplicaSyncPublisher start() {
        out.start();
        return this;
    }

    @Override
    public void send(NumberedMessage message) {
        out.offer(() -> message);
    }

    /** Messages handed over by routes and request threads. */
    public long offered() { return out.offered(); }
    /** Dropped because the buffer was full. */
    public long droppedBufferFull() { return out.droppedBufferFull(); }
    /** Dropped because the publisher was closing or closed, or its sending thread stopped on an error. */
    public long droppedClosed() { return out.droppedClosed(); }
    /** Why an Error stopped the sending thread for good (nothing is published any more), or null while it runs. */
    public String stopped() { return out.stopped(); }
    /** Handed to the producer but not delivered. */
    public long sendFailed() { return out.sendFailed(); }
    /** Could not be built or encoded (a bug; logged). */
    public long encodeFailed() { return out.encodeFailed(); }
    /** Acknowledged by the broker. */
    public long acknowledged() { return out.acknowledged(); }
    /** Messages waiting in the buffer. */
    public int backlog() { return out.backlog(); }

    @Override
    public void close() {
        out.close();
    }
}
