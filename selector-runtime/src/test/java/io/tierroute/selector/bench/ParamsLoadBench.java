package io.tierroute.selector.bench;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordCodec;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Selector start-up time on a params topic holding many snapshot versions (each with the fitter's
 * quantile-forest fixture and per-worker ρ), and the swap time of a new snapshot, on a real embedded
 * broker. Not a JMH benchmark: start-up is a one-shot measurement, repeated.
 *
 * <pre>bench/run-params-load.sh [versions] [startups] [swaps] [workers]</pre>
 */
public final class ParamsLoadBench {

    public static void main(String[] args) throws Exception {
        int versions = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int startups = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int swaps = args.length > 2 ? Integer.parseInt(args[2]) : 50;
        int workers = args.length > 3 ? Integer.parseInt(args[3]) : 64;
        List<String> names = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            names.add("w" + w);
        }
        QuantileForestModel forest;
        try (InputStream in = ParamsLoadBench.class.getResourceAsStream("/forest/qrf-fixture.bin")) {
            forest = RecordCodec.of(QuantileForestModel.class).decode(in.readAllBytes());
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            for (Topics.Spec s : Topics.specs()) {
                kafka.createTopic(s.name(), s.partitions(), s.configs());
            }
            Properties pp = new Properties();
            pp.put("bootstrap.servers", kafka.bootstrapServers());
            pp.put("linger.ms", "20");
            pp.put("max.request.size", Integer.toString(8 << 20));
            long bytes = 0;
            try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer())) {
                for (int v = 1; v <= versions; v++) {
                    byte[] value = Codecs.PARAMETER_SNAPSHOT.encode(snapshot(v, names, forest));
                    bytes += value.length;
                    p.send(new ProducerRecord<>(Topics.PARAMS, key(v), value));
                }
                p.flush();
            }
            System.out.printf("# params topic: %d versions, %.1f MiB (%.1f KiB per snapshot: forest %d trees, %d workers' rho)%n",
                    versions, bytes / 1048576.0, bytes / 1024.0 / versions, forest.getTreeRoots().size(), workers);

            KafkaSettings settings = KafkaSettings.defaults(kafka.bootstrapServers());
            long[] startupMs = new long[startups];
            for (int i = 0; i < startups; i++) {
                ParameterStore store = new ParameterStore(ParameterSet.defaults(workers));
                long t0 = System.nanoTime();
                try (ParameterLoader l = new ParameterLoader(settings, store,
                        new SnapshotConverter(new WorkerRegistry(names), CostParameters.DEFAULTS, 0.5)).start()) {
                    if (!l.awaitReady(Duration.ofMinutes(5))) {
                        throw new IllegalStateException("loader not ready");
                    }
                    startupMs[i] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                    if (store.current().version() != versions) {
                        throw new IllegalStateException("landed on " + store.current().version());
                    }
                    System.out.printf("start-up %d: %d ms to ready (loader's own catch-up %d ms), version %d, swaps %d%n",
                            i + 1, startupMs[i], l.status().startupMillis(), store.current().version(), l.swaps());
                }
            }
            Arrays.sort(startupMs);
            System.out.printf("start-up over %d runs: median %d ms, min %d ms, max %d ms%n", startups,
                    startupMs[startups / 2], startupMs[0], startupMs[startups - 1]);

            // Swaps: publish one new version at a time; measure the loader's decode + convert + swap
            // and the time from the broker's acknowledgement to the set being live in the store.
            ParameterStore store = new ParameterStore(ParameterSet.defaults(workers));
            AtomicLong liveAt = new AtomicLong();
            store.onActivate(ps -> liveAt.set(System.nanoTime()));
            long[] swapUs = new long[swaps];
            long[] ackToLiveUs = new long[swaps];
            try (ParameterLoader l = new ParameterLoader(settings, store,
                    new SnapshotConverter(new WorkerRegistry(names), CostParameters.DEFAULTS, 0.5)).start();
                 KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer())) {
                l.awaitReady(Duration.ofMinutes(5));
                for (int i = 0; i < swaps; i++) {
                    int v = versions + 1 + i;
                    byte[] value = Codecs.PARAMETER_SNAPSHOT.encode(snapshot(v, names, forest));
                    p.send(new ProducerRecord<>(Topics.PARAMS, key(v), value)).get();
                    long acked = System.nanoTime();
                    long deadline = acked + TimeUnit.SECONDS.toNanos(30);
                    while (store.current().version() != v) {
                        if (System.nanoTime() > deadline) {
                            throw new IllegalStateException("version " + v + " not live");
                        }
                        Thread.onSpinWait();
                    }
                    swapUs[i] = l.lastSwapNanos() / 1000;
                    ackToLiveUs[i] = Math.max(0, liveAt.get() - acked) / 1000;
                }
            }
            Arrays.sort(swapUs);
            Arrays.sort(ackToLiveUs);
            System.out.printf("swap (decode + convert + atomic swap) over %d new versions: median %d µs, p90 %d µs, max %d µs%n",
                    swaps, swapUs[swaps / 2], swapUs[(int) (swaps * 0.9)], swapUs[swaps - 1]);
            System.out.printf("broker ack -> live in the store: median %.1f ms, p90 %.1f ms, max %.1f ms%n",
                    ackToLiveUs[swaps / 2] / 1e3, ackToLiveUs[(int) (swaps * 0.9)] / 1e3, ackToLiveUs[swaps - 1] / 1e3);
        }
    }

    private static byte[] key(int v) {
        return Topics.paramsKey("default", v).getBytes(StandardCharsets.UTF_8);
    }

    private static FittedValue fv(double v) {
        return FittedValue.newBuilder().setValue(v).setSamples(10_000).setQuality(0.9).setQualityKind(QualityKind.R2)
                .setStdError(0.01).setWindowStartMs(0).setWindowEndMs(1).build();
    }

    static ParameterSnapshot snapshot(long v, List<String> workers, QuantileForestModel forest) {
        List<WorkerTierRho> rho = new ArrayList<>();
        for (String w : workers) {
            rho.add(new WorkerTierRho(w, Tier.CPU, fv((v % 10) / 20.0), null));
        }
        return ParameterSnapshot.newBuilder().setScope("default").setVersion(v).setParentVersion(v > 1 ? v - 1 : null)
                .setProducer("bench").setCreatedAtMs(System.currentTimeMillis()).setStatus(SnapshotStatus.ACCEPTED)
                .setRejectReasons(List.of()).setAlphaP(fv(1 + v * 1e-4)).setAlphaP2(fv(1e-6)).setAlphaD(fv(50))
                .setAlphaD2(fv(0.001)).setAlphaT(fv(1)).setAlphaHo(fv(100)).setQSlack(fv(4)).setAlphaWf(fv(5000))
                .setLambda(fv(1 / 120.0)).setAlphaWf2(fv(0)).setBandwidths(List.of(new TierBandwidth(Tier.CPU, fv(64e9))))
                .setRho(rho).setQuantileModel(forest).setControlSequence(0).build();
    }

    private ParamsLoadBench() {}

    static Map<String, String> none() {
        return Map.of();
    }
}
