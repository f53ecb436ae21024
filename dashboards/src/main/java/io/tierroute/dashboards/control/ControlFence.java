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

    /** The longest a control write's transaction may stay open before the broker aborts it. */
    public static final Duration TRANSACTION_TIMEOUT = Duration.ofSeconds(15);

    /** Another writer of the scope opened its fence after this one: this one's record was not committed. */
    public static final class Fenced extends RuntimeException {
        Fenced(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The broker did not confirm the commit in time and the record is not on the topic yet: it may still land. */
    public static final class Unconfirmed extends RuntimeException {
        Unconfirmed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * A topic this fence reads before writing was not read to its end in time while Kafka answered: a slow read or an
     * open transaction (another write), not an outage; a timeout still, so every caller that retries or refuses on a
     * Kafka timeout does so on this one too.
     */
    public static final class UnfinishedRead extends org.apache.kafka.common.errors.TimeoutException {
        UnfinishedRead(String message) {
            super(message);
        }
    }

    private final String scope;
    private final KafkaProducer<byte[], byte[]> producer;
    private final String bootstrap;
    private final Properties clientProperties;
    private final Duration timeout;

    private ControlFence(String scope, KafkaProducer<byte[], byte[]> producer, String bootstrap,
                         Properties clientProperties, Duration timeout) {
        this.scope = scope;
        this.producer = producer;
        this.bootstrap = bootstrap;
        this.clientProperties = clientProperties;
        this.timeout = timeout;
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
        // A writer killed between send and commit holds the partition's committed end back this long (readers then
        // wait, lastSequence refuses): short, one record's transaction needs no more.
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(TRANSACTION_TIMEOUT.toMillis()));
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        try {
            producer.initTransactions();
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
        return new ControlFence(scope, producer, bootstrap, clientProperties, timeout);
    }

    /**
     * Writes {@code control} (key = {@code Topics.controlKey(scope, sequence)}) and commits it. A commit whose answer
     * was lost is looked for on the topic before it is reported as failed: "fenced" or "timed out" alone does not say
     * the record is not there.
     *
     * @throws Fenced        when another writer of the scope opened its fence meanwhile and the record is not on
     *                       the topic
     * @throws Unconfirmed   when the broker did not confirm in time and the record is not on the topic yet
     * @throws KafkaException any other failure, with the transaction aborted (nothing was written)
     */
    public void commit(SnapshotControl control) {
        if (!control.getScope().equals(scope)) {
            throw new IllegalArgumentException("this fence guards scope '" + scope + "', not '" + control.getScope() + "'");
        }
        try {
            producer.beginTransaction();
            // One key per write: compaction keeps every write (who, why), not only the scope's last
            producer.send(new ProducerRecord<>(Topics.CONTROL,
                    Topics.controlKey(scope, control.getSequence()).getBytes(StandardCharsets.UTF_8),
                    Codecs.SNAPSHOT_CONTROL.encode(control)));
            producer.commitTransaction();
        } catch (ProducerFencedException | InvalidProducerEpochException e) {
            if (!onTopic(control)) {
                throw new Fenced("another writer of scope '" + scope + "' began a write while this one wrote; this "
                        + "one's record was not committed", e);
            }
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            // The transaction may still commit (a timed-out commit must be retried, not aborted): look, then say so.
            if (!onTopic(control)) {
                throw new Unconfirmed("the broker did not confirm the write within " + timeout.toSeconds() + " s and "
                        + "the record is not on " + Topics.CONTROL + " yet; it may still land", e);
            }
        } catch (KafkaException e) {
            try {
                producer.abortTransaction();
            } catch (RuntimeException ignored) {
                // the producer is unusable already (a fatal error): nothing was committed either way
            }
            throw e;
        }
    }

    /**
     * Deletes versions of this fence's scope from {@code tierroute.params}: one tombstone per version, committed in one
     * transaction. Behind the fence no pin, unpin or rollback of the scope commits between the caller's read of the
     * history and these deletions, so none can name a version deleted here; a writer that opened its fence meanwhile
     * makes this commit fail instead.
     *
     * @throws Fenced        when another writer of the scope opened its fence meanwhile: nothing was deleted, unless the
     *                       broker had committed before it (a later read tells; deleting again is harmless)
     * @throws Unconfirmed   when the broker did not confirm in time: the deletions may still land
     * @throws KafkaException any other failure, with the transaction aborted (nothing deleted)
     */
    public void commitDeletions(List<Long> versions) {
        try {
            producer.beginTransaction();
            for (long v : versions) {
                producer.send(new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey(scope, v).getBytes(StandardCharsets.UTF_8),
                        null));
            }
            producer.commitTransaction();
        } catch (ProducerFencedException | InvalidProducerEpochException e) {
            throw new Fenced("another writer of scope '" + scope + "' began a write while the deletions were written",
                    e);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw new Unconfirmed("the broker did not confirm the deletions within " + timeout.toSeconds() + " s; they "
                    + "may still land", e);
        } catch (KafkaException e) {
            try {
                producer.abortTransaction();
            } catch (RuntimeException ignored) {
                // the producer is unusable already (a fatal error): nothing was committed either way
            }
            throw e;
        }
    }

    /** Whether {@code control} is the scope's last committed record (a read to the partition's end, bounded). */
    private boolean onTopic(SnapshotControl control) {
        try {
            return control.equals(read(bootstrap, clientProperties, scope, timeout).control(scope).orElse(null));
        } catch (KafkaException e) {
            return false;
        }
    }

    /**
     * The sequence of the last control record of {@code scope} that readers apply ({@link ActivationRule}); 0 when
     * none. Called behind an open fence it is final: no other writer of the scope can commit.
     *
     * @throws org.apache.kafka.common.errors.TimeoutException when the topic cannot be read to its end in time
     */
    public static long lastSequence(String bootstrap, Properties clientProperties, String scope, Duration timeout) {
        return read(bootstrap, clientProperties, scope, timeout).controlSequence(scope);
    }

    /**
     * The committed control topic from the beginning (compacted, but each write has its own key) to the end it has now,
     * uncommitted records included: an open transaction of another scope holds the committed end back, and a
     * read that stopped there could miss a record of this scope committed after it. So the read waits until that
     * transaction ends (at most {@link #TRANSACTION_TIMEOUT}).
     */
    private static ActivationRule read(String bootstrap, Properties clientProperties, String scope, Duration timeout) {
        Properties p = consumerProperties(bootstrap, clientProperties, timeout);
        Map<TopicPartition, Long> end;
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted"); // whatever the client's file says
        try (KafkaConsumer<byte[], byte[]> uncommitted = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            end = uncommitted.endOffsets(partitions(uncommitted, timeout), timeout);
        }
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        ActivationRule rule = new ActivationRule();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>(end.keySet());
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> left = new HashMap<>(end);
            left.entrySet().removeIf(e -> e.getValue() == 0);
            long deadline = System.nanoTime() + timeout.plus(TRANSACTION_TIMEOUT).toNanos();
            while (!left.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new UnfinishedRead("did not read " + Topics.CONTROL
                            + " to its end within " + timeout.plus(TRANSACTION_TIMEOUT).toSeconds() + " s (another "
                            + "control write still open?)");
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
        return rule;
    }

    /**
     * Where the params topic ends now for a writer behind this scope's fence: {@code committedEnd}, where a committed
     * read stops, and {@code end}, past the records of open transactions; {@code scopeDeletionsPending}: a record
     * between the two is a tombstone of this scope. A trim's deletions committed while the fitting job's transaction
     * was open lie there until that transaction ends; only a holder of this fence writes them, so behind it the set is
     * final. A writer waits for {@code end} only then: an open job transaction alone must not hold up a rollback.
     */
    public record ParamsEnds(long committedEnd, long end, boolean scopeDeletionsPending) {
        /** The offset a writer's history must hold before it decides. */
        public long mustHold() {
            return scopeDeletionsPending ? end : committedEnd;
        }
    }

    /** {@link ParamsEnds} of the params topic's partition (one partition: {@code Topics.specs}) for {@code scope}. */
    public static ParamsEnds paramsEnds(String bootstrap, Properties clientProperties, String scope, Duration timeout) {
        Properties p = consumerProperties(bootstrap, clientProperties, timeout);
        TopicPartition tp = new TopicPartition(Topics.PARAMS, 0);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        long committedEnd;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            committedEnd = c.endOffsets(List.of(tp), timeout).get(tp);
        }
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted"); // whatever the client's file says
        byte[] prefix = (scope + "#").getBytes(StandardCharsets.UTF_8);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            long end = c.endOffsets(List.of(tp), timeout).get(tp);
            boolean pending = false;
            c.assign(List.of(tp));
            c.seek(tp, committedEnd);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!pending && c.position(tp) < end) {
                if (System.nanoTime() > deadline) {
                    throw new UnfinishedRead("did not read " + Topics.PARAMS
                            + " from offset " + committedEnd + " to " + end + " within " + timeout.toSeconds() + " s");
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.offset() < end && r.value() == null && r.key() != null && startsWith(r.key(), prefix)) {
                        pending = true;
                    }
                }
            }
            return new ParamsEnds(committedEnd, end, pending);
        }
    }

    /** A one-shot reader's settings: the client's own (security) plus no group offsets, no topic creation. */
    private static Properties consumerProperties(String bootstrap, Properties clientProperties, Duration timeout) {
        Properties p = new Properties();
        p.putAll(clientProperties);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeout.toMillis()));
        return p;
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        if (key.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (key[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c, Duration timeout) {
        List<TopicPartition> parts = new ArrayList<>();
        for (PartitionInfo i : c.partitionsFor(Topics.CONTROL, timeout)) {
            parts.add(new TopicPartition(i.topic(), i.partition()));
        }
        return parts;
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
