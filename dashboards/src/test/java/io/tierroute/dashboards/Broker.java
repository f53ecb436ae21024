package io.tierroute.dashboards;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One real embedded KRaft broker for every test of this JVM (started on first use, stopped at exit),
 * topics reset to empty before each test, publishing and reading helpers.
 */
public final class Broker {

    private static EmbeddedKafka kafka;

    private Broker() {}

    public static synchronized EmbeddedKafka get() {
        if (kafka == null) {
            kafka = EmbeddedKafka.start();
            EmbeddedKafka k = kafka;
            Runtime.getRuntime().addShutdownHook(new Thread(k::close, "embedded-kafka-stop"));
        }
        return kafka;
    }

    public static String bootstrap() {
        return get().bootstrapServers();
    }

    /** Deletes and re-creates every tierroute topic. */
    public static void resetTopics() throws Exception {
        EmbeddedKafka k = get();
        k.deleteTopics(Topics.ALL);
        for (Topics.Spec s : Topics.specs()) {
            k.createTopic(s.name(), s.partitions(), s.configs());
        }
    }

    public static KafkaProducer<byte[], byte[]> producer() {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap());
        p.put("linger.ms", "0");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    public static void publish(KafkaProducer<byte[], byte[]> p, ParameterSnapshot s) throws Exception {
        p.send(new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey(s.getScope(), s.getVersion())
                .getBytes(StandardCharsets.UTF_8), Codecs.PARAMETER_SNAPSHOT.encode(s))).get(30, TimeUnit.SECONDS);
    }

    /**
     * Every committed control record on the topic now, in order: what every reader applies. Read to the partition's
     * end as it is now, uncommitted records included: a producer's commit returns before the broker has written its
     * commit marker, and a read_committed consumer's end (the last stable offset) can lag behind the record a moment.
     * Fails when the end is not reached in 20 s (a transaction left open).
     */
    public static List<SnapshotControl> controlRecords() {
        return controlRecords(bootstrap(), new Properties());
    }

    /** {@link #controlRecords()} of another broker, read with {@code client}'s settings (a secured broker's user). */
    public static List<SnapshotControl> controlRecords(String bootstrap, Properties client) {
        return committedControl(bootstrap, client).stream().map(r -> Codecs.SNAPSHOT_CONTROL.decode(r.value())).toList();
    }

    /** The keys of {@link #controlRecords()}, as strings. */
    public static List<String> controlKeys() {
        return committedControl(bootstrap(), new Properties()).stream()
                .map(r -> new String(r.key(), StandardCharsets.UTF_8)).toList();
    }

    private static List<ConsumerRecord<byte[], byte[]>> committedControl(String bootstrap, Properties client) {
        return committed(Topics.CONTROL, bootstrap, client);
    }

    /** The keys of the committed tombstones on the params topic, in order. */
    public static List<String> paramsTombstoneKeys() {
        return committed(Topics.PARAMS, bootstrap(), new Properties()).stream().filter(r -> r.value() == null)
                .map(r -> new String(r.key(), StandardCharsets.UTF_8)).toList();
    }

    /** The committed records of {@code topic}'s partition 0, read to the end it has now. */
    private static List<ConsumerRecord<byte[], byte[]>> committed(String topic, String bootstrap, Properties client) {
        Properties p = new Properties();
        p.putAll(client);
        p.put("bootstrap.servers", bootstrap);
        TopicPartition tp = new TopicPartition(topic, 0);
        long end;
        try (KafkaConsumer<byte[], byte[]> uncommitted = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            end = uncommitted.endOffsets(List.of(tp)).get(tp);
        }
        p.put("isolation.level", "read_committed");
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (c.position(tp) < end) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("did not read " + topic + " to offset " + end + " within 20 s "
                            + "(at " + c.position(tp) + ", read " + out.size() + " records): a transaction left open?");
                }
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            return out;
        }
    }

    /** Polls {@code condition} every 20 ms; fails with {@code what} after {@code timeout}. */
    public static void await(Duration timeout, BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for: " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }
}
