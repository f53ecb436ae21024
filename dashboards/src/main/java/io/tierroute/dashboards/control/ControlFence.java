package io.tierroute.dashboards.control;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordDecodeException;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.snapshot.ActivationRule;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The one writer of a scope's control records at a time (DESIGN.md §5: the control topic is single-writer
 * ordered per scope). Opening a fence starts a transactional producer whose id is the scope's
 * ({@value #TRANSACTIONAL_ID_PREFIX}{@code <scope>}): Kafka fences every earlier producer of that id and
 * aborts its open transaction. Every reader reads committed records only, so of two operators who pin at
 * once one record commits and the other writer is told it lost: no losing record stays on the compacted
 * topic to win there once compaction keeps the last record of the key.
 *
 * <p>Use: {@link #open}, then read the scope's state ({@link #lastSequence} or the whole history; read after
 * opening, nothing can commit in between), then {@link #commit} one record with the next sequence.
 */
public final class ControlFence implements AutoCloseable {

    /** The prefix of the control writers' transactional ids; operators need WRITE and DESCRIBE on it. */
    public static final String TRANSACTIONAL_ID_PREFIX = "tierroute-control-";

    /** Another writer of the scope opened its fence after this one: this one's record was not committed. */
    public static final class Fenced extends RuntimeException {
        Fenced(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final String scope;
    private final KafkaProducer<byte[], byte[]> producer;

    private ControlFence(String scope, KafkaProducer<byte[], byte[]> producer) {
        this.scope = scope;
        this.producer = producer;
    }

    /**
     * Fences every other writer of {@code scope}. Fails with Kafka's exception (an authorisation error when the
     * principal may not use the scope's transactional id, a timeout when the broker does not answer).
     */
    public static ControlFence open(String bootstrap, Properties clientProperties, String scope, Duration timeout,
                                    String clientId) {
        Properties p = new Properties();
        p.putAll(clientProperties);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TRANSACTIONAL_ID_PREFIX + scope);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        String ms = Long.toString(timeout.toMillis());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, ms);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, ms);
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        try {
            producer.initTransactions();
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
        return new ControlFence(scope, producer);
    }

    /**
     * Writes {@code control} (key = its scope) and commits it.
     *
     * @throws Fenced        when another writer of the scope opened its fence meanwhile (nothing was written)
     * @throws KafkaException any other failure, with the transaction aborted (nothing was written)
     */
    public void commit(SnapshotControl control) {
        if (!control.getScope().equals(scope)) {
            throw new IllegalArgumentException("this fence guards scope '" + scope + "', not '" + control.getScope() + "'");
        }
        try {
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(Topics.CONTROL, scope.getBytes(StandardCharsets.UTF_8),
                    Codecs.SNAPSHOT_CONTROL.encode(control)));
            producer.commitTransaction();
        } catch (ProducerFencedException | InvalidProducerEpochException e) {
            throw new Fenced("another writer of scope '" + scope + "' began a write while this one wrote; this one's "
                    + "record was not committed", e);
        } catch (KafkaException e) {
            try {
                producer.abortTransaction();
            } catch (KafkaException ignored) {
                // the producer is unusable already (fenced, or a fatal error): nothing was committed either way
            }
            throw e;
        }
    }

    /**
     * The sequence of the last control record of {@code scope} that readers apply ({@link ActivationRule}), read from
     * the beginning of the committed control topic (compacted: about one record per scope); 0 when none.
     */
    public static long lastSequence(String bootstrap, Properties clientProperties, String scope, Duration timeout) {
        Properties p = new Properties();
        p.putAll(clientProperties);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        ActivationRule rule = new ActivationRule();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (PartitionInfo i : c.partitionsFor(Topics.CONTROL, timeout)) {
                parts.add(new TopicPartition(i.topic(), i.partition()));
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> left = new HashMap<>(c.endOffsets(parts, timeout));
            left.entrySet().removeIf(e -> e.getValue() == 0);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!left.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new org.apache.kafka.common.errors.TimeoutException("did not read " + Topics.CONTROL
                            + " to its end within " + timeout.toSeconds() + " s");
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.value() != null) {
                        try {
                            rule.onControl(Codecs.SNAPSHOT_CONTROL.decode(r.value()));
                        } catch (RecordDecodeException e) {
                            // a corrupt record is no control record for any reader either
                        }
                    }
                }
                left.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
            }
        }
        return rule.controlSequence(scope);
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
