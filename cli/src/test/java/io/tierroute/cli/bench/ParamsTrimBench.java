package io.tierroute.cli.bench;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.WorkerTierRho;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.kafka.ParameterLoader;
import io.tierroute.selector.kafka.SnapshotConverter;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.WorkerRegistry;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * What {@code snapshots trim} buys a selector: its start-up on a params topic holding a day of versions at the job's
 * 1 s cadence (the baseline), the trim's own run time, and the start-up once the broker has compacted the tombstones
 * away — all in one run on one embedded broker (its log cleaner made eager: a 1 MiB segment, tombstones dropped at
 * once). Versions as the job publishes them: every 50th rejected, a forest carried every 600 versions (a 10-minute
 * forest interval) and named by the others, ρ for every worker.
 *
 * <pre>bench/run-params-trim.sh [versions=86400] [keep=10000] [workers=16] [startups=3]</pre>
 */
public final class ParamsTrimBench {

    public static void main(String[] args) throws Exception {
        int versions = args.length > 0 ? Integer.parseInt(args[0]) : 86_400;
        int keep = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int workers = args.length > 2 ? Integer.parseInt(args[2]) : 16;
        int startups = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        List<String> names = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            names.add("w" + w);
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.start(Map.of("log.cleaner.backoff.ms", "200"))) {
            for (Topics.Spec s : Topics.specs()) {
                Map<String, String> configs = new HashMap<>(s.configs());
                if (s.name().equals(Topics.PARAMS)) {
                    configs.put("segment.bytes", Integer.toString(1 << 20));
                    configs.put("delete.retention.ms", "0");
                    configs.put("min.cleanable.dirty.ratio", "0"); // clean again for the tombstones themselves
                    configs.put("segment.ms", "1000"); // the next append rolls the tombstones out of the active segment
                }
                kafka.createTopic(s.name(), s.partitions(), configs);
            }
            long bytes = publish(kafka.bootstrapServers(), versions, names);
            System.out.printf("# params topic: %,d versions of scope default, %.1f MiB (%.2f KiB per snapshot, %d workers' rho)%n",
                    versions, bytes / 1048576.0, bytes / 1024.0 / versions, workers);

            KafkaSettings settings = KafkaSettings.defaults(kafka.bootstrapServers());
            long before = medianStartup(settings, names, versions, startups, "untrimmed");

            long t0 = System.nanoTime();
            PrintWriter out = new PrintWriter(System.out, true);
            int exit = io.tierroute.cli.TierrouteCommand.execute(new String[] {"snapshots", "trim", "--bootstrap",
                    kafka.bootstrapServers(), "--keep", Integer.toString(keep), "--timeout", "600"}, out, out);
            long trimMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            if (exit != 0) {
                throw new IllegalStateException("trim exited " + exit);
            }
            System.out.printf("trim: %,d ms (read the whole history, plan, commit the tombstones)%n", trimMs);

            long t1 = System.nanoTime();
            long left = awaitCompaction(kafka.bootstrapServers(), keep);
            System.out.printf("compaction: %,d records left on the topic after %,d ms%n", left,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1));
            long after = medianStartup(settings, names, versions, startups, "trimmed");
            System.out.printf("selector start-up: untrimmed %,d ms, trimmed %,d ms: %.1fx faster%n", before, after,
                    (double) before / Math.max(1, after));
        }
    }

    private static long publish(String bootstrap, int versions, List<String> names) throws Exception {
        Properties pp = new Properties();
        pp.put("bootstrap.servers", bootstrap);
        pp.put("linger.ms", "20");
        pp.put("compression.type", "gzip"); // as the job's sink
        long bytes = 0;
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer())) {
            long carrier = 0;
            for (int v = 1; v <= versions; v++) {
                if (v % 600 == 1) {
                    carrier = v;
                }
                byte[] value = Codecs.PARAMETER_SNAPSHOT.encode(snapshot(v, names, carrier));
                bytes += value.length;
                p.send(new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey("default", v).getBytes(StandardCharsets.UTF_8),
                        value));
            }
            p.flush();
        }
        return bytes;
    }

    private static long medianStartup(KafkaSettings settings, List<String> names, int expected, int runs, String what)
            throws InterruptedException {
        long[] ms = new long[runs];
        for (int i = 0; i < runs; i++) {
            ParameterStore store = new ParameterStore(ParameterSet.defaults(names.size()));
            long t0 = System.nanoTime();
            try (ParameterLoader l = new ParameterLoader(settings, store,
                    new SnapshotConverter(new WorkerRegistry(names), CostParameters.DEFAULTS, 0.5)).start()) {
                if (!l.awaitReady(Duration.ofMinutes(10))) {
                    throw new IllegalStateException("loader not ready");
                }
                ms[i] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                long active = store.current().version();
                if (active != expected - 1) { // the newest, `expected`, is a rejected one (every 50th)
                    throw new IllegalStateException("landed on " + active);
                }
                System.out.printf("start-up (%s) %d: %,d ms to ready, %,d params records read, version %d%n", what,
                        i + 1, ms[i], l.paramsRecordsRead(), active);
            }
        }
        Arrays.sort(ms);
        return ms[runs / 2];
    }

    /**
     * Waits until the log cleaner has removed the deleted versions and their tombstones (the window, the carrier its
     * oldest versions name and a few records of the active segment stay); the records left. The cleaner never touches
     * the active segment, so every 2 s one more tombstone of an already deleted version is appended: it rolls the
     * segment (segment.ms 1 s) and is itself compacted away.
     */
    private static long awaitCompaction(String bootstrap, int keep) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        long left = Long.MAX_VALUE;
        Properties pp = new Properties();
        pp.put("bootstrap.servers", bootstrap);
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer())) {
            while (System.nanoTime() < deadline) {
                Thread.sleep(2_000);
                p.send(new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey("default", 1).getBytes(StandardCharsets.UTF_8),
                        null));
                p.flush();
                left = countRecords(bootstrap);
                if (left < keep + 100) {
                    return left;
                }
            }
        }
        throw new IllegalStateException("the log cleaner left " + left + " records within 10 minutes");
    }

    private static long countRecords(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("max.partition.fetch.bytes", Integer.toString(16 << 20));
        TopicPartition tp = new TopicPartition(Topics.PARAMS, 0);
        long n = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            while (c.position(tp) < end) {
                n += c.poll(Duration.ofMillis(500)).count();
            }
        }
        return n;
    }

    private static FittedValue fv(double v) {
        return FittedValue.newBuilder().setValue(v).setSamples(10_000).setQuality(0.9).setQualityKind(QualityKind.R2)
                .setStdError(0.01).setWindowStartMs(0).setWindowEndMs(1).build();
    }

    private static QuantileForestModel forest(long rows) {
        return QuantileForestModel.newBuilder().setFeatureNames(List.of("isl")).setFeatureLevels(Map.of())
                .setTargetName("outputTokens").setTrainingRows(rows).setMaxSamplesPerLeaf(1)
                .setTreeRoots(List.of(0)).setNodeSplitFeature(List.of(-1)).setNodeThreshold(List.of(0.0))
                .setNodeLeft(List.of(-1)).setNodeRight(List.of(-1)).setNodeLeafId(List.of(0))
                .setLeafRows(List.of(1)).setLeafSampleOffsets(List.of(0, 1)).setLeafSamples(List.of(100f)).build();
    }

    private static ParameterSnapshot snapshot(long v, List<String> workers, long carrier) {
        List<WorkerTierRho> rho = new ArrayList<>();
        for (String w : workers) {
            rho.add(new WorkerTierRho(w, Tier.CPU, fv((v % 10) / 20.0), null));
        }
        return ParameterSnapshot.newBuilder().setScope("default").setVersion(v).setParentVersion(v > 1 ? v - 1 : null)
                .setProducer("bench").setCreatedAtMs(1_700_000_000_000L + v * 1000)
                .setStatus(v % 50 == 0 ? SnapshotStatus.REJECTED : SnapshotStatus.ACCEPTED)
                .setRejectReasons(v % 50 == 0 ? List.of("alphaP jumped") : List.of()).setAlphaP(fv(1 + v * 1e-6))
                .setAlphaP2(fv(1e-6)).setAlphaD(fv(50)).setAlphaD2(fv(0.001)).setAlphaT(fv(1)).setAlphaHo(fv(100))
                .setQSlack(fv(4)).setAlphaWf(fv(5000)).setLambda(fv(1 / 120.0)).setAlphaWf2(fv(0))
                .setBandwidths(List.of(new TierBandwidth(Tier.CPU, fv(64e9)))).setRho(rho)
                .setQuantileModel(v == carrier ? forest(v) : null).setQuantileModelVersion(carrier)
                .setControlSequence(0).build();
    }

    private ParamsTrimBench() {}
}
