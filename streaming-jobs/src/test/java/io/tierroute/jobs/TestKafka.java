package io.tierroute.jobs;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.DeadLetter;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.snapshot.ActivationRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** An embedded KRaft broker with the project's topics, and the produce / read-back helpers the job tests use. */
final class TestKafka implements AutoCloseable {
    final EmbeddedKafka broker;
    /** Client settings of this class's own producer and readers (a secured broker's super user), else empty. */
    private final Properties client;
    private final KafkaProducer<byte[], byte[]> producer;

    TestKafka() {
        this(false);
    }

    /** @param singlePartitions every topic with one partition (a fixed input order, for the deterministic mode) */
    TestKafka(boolean singlePartitions) {
        this(EmbeddedKafka.start(), new Properties(), singlePartitions);
    }

    /**
     * The project's topics on {@code broker} (closed with this), written and read back with {@code client}'s settings.
     */
    TestKafka(EmbeddedKafka broker, Properties client, boolean singlePartitions) {
        this.broker = broker;
        this.client = client;
        for (Topics.Spec s : Topics.specs()) {
            broker.createTopic(s.name(), singlePartitions ? 1 : s.partitions(), s.configs());
        }
        Properties p = new Properties();
        p.putAll(client);
        p.put("bootstrap.servers", broker.bootstrapServers());
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        p.put("linger.ms", "5");
        p.put("batch.size", "262144");
        producer = new KafkaProducer<>(p);
    }

    String bootstrap() {
        return broker.bootstrapServers();
    }

    void send(List<ProducerRecord<byte[], byte[]>> records) {
        for (ProducerRecord<byte[], byte[]> r : records) {
            producer.send(r);
        }
        producer.flush();
    }

    void send(ProducerRecord<byte[], byte[]> r) {
        send(List.of(r));
    }

    void control(SnapshotControl c) {
        send(new ProducerRecord<>(Topics.CONTROL, Workload.key(c.getScope()), Codecs.SNAPSHOT_CONTROL.encode(c)));
    }

    /** Every committed record of a topic, in offset order (one-partition topics). */
    List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        return readAll(topic, true);
    }

    /**
     * Every record of a topic, in offset order; {@code committedOnly} false: aborted and open transactions' too. Its end
     * (as of the start) not reached within 20 s is an AssertionError naming the topic, the position and the end.
     */
    List<ConsumerRecord<byte[], byte[]>> readAll(String topic, boolean committedOnly) {
        Properties p = new Properties();
        p.putAll(client);
        p.put("bootstrap.servers", broker.bootstrapServers());
        p.put("group.id", "reader-" + UUID.randomUUID());
        p.put("isolation.level", committedOnly ? "read_committed" : "read_uncommitted");
        p.put("enable.auto.commit", "false");
        p.put("max.partition.fetch.bytes", Integer.toString(8 << 20));
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> parts = c.partitionsFor(topic).stream()
                .map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts);
            long deadline = System.currentTimeMillis() + 20_000;
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                if (System.currentTimeMillis() >= deadline) { // not a partial read passed off as the whole topic
                    Map<TopicPartition, Long> at = new LinkedHashMap<>();
                    parts.forEach(tp -> at.put(tp, c.position(tp)));
                    throw new AssertionError("reading " + topic + " did not reach its end within 20 s: position " + at
                        + ", end " + end + " (" + out.size() + " records read)");
                }
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    /** The bytes the broker stores for {@code topic}'s partitions (its log segments, after any compression). */
    long storedBytes(String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            long total = 0;
            for (var dir : admin.describeLogDirs(List.of(0)).allDescriptions().get().get(0).values()) {
                for (var e : dir.replicaInfos().entrySet()) {
                    if (e.getKey().topic().equals(topic)) {
                        total += e.getValue().size();
                    }
                }
            }
            return total;
        }
    }

    List<ParameterSnapshot> snapshots() {
        return readAll(Topics.PARAMS).stream().filter(r -> r.value() != null) // a tombstone (snapshots trim) deletes
            .map(r -> Codecs.PARAMETER_SNAPSHOT.decode(r.value())).toList();
    }

    List<DeadLetter> deadLetters() {
        return readAll(Topics.DEAD_LETTER).stream().map(r -> Codecs.DEAD_LETTER.decode(r.value())).toList();
    }

    /** The active version of {@code scope} per {@link ActivationRule} over everything on params and control. */
    OptionalLong activeVersion(String scope) {
        ActivationRule rule = new ActivationRule();
        snapshots().forEach(rule::onSnapshot);
        readAll(Topics.CONTROL).forEach(r -> rule.onControl(Codecs.SNAPSHOT_CONTROL.decode(r.value())));
        rule.readThrough(rule.readMark()); // both topics read to their ends
        return rule.activeVersion(scope);
    }

    /** Waits until some committed snapshot matches; returns it. */
    ParameterSnapshot awaitSnapshot(Predicate<ParameterSnapshot> p, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<ParameterSnapshot> seen = List.of();
        while (System.nanoTime() < deadline) {
            seen = snapshots();
            for (int i = seen.size() - 1; i >= 0; i--) {
                if (p.test(seen.get(i))) {
                    return seen.get(i);
                }
            }
            Thread.sleep(300);
        }
        throw new AssertionError("no snapshot " + what + " within " + timeout + "; committed: "
            + seen.stream().map(s -> s.getVersion() + ":" + s.getStatus() + ":seq" + s.getControlSequence()
                + ":n" + s.getAlphaP().getSamples() + (s.getRejectReasons().isEmpty() ? "" : s.getRejectReasons()))
                .toList());
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        broker.close();
    }
}
