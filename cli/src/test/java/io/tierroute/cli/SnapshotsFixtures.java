package io.tierroute.cli;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.WorkerTierRho;
import io.tierroute.schemas.snapshot.ActivationRule;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/** Snapshots the CLI tests publish (with the schemas' codecs) and readers of what the CLI wrote. */
final class SnapshotsFixtures {
    static {
        // Building a ParameterSnapshot fills the v4 fields' FittedValue defaults through Avro's class check
        // (STACK.md, Avro trap); the command itself decodes through Codecs, which trusts the package first.
        AvroTrust.install();
    }


    /** 2025-10-09 08:40:00 UTC; version v is created v minutes later. */
    static final long T0 = 1_759_999_200_000L;

    private SnapshotsFixtures() {}

    /**
     * Runs {@code tierroute ARGS --bootstrap BOOTSTRAP EXTRA...} with fresh output into {@code out} and {@code err};
     * returns its exit code.
     */
    static int runCli(StringWriter out, StringWriter err, String bootstrap, String[] args, String... extra) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--bootstrap");
        all.add(bootstrap);
        all.addAll(List.of(extra));
        return TierrouteCommand.execute(all.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
    }

    static void createTopics(EmbeddedKafka kafka) {
        for (Topics.Spec s : Topics.specs()) {
            if (s.name().equals(Topics.PARAMS) || s.name().equals(Topics.CONTROL)) {
                kafka.createTopic(s.name(), s.partitions(), s.configs());
            }
        }
    }

    static FittedValue fv(double v, long samples) {
        return FittedValue.newBuilder().setValue(v).setSamples(samples).setQuality(0.9).setQualityKind(QualityKind.R2)
                .setStdError(v / 100).setWindowStartMs(T0 - 600_000).setWindowEndMs(T0).build();
    }

    /** Accepted, alphaP = version + 0.5, alphaD = 40 + version, ρ for three workers on CPU and NVME. */
    static ParameterSnapshot.Builder accepted(String scope, long version) {
        List<WorkerTierRho> rho = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            rho.add(new WorkerTierRho("w" + i, Tier.CPU, fv(0.1 + 0.35 * i, 500), null));
            // a utilisation in [0, 1) at every version: a selector cannot use one above 1 (SnapshotUsability)
            rho.add(new WorkerTierRho("w" + i, Tier.NVME, fv(0.05 * (version % 20), 500), i == 0 ? 14e9 : null));
        }
        return ParameterSnapshot.newBuilder().setScope(scope).setVersion(version)
                .setParentVersion(version > 1 ? version - 1 : null).setProducer("parameter-fitter")
                .setCreatedAtMs(T0 + version * 60_000).setStatus(SnapshotStatus.ACCEPTED).setRejectReasons(List.of())
                .setAlphaP(fv(version + 0.5, 1000 * version)).setAlphaP2(fv(0.0, 1000)).setAlphaD(fv(40 + version, 800))
                .setAlphaD2(fv(0.002, 800)).setAlphaT(fv(1.1, 300)).setAlphaHo(fv(90, 200)).setQSlack(fv(3, 200))
                .setAlphaWf(fv(4000, 100)).setLambda(fv(0.01, 100)).setAlphaWf2(fv(10, 100))
                .setBandwidths(List.of(new TierBandwidth(Tier.CPU, fv(6.4e10, 50))))
                .setRho(rho).setQuantileModel(null).setControlSequence(0);
    }

    /** A one-leaf forest told apart by its training rows, as a record carries it. */
    static io.tierroute.schemas.avro.QuantileForestModel forest(int trainingRows) {
        return io.tierroute.schemas.avro.QuantileForestModel.newBuilder().setFeatureNames(List.of("isl"))
                .setFeatureLevels(java.util.Map.of()).setTargetName("output_tokens").setTrainingRows(trainingRows)
                .setMaxSamplesPerLeaf(1).setTreeRoots(List.of(0)).setNodeSplitFeature(List.of(-1))
                .setNodeThreshold(List.of(0.0)).setNodeLeft(List.of(-1)).setNodeRight(List.of(-1))
                .setNodeLeafId(List.of(0)).setLeafRows(List.of(1)).setLeafSampleOffsets(List.of(0, 1))
                .setLeafSamples(List.of(100f)).build();
    }

    /** Versions 1..3 accepted (2 with a parameter the gate held), 4 rejected (alphaP jumped): the active version is 3. */
    static void publishHistory(KafkaProducer<byte[], byte[]> p, String scope) throws Exception {
        for (long v = 1; v <= 3; v++) {
            publish(p, accepted(scope, v).setRejectReasons(v == 2 ? List.of(HELD) : List.of()).build());
        }
        publish(p, accepted(scope, 4).setStatus(SnapshotStatus.REJECTED).setAlphaP(fv(40.0, 30))
                .setRejectReasons(List.of("alphaP jumped ×12 against version 3")).build());
    }

    /** A long "held" note of the gate, as accepted snapshots carry them (longer than {@code list}'s REASON cell). */
    static final String HELD = "held: alphaHo kept at the active value 90 µs; fitted 120 µs on 200 samples with a standard "
            + "error of 80 µs, within two standard errors of the value in force";

    static void publish(KafkaProducer<byte[], byte[]> p, ParameterSnapshot s) throws Exception {
        p.send(new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey(s.getScope(), s.getVersion())
                .getBytes(StandardCharsets.UTF_8), Codecs.PARAMETER_SNAPSHOT.encode(s))).get(30, TimeUnit.SECONDS);
    }

    static KafkaProducer<byte[], byte[]> producer(String bootstrap, Properties creds) {
        Properties p = new Properties();
        p.putAll(creds);
        p.put("bootstrap.servers", bootstrap);
        p.put("linger.ms", "0");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static <T> void readAll(String bootstrap, Properties creds, String topic,
                                    java.util.function.Consumer<ConsumerRecord<byte[], byte[]>> each) {
        Properties p = new Properties();
        p.putAll(creds);
        p.put("bootstrap.servers", bootstrap);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (c.position(tp) < end && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(each);
            }
        }
    }

    /** Every control record of {@code scope} on the topic now, in order. */
    static List<SnapshotControl> controlRecords(String bootstrap, Properties creds, String scope) {
        List<SnapshotControl> out = new ArrayList<>();
        readAll(bootstrap, creds, Topics.CONTROL, r -> {
            SnapshotControl c = Codecs.SNAPSHOT_CONTROL.decode(r.value());
            if (c.getScope().equals(scope)) {
                out.add(c);
            }
        });
        return out;
    }

    /** The active version of {@code scope} by {@link ActivationRule} over both topics, -1 when none. */
    static long activeVersion(String bootstrap, Properties creds, String scope) {
        ActivationRule rule = new ActivationRule();
        readAll(bootstrap, creds, Topics.PARAMS, r -> rule.onSnapshot(Codecs.PARAMETER_SNAPSHOT.decode(r.value())));
        readAll(bootstrap, creds, Topics.CONTROL, r -> rule.onControl(Codecs.SNAPSHOT_CONTROL.decode(r.value())));
        rule.readThrough(rule.readMark()); // both topics read to their ends
        return rule.activeVersion(scope).orElse(-1);
    }
}
