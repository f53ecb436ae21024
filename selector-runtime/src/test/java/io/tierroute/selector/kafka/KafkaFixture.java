package io.tierroute.selector.kafka;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.WorkerTierRho;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.WorkerRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One real embedded KRaft broker for every Kafka test of this JVM (started on first use, stopped at
 * exit), topics reset to empty before each test, and builders of the records the tests publish.
 */
final class KafkaFixture {

    private static EmbeddedKafka kafka;

    private KafkaFixture() {}

    static synchronized EmbeddedKafka broker() {
        if (kafka == null) {
            kafka = EmbeddedKafka.start();
            EmbeddedKafka k = kafka;
            Runtime.getRuntime().addShutdownHook(new Thread(k::close, "embedded-kafka-stop"));
        }
        return kafka;
    }

    /** Deletes and re-creates every tierroute topic, so each test starts from empty topics. */
    static void resetTopics() throws Exception {
        EmbeddedKafka k = broker();
        k.deleteTopics(Topics.ALL);
        for (Topics.Spec s : Topics.specs()) {
            k.createTopic(s.name(), s.partitions(), s.configs());
        }
    }

    static KafkaSettings settings() {
        return KafkaSettings.defaults(broker().bootstrapServers());
    }

    static KafkaProducer<byte[], byte[]> producer() {
        Properties p = new Properties();
        p.put("bootstrap.servers", broker().bootstrapServers());
        p.put("linger.ms", "5");
        p.put("max.request.size", Integer.toString(8 * 1024 * 1024));
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    static void send(KafkaProducer<byte[], byte[]> p, String topic, String key, byte[] value) {
        try {
            p.send(new ProducerRecord<>(topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8), value))
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("send to " + topic + " failed", e);
        }
    }

    /** Sends to one partition of {@code topic}, whatever the key would hash to. */
    static void sendTo(KafkaProducer<byte[], byte[]> p, String topic, int partition, String key, byte[] value) {
        try {
            p.send(new ProducerRecord<>(topic, partition, key.getBytes(StandardCharsets.UTF_8), value))
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("send to " + topic + "-" + partition + " failed", e);
        }
    }

    /** Grows {@code topic} to {@code partitions} partitions, as {@code kafka-topics --alter --partitions} does. */
    static void growTopic(String topic, int partitions) throws Exception {
        try (Admin admin = broker().admin()) {
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(partitions))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Settings whose clients refresh their metadata every half second, so a grown topic shows at once. */
    static KafkaSettings quickMetadataSettings() {
        return settings().withProperties(Map.of("metadata.max.age.ms", "500"));
    }

    static void publish(KafkaProducer<byte[], byte[]> p, ParameterSnapshot s) {
        send(p, Topics.PARAMS, Topics.paramsKey(s.getScope(), s.getVersion()), Codecs.PARAMETER_SNAPSHOT.encode(s));
    }

    static void control(KafkaProducer<byte[], byte[]> p, String scope, ControlAction action, Long version, long seq) {
        SnapshotControl c = SnapshotControl.newBuilder().setScope(scope).setAction(action).setVersion(version)
                .setReason("test").setActor("test").setTimestampMs(System.currentTimeMillis()).setSequence(seq).build();
        send(p, Topics.CONTROL, scope, Codecs.SNAPSHOT_CONTROL.encode(c));
    }

    static FittedValue fv(double v) {
        return FittedValue.newBuilder().setValue(v).setSamples(1000).setQuality(0.9).setQualityKind(QualityKind.R2)
                .setStdError(null).setWindowStartMs(0).setWindowEndMs(1).build();
    }

    /**
     * An accepted snapshot of {@code scope} whose alphaP is {@code version + 0.5} (so a test can tell
     * which version a parameter set came from by its value).
     */
    static ParameterSnapshot.Builder snapshot(String scope, long version) {
        return ParameterSnapshot.newBuilder().setScope(scope).setVersion(version)
                .setParentVersion(version > 1 ? version - 1 : null).setProducer("test")
                .setCreatedAtMs(System.currentTimeMillis()).setStatus(SnapshotStatus.ACCEPTED).setRejectReasons(List.of())
                .setAlphaP(fv(version + 0.5)).setAlphaP2(fv(0.0)).setAlphaD(fv(40)).setAlphaD2(fv(0.002))
                .setAlphaT(fv(1.1)).setAlphaHo(fv(90)).setQSlack(fv(3)).setAlphaWf(fv(4000)).setLambda(fv(0.01))
                .setAlphaWf2(fv(10)).setBandwidths(List.of()).setRho(List.of()).setQuantileModel(null)
                .setControlSequence(0);
    }

    /** A ρ measured up to now (so that it does not age out under the loader's default rhoMaxAge). */
    static WorkerTierRho rho(String worker, io.tierroute.schemas.avro.Tier tier, double v) {
        return rho(worker, tier, v, System.currentTimeMillis());
    }

    /** A ρ whose fitting window ended at {@code asOfMs}. */
    static WorkerTierRho rho(String worker, io.tierroute.schemas.avro.Tier tier, double v, long asOfMs) {
        // built field by field: a deep copy (newBuilder(other)) of a record with an enum needs AvroTrust installed
        FittedValue measured = FittedValue.newBuilder().setValue(v).setSamples(1000).setQuality(0.9)
                .setQualityKind(QualityKind.R2).setStdError(null).setWindowStartMs(asOfMs - 10_000).setWindowEndMs(asOfMs)
                .build();
        return new WorkerTierRho(worker, tier, measured, null);
    }

    static TierBandwidth bandwidth(io.tierroute.schemas.avro.Tier tier, double v) {
        return new TierBandwidth(tier, fv(v));
    }

    private static final io.tierroute.schemas.RecordCodec<QuantileForestModel> FOREST_CODEC =
            io.tierroute.schemas.RecordCodec.of(QuantileForestModel.class);

    /** The fitter-exported forest fixture (test resource). */
    static QuantileForestModel forest() {
        try (InputStream in = KafkaFixture.class.getResourceAsStream("/forest/qrf-fixture.bin")) {
            return FOREST_CODEC.decode(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The workers of the loader tests: w0, w1, w2. */
    static final List<String> LOADER_WORKERS = List.of("w0", "w1", "w2");

    /** A store holding the default set for {@link #LOADER_WORKERS}. */
    static ParameterStore loaderStore() {
        return new ParameterStore(ParameterSet.defaults(LOADER_WORKERS.size()));
    }

    /** The converter the fixture's loaders use: {@link #LOADER_WORKERS} workers, default parameters. */
    static SnapshotConverter loaderConverter() {
        return new SnapshotConverter(new WorkerRegistry(LOADER_WORKERS), CostParameters.DEFAULTS, 0.5);
    }

    /**
     * Starts a loader for {@link #LOADER_WORKERS} (output quantile 0.5) indexing {@code indexedVersions} offsets, adds it
     * to {@code started} (the test closes those) and waits until it is ready.
     */
    static ParameterLoader startLoader(KafkaSettings settings, ParameterStore store, int indexedVersions,
            List<ParameterLoader> started, Duration wait) throws InterruptedException {
        ParameterLoader l = new ParameterLoader(settings, store, loaderConverter(), indexedVersions).start();
        started.add(l);
        org.assertj.core.api.Assertions.assertThat(l.awaitReady(wait)).as("loader ready").isTrue();
        return l;
    }

    /** Polls {@code condition} every 10 ms until it holds; fails with {@code what} after {@code timeout}. */
    static void await(Duration timeout, BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for: " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }

    static Map<String, String> none() {
        return Map.of();
    }
}
