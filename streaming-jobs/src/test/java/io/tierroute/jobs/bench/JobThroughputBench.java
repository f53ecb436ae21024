package io.tierroute.jobs.bench;

import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.kafka.ParameterLoader;
import io.tierroute.selector.kafka.SnapshotConverter;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.WorkerRegistry;
import java.util.stream.IntStream;
import io.tierroute.jobs.FittingJob;
import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.KafkaWiring;
import io.tierroute.jobs.Workload;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.WorkerTierRho;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Figures of the fitting job on this machine (embedded KRaft broker + local Flink MiniCluster in one
 * JVM, checkpoints on, exactly-once params sink):
 * <ul>
 *   <li>{@code throughput}: pre-fills the input topics, runs the job and measures the telemetry +
 *       completion records/s it processes, from the source offsets committed with each completed
 *       checkpoint (a checkpoint completes only once every operator has processed everything before
 *       its barrier).</li>
 *   <li>{@code latency}: a live load (telemetry 1 Hz per worker, requests at a steady rate, event
 *       time = send time) against the job at the default cadence; for every record, the time until
 *       the first committed snapshot whose fitted window covers it is readable on
 *       {@code tierroute.params} (read_committed).</li>
 * </ul>
 * Usage: {@code JobThroughputBench throughput [requests] [telemetrySeconds]} or
 * {@code JobThroughputBench latency [seconds] [requestsPerSecond]}.
 */
public final class JobThroughputBench {
    private static final String[] SCOPES = {"s0", "s1", "s2", "s3"};
    /**
     * Share of the input committed before the measured window opens ({@code -Dbench.measureFrom}, default
     * 0.05 as in the first three rounds): a larger one leaves the fresh JVM's JIT compilation out.
     */
    private static final double MEASURE_FROM = Double.parseDouble(System.getProperty("bench.measureFrom", "0.05"));

    private JobThroughputBench() {}

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "throughput";
        try (BenchBroker kafka = BenchBroker.start()) {
            for (Topics.Spec s : Topics.specs()) {
                kafka.createTopic(s.name(), s.partitions(), s.configs());
            }
            if (mode.equals("latency")) {
                latency(kafka, args.length > 1 ? Integer.parseInt(args[1]) : 60,
                    args.length > 2 ? Integer.parseInt(args[2]) : 400);
            } else {
                throughput(kafka, args.length > 1 ? Integer.parseInt(args[1]) : 400_000,
                    args.length > 2 ? Integer.parseInt(args[2]) : 6_000);
            }
        }
        System.exit(0);
    }

    private static KafkaProducer<byte[], byte[]> producer(BenchBroker kafka) {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        p.put("linger.ms", "5");
        p.put("batch.size", "524288");
        p.put("compression.type", "lz4");
        return new KafkaProducer<>(p);
    }

    /** Flink's per-subtask metrics of the running job (busy / back-pressured / idle, alignment, fetchers). */
    private static final TaskMetrics TASK_METRICS = new TaskMetrics();

    private static JobClient startJob(JobSettings s) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
            TASK_METRICS.addTo(KafkaWiring.configuration(s)));
        new FittingJob(KafkaWiring.sources(s), KafkaWiring.paramsSink(s), KafkaWiring.deadLetterSink(s), s).build(env);
        return env.executeAsync(s.jobName());
    }

    private static JobSettings settings(BenchBroker kafka) throws java.io.IOException {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("tierroute-bench-ckpt");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> { // the retained checkpoints: tens of MB per run
            try (var files = java.nio.file.Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (java.io.IOException | RuntimeException e) {
                System.err.println("could not delete " + dir + ": " + e);
            }
        }));
        List<String> args = new ArrayList<>(List.of("--bootstrap-servers", kafka.bootstrapServers(),
            "--checkpoint-dir", dir.toUri().toString(),
            // the pre-filled backlog: read the three input topics in step (see streaming-jobs/README.md). 60 s, not
            // the first rounds' 6 s: the input holds only 400 requests per event-time second, so 6 s of drift was
            // ≈ 50 ms of the job's work and the sources spent most of their time waiting for the alignment
            // (fifth round); 60 s still bounds the join's waiting side to ≈ 24 000 requests
            "--max-watermark-drift", "60s",
            // the pre-filled input runs up to 50 min ahead of the clock (throughput below); the default 1 min would
            // dead-letter its tail and the run would measure another mix
            "--max-future-skew", "1h",
            "--transactional-id-prefix", "bench-" + UUID.randomUUID()));
        // -Dbench.jobArgs=--flag,value,...: further job flags, comma- or space-separated (a later flag overrides)
        String extra = System.getProperty("bench.jobArgs", "").trim();
        if (!extra.isEmpty()) {
            args.addAll(List.of(extra.split("[\\s,]+")));
        }
        System.out.println("job flags: " + String.join(" ", args.subList(2, args.size())));
        return JobSettings.parse(args.toArray(String[]::new));
    }

    /**
     * End offsets of every decisions and completions partition after the pre-fill (telemetry is left out: a
     * telemetry partition holds one to three workers' samples and is read ahead and drained early in the run,
     * before the sources' first watermarks reach the alignment coordinator).
     */
    private static Map<TopicPartition, Long> endOffsets(BenchBroker kafka) throws Exception {
        return endOffsets(kafka, java.util.Set.of(Topics.DECISIONS, Topics.COMPLETIONS));
    }

    /** End offsets of every partition of {@code topics}. */
    private static Map<TopicPartition, Long> endOffsets(BenchBroker kafka, java.util.Set<String> topics) throws Exception {
        try (Admin admin = kafka.admin()) {
            Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> want = new java.util.HashMap<>();
            for (Topics.Spec t : Topics.specs()) {
                if (topics.contains(t.name())) {
                    for (int i = 0; i < t.partitions(); i++) {
                        want.put(new TopicPartition(t.name(), i), org.apache.kafka.clients.admin.OffsetSpec.latest());
                    }
                }
            }
            Map<TopicPartition, Long> out = new java.util.HashMap<>();
            admin.listOffsets(want).all().get().forEach((tp, info) -> out.put(tp, info.offset()));
            return out;
        }
    }

    /** Records on the dead-letter topic (its end offsets). */
    private static long deadLetters(BenchBroker kafka) throws Exception {
        return endOffsets(kafka, java.util.Set.of(Topics.DEAD_LETTER)).values().stream().mapToLong(Long::longValue).sum();
    }

    static void throughput(BenchBroker kafka, int requestsPerScope, int telemetrySeconds) throws Exception {
        // Event time runs 10 ms per request of a scope and 1 s per telemetry sample from the start. The broker refuses
        // records stamped more than log.message.timestamp.after.max.ms (Kafka 4: 1 h) ahead of its clock, so a long
        // input starts far enough back that its last record is 50 min ahead at most (the default inputs keep
        // the earlier rounds' start, 50 min back). Before this, the refused tail of a longer input went unnoticed
        // (sends were not checked) and the benchmark waited for records that were never written.
        long spanMs = Math.max(requestsPerScope * 10L, telemetrySeconds * 1000L);
        long back = Math.max(Duration.ofMinutes(50).toMillis(), spanMs - Duration.ofMinutes(50).toMillis());
        long start = System.currentTimeMillis() - back;
        long telemetry = 0;
        long completions = 0;
        long t0 = System.nanoTime();
        java.util.concurrent.atomic.AtomicLong failedSends = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicReference<Exception> firstFailure = new java.util.concurrent.atomic.AtomicReference<>();
        org.apache.kafka.clients.producer.Callback checked = (meta, e) -> {
            if (e != null) {
                failedSends.incrementAndGet();
                firstFailure.compareAndSet(null, e);
            }
        };
        try (KafkaProducer<byte[], byte[]> p = producer(kafka)) {
            List<Workload> loads = new ArrayList<>();
            for (int i = 0; i < SCOPES.length; i++) {
                loads.add(new Workload(100 + i, SCOPES[i], start, 0.05));
            }
            int chunk = 5_000;
            for (int done = 0; done < requestsPerScope; done += chunk) {
                for (Workload w : loads) {
                    for (ProducerRecord<byte[], byte[]> r : w.requests(Math.min(chunk, requestsPerScope - done))) {
                        p.send(r, checked);
                        if (r.topic().equals(Topics.COMPLETIONS)) {
                            completions++;
                        }
                    }
                }
            }
            int perChunk = 100;
            for (int done = 0; done < telemetrySeconds; done += perChunk) {
                for (Workload w : loads) {
                    for (ProducerRecord<byte[], byte[]> r : w.telemetry(Math.min(perChunk, telemetrySeconds - done))) {
                        p.send(r, checked);
                        telemetry++;
                    }
                }
            }
            p.flush();
        }
        if (failedSends.get() > 0) {
            throw new IllegalStateException(failedSends.get() + " records of the input were not written", firstFailure.get());
        }
        System.out.printf("pre-filled %d telemetry, %d completions and %d decisions in %.1f s (event time from %.0f min "
            + "ago)%n", telemetry, completions, completions, (System.nanoTime() - t0) / 1e9, back / 60_000.0);
        JobSettings s = settings(kafka);
        long total = telemetry + completions;
        JobClient job = startJob(s);
        long jobStart = System.nanoTime();
        // (seconds since start, telemetry+completions committed, decisions, CPU seconds of this JVM, of the broker's)
        List<double[]> samples = new ArrayList<>();
        List<Map<String, Long>> threadCpu = new ArrayList<>();
        List<Map<String, Long>> threadBytes = new ArrayList<>();
        List<Map<String, Double>> taskMetrics = new ArrayList<>();
        var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        Map<TopicPartition, Long> ends = endOffsets(kafka);
        int drainedIndex = -1; // first sample at which some input partition was fully committed
        try (Admin admin = kafka.admin()) {
            while (true) {
                Map<TopicPartition, OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets(s.groupId()).partitionsToOffsetAndMetadata().get();
                long counted = 0;
                long decisions = 0;
                for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
                    if (e.getValue() == null) {
                        continue;
                    }
                    String topic = e.getKey().topic();
                    if (topic.equals(Topics.TELEMETRY) || topic.equals(Topics.COMPLETIONS)) {
                        counted += e.getValue().offset();
                    } else if (topic.equals(Topics.DECISIONS)) {
                        decisions += e.getValue().offset();
                    }
                }
                for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
                    OffsetAndMetadata c = committed.get(e.getKey());
                    if (drainedIndex < 0 && e.getValue() > 0 && c != null && c.offset() >= e.getValue()) {
                        drainedIndex = samples.size();
                        System.out.printf("  %s drained (%d records) at %.1f s%n", e.getKey(), e.getValue(),
                            (System.nanoTime() - jobStart) / 1e9);
                    }
                }
                double sec = (System.nanoTime() - jobStart) / 1e9;
                samples.add(new double[] {sec, counted, decisions, os.getProcessCpuTime() / 1e9, kafka.processCpuSeconds()});
                threadCpu.add(ThreadCpu.byGroup());
                threadBytes.add(ThreadCpu.allocatedByGroup());
                taskMetrics.add(TASK_METRICS.sample());
                if (samples.size() % 8 == 0) {
                    System.out.printf("  %.1f s: %d of %d telemetry+completions, %d decisions committed%n", sec, counted,
                        total, decisions);
                }
                if (counted >= total || sec > 600) {
                    break;
                }
                Thread.sleep(250);
            }
        }
        job.cancel().get();
        long deadLetters = deadLetters(kafka);
        if (deadLetters > 0) {
            throw new IllegalStateException(deadLetters + " input records were dead-lettered (topic "
                + Topics.DEAD_LETTER + "): the job measured another input than the one written");
        }
        double[] first = null;
        double[] last = null;
        int firstIndex = -1;
        int lastIndex = -1;
        for (int i = 0; i < samples.size(); i++) {
            double[] x = samples.get(i);
            if (first == null && x[1] >= MEASURE_FROM * total) {
                first = x;
                firstIndex = i;
            }
            if (last == null && x[1] >= 0.95 * total) {
                last = x;
                lastIndex = i;
            }
        }
        if (first == null || last == null) {
            System.out.println("not enough progress to measure: " + samples.size() + " samples");
            return;
        }
        System.out.printf("%d scopes, parallelism %d, checkpoint every %s, %s state backend, broker %s%n", SCOPES.length,
            s.parallelism(), s.checkpointInterval(), s.stateBackend(),
            Double.isNaN(first[4]) ? "in this JVM" : "in its own JVM");
        report(String.format("THROUGHPUT (%.0f–95 %% of the input)", MEASURE_FROM * 100), samples, threadCpu, threadBytes,
            taskMetrics, firstIndex, lastIndex);
        // A finite backlog ends partition by partition; once a decisions or completions partition is drained, its split's watermark
        // stops until --idleness marks it idle, and with watermark alignment the other splits wait for it. That
        // tail is a property of the pre-filled input, so the steady window ends before it.
        // The drain shows in the committed offsets only once the stall is over (the last records of a partition
        // are committed with the checkpoint after it), so the window also ends at 85 % of the input: in every run
        // of the fifth round the stall began at 88–94 %.
        int at85 = lastIndex;
        for (int i = firstIndex; i < samples.size(); i++) {
            if (samples.get(i)[1] >= 0.85 * total) {
                at85 = i;
                break;
            }
        }
        int steadyEnd = Math.min(at85, drainedIndex < 0 ? lastIndex : drainedIndex - 1);
        if (steadyEnd > firstIndex) {
            report(String.format("STEADY (%.0f–85 %% of the input, or until a decisions or completions partition "
                + "is drained; ends at %.1f s)", MEASURE_FROM * 100, samples.get(steadyEnd)[0]), samples, threadCpu, threadBytes, taskMetrics,
                firstIndex, steadyEnd);
        }
    }

    /** Rate, CPU per record, cores busy, CPU and allocation by thread, Flink task metrics, between two samples. */
    private static void report(String label, List<double[]> samples, List<Map<String, Long>> threadCpu,
            List<Map<String, Long>> threadBytes, List<Map<String, Double>> taskMetrics, int from, int to) {
        double[] first = samples.get(from);
        double[] last = samples.get(to);
        double secs = last[0] - first[0];
        double records = last[1] - first[1];
        double rate = records / secs;
        double decisionRate = (last[2] - first[2]) / secs;
        System.out.printf("%s telemetry+completions %.0f records/s (decisions alongside: %.0f records/s; "
            + "all three: %.0f records/s), between %.0f and %.0f committed records, %.1f s (%.1f–%.1f s after the job "
            + "started)%n", label, rate, decisionRate, rate + decisionRate, first[1], last[1], secs, first[0], last[0]);
        // The machine is shared: wall-clock rates move with other people's load. CPU seconds this JVM
        // (job, + broker unless it runs in its own JVM; the load generator is idle by then) spent per record are steadier.
        double cpu = last[3] - first[3];
        System.out.printf("  CPU %.0f records per CPU-second of this JVM (%s: %.1f CPU-s for %.0f records, %.2f cores "
            + "busy on average; %.1f µs CPU per telemetry+completion record)%n", records / cpu,
            Double.isNaN(first[4]) ? "job + broker" : "job", cpu, records, cpu / secs, cpu * 1e6 / records);
        if (!Double.isNaN(first[4])) {
            System.out.printf("  CPU broker process %.1f CPU-s, %.1f µs per telemetry+completion record%n",
                last[4] - first[4], (last[4] - first[4]) * 1e6 / records);
        }
        System.out.println("  CPU BY THREAD µs per telemetry+completion record: "
            + ThreadCpu.perRecord(threadCpu.get(from), threadCpu.get(to), cpu, records));
        System.out.println("  ALLOCATED BY THREAD bytes per telemetry+completion record (live threads): "
            + ThreadCpu.bytesPerRecord(threadBytes.get(from), threadBytes.get(to), records));
        System.out.print("  FLINK TASKS per subtask (ms/s from the accumulated counters, gauges averaged):\n"
            + TaskMetrics.report(taskMetrics, from, to, secs));
    }

    static void latency(BenchBroker kafka, int seconds, int requestsPerSecond) throws Exception {
        JobSettings s = settings(kafka);
        JobClient job = startJob(s);
        AtomicBoolean done = new AtomicBoolean();
        // (event time ms, kind 0 = completion / 1 = telemetry, worker index) of every record sent
        ConcurrentLinkedQueue<long[]> sent = new ConcurrentLinkedQueue<>();
        List<long[]> arrivals = new ArrayList<>(); // (arrival ms, alphaP window end, per-worker rho window end...)
        Thread reader = new Thread(() -> readSnapshots(kafka, done, arrivals), "params-reader");
        reader.start();
        // A real selector's parameter loader on the same topics: when each version went live in it.
        List<long[]> live = new ArrayList<>(); // (live ms, version)
        ParameterStore store = new ParameterStore(ParameterSet.defaults(Workload.WORKERS));
        store.onActivate(set -> {
            synchronized (live) {
                live.add(new long[] {System.currentTimeMillis(), set.version()});
            }
        });
        ParameterLoader selector = new ParameterLoader(KafkaSettings.defaults(kafka.bootstrapServers())
                .withKvEvents(new KafkaSettings.KvEvents(false, "latest"))
                .withDecisions(new KafkaSettings.Decisions(false, 16, Duration.ofMillis(20), 16 * 1024, "none")),
            store, new SnapshotConverter(new WorkerRegistry(IntStream.range(0, Workload.WORKERS)
                .mapToObj(i -> "w" + i).toList()), CostParameters.DEFAULTS, 0.5)).start();
        Workload w = new Workload(9, "default", System.currentTimeMillis(), 0.05);
        long begin = System.currentTimeMillis();
        try (KafkaProducer<byte[], byte[]> p = producer(kafka)) {
            long nextTelemetry = begin;
            double credit = 0;
            long last = begin;
            while (System.currentTimeMillis() - begin < seconds * 1000L) {
                long now = System.currentTimeMillis();
                if (now >= nextTelemetry) {
                    w.clock(now);
                    for (ProducerRecord<byte[], byte[]> r : w.telemetry(1)) {
                        p.send(r);
                    }
                    sent.add(new long[] {now, 1});
                    nextTelemetry += 1000;
                }
                credit += (now - last) * requestsPerSecond / 1000.0;
                last = now;
                while (credit >= 1) {
                    long t = System.currentTimeMillis();
                    w.clock(t - 1000); // completion finishes 1 s after its decision: at t
                    for (ProducerRecord<byte[], byte[]> r : w.requests(1)) {
                        p.send(r);
                    }
                    sent.add(new long[] {t, 0});
                    credit -= 1;
                }
                p.flush();
                Thread.sleep(20);
            }
        }
        Thread.sleep(5_000);
        done.set(true);
        reader.join();
        selector.close();
        job.cancel().get();
        List<Long> completionLat = new ArrayList<>();
        List<Long> telemetryLat = new ArrayList<>();
        List<Long> completionLive = new ArrayList<>();
        List<Long> telemetryLive = new ArrayList<>();
        synchronized (arrivals) {
            for (long[] x : sent) {
                if (x[0] < begin + 15_000 || x[0] > begin + seconds * 1000L - 3_000) {
                    continue; // warm-up (first forest, JIT) and the tail
                }
                for (long[] a : arrivals) {
                    long window = x[1] == 0 ? a[1] : a[2];
                    if (window > x[0]) {
                        (x[1] == 0 ? completionLat : telemetryLat).add(a[0] - x[0]);
                        synchronized (live) {
                            for (long[] l : live) {
                                if (l[1] >= a[3]) {
                                    (x[1] == 0 ? completionLive : telemetryLive).add(l[0] - x[0]);
                                    break;
                                }
                            }
                        }
                        break;
                    }
                }
            }
        }
        System.out.printf("LATENCY record -> committed snapshot on %s (publish every %s, checkpoint every %s), "
            + "%d req/s + 8 workers' telemetry at 1 Hz, %d s%n", Topics.PARAMS, s.publishInterval(),
            s.checkpointInterval(), requestsPerSecond, seconds);
        print("completion", completionLat);
        print("telemetry", telemetryLat);
        long accepted;
        synchronized (arrivals) {
            accepted = arrivals.stream().filter(a -> a[4] == 1).count();
            System.out.printf("snapshots published: %d, accepted: %d; versions live in the selector: %d%n",
                arrivals.size(), accepted, live.size());
        }
        System.out.println("LATENCY record -> parameters live in a selector (ParameterLoader swap into its store)");
        print("completion", completionLive);
        print("telemetry", telemetryLive);
    }

    private static void print(String what, List<Long> lat) {
        long[] a = lat.stream().mapToLong(Long::longValue).sorted().toArray();
        if (a.length == 0) {
            System.out.println("  " + what + ": no samples");
            return;
        }
        System.out.printf("  %s: n=%d p50=%d ms p90=%d ms p99=%d ms max=%d ms%n", what, a.length, a[a.length / 2],
            a[(int) (a.length * 0.9)], a[Math.min(a.length - 1, (int) (a.length * 0.99))], a[a.length - 1]);
    }

    private static void readSnapshots(BenchBroker kafka, AtomicBoolean done, List<long[]> arrivals) {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("group.id", "latency-" + UUID.randomUUID());
        p.put("isolation.level", "read_committed");
        p.put("auto.offset.reset", "earliest");
        p.put("max.partition.fetch.bytes", Integer.toString(8 << 20));
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.subscribe(List.of(Topics.PARAMS));
            while (!done.get()) {
                for (var r : c.poll(Duration.ofMillis(20))) {
                    long now = System.currentTimeMillis();
                    ParameterSnapshot s = Codecs.PARAMETER_SNAPSHOT.decode(r.value());
                    long rho = Long.MIN_VALUE;
                    for (WorkerTierRho x : s.getRho()) {
                        rho = Math.max(rho, x.getRho().getWindowEndMs());
                    }
                    synchronized (arrivals) {
                        arrivals.add(new long[] {now, s.getAlphaP().getWindowEndMs(), rho, s.getVersion(),
                            s.getStatus() == io.tierroute.schemas.avro.SnapshotStatus.ACCEPTED ? 1 : 0});
                    }
                }
            }
        }
    }


}
