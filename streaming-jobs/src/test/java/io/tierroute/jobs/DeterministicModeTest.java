package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event-time cadence ({@code --cadence-clock event}): for a fixed input the published history
 * (versions and every value, forests included) is a function of the input alone — whether the input is
 * there before the job starts or arrives in two parts, and across a failure restored from the last
 * checkpoint. Real MiniCluster, real embedded broker (a fresh one per run), single-partition topics.
 */
class DeterministicModeTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
        .setNumberTaskManagers(1)
        .setNumberSlotsPerTaskManager(2)
        .build());

    private static final String SCOPE = "det";
    /** Event time of the input's start: fixed for every run of the test (whole seconds, 20 min ago). */
    private static final long START_MS = (System.currentTimeMillis() - Duration.ofMinutes(20).toMillis()) / 1000 * 1000;

    @TempDir
    Path tmp;
    private final List<JobClient> jobs = new ArrayList<>();
    private final List<TestKafka> brokers = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        TestJobs.cancelRunning(jobs);
        brokers.forEach(TestKafka::close);
    }

    /** The flags a harness passes for the deterministic mode (plus the broker, ids and checkpoint directory). */
    private JobSettings settings(TestKafka kafka, String tag, long failAfterInputs) {
        return JobSettings.builder()
            .set("bootstrap-servers", kafka.bootstrap())
            .set("group-id", "det-" + tag)
            .set("transactional-id-prefix", "params-det-" + tag)
            .set("checkpoint-dir", tmp.resolve(tag).toUri().toString())
            .set("cadence-clock", "event")
            .set("parallelism", 1)
            .set("idleness", Duration.ofSeconds(30))
            .set("out-of-orderness", Duration.ofSeconds(1))
            .set("checkpoint-interval", Duration.ofMillis(300))
            .set("publish-interval", Duration.ofSeconds(1))
            .set("forest-interval", Duration.ofSeconds(5))
            .set("min-forest-rows", 500)
            .set("forest-trees", 5)
            .set("fail-after-inputs", failAfterInputs)
            .build();
    }

    /** The fixed input: 20 s of one scope's requests and telemetry in two parts, then a later record per topic. */
    private record Input(List<ProducerRecord<byte[], byte[]>> first, List<ProducerRecord<byte[], byte[]>> second,
            long rows) {}

    private static Input input(long start) {
        Workload w = new Workload(17, SCOPE, start, 0.05);
        List<ProducerRecord<byte[], byte[]>> first = new ArrayList<>(w.telemetry(10));
        first.addAll(w.requests(1000));
        List<ProducerRecord<byte[], byte[]>> second = new ArrayList<>(w.telemetry(10));
        second.addAll(w.requests(1000));
        // Another scope, a minute later in event time: moves every input's watermark past the data, so
        // every tick of the data fires (a scope's own last ticks otherwise wait for later input).
        Workload end = new Workload(18, "zz-end", start + Duration.ofSeconds(80).toMillis(), 0.05);
        second.addAll(end.telemetry(1));
        second.addAll(end.requests(1));
        return new Input(first, second, w.requests());
    }

    /** Runs the job on a fresh broker; returns the scope's committed history once it covers every row. */
    private List<ParameterSnapshot> run(String tag, boolean inTwoParts, long failAfterInputs,
            RestClusterClient<?> client) throws Exception {
        Input in = input(START_MS);
        TestKafka kafka = new TestKafka(true);
        brokers.add(kafka);
        JobSettings s = settings(kafka, tag, failAfterInputs);
        Configuration restart = new Configuration();
        restart.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        kafka.send(in.first());
        if (!inTwoParts) {
            kafka.send(in.second());
        }
        JobClient job = TestJobs.start(s, null, jobs, restart);
        if (inTwoParts) {
            // A checkpoint has completed once a snapshot is committed: the failure (if any) comes after it.
            kafka.awaitSnapshot(p -> true, Duration.ofSeconds(60), "committed from the first part");
            kafka.send(in.second());
        }
        ParameterSnapshot last = kafka.awaitSnapshot(p -> p.getScope().toString().equals(SCOPE)
            && p.getAlphaP().getSamples() == in.rows(), Duration.ofSeconds(90), "covering all " + in.rows() + " rows");
        Thread.sleep(1500); // nothing may follow
        List<ParameterSnapshot> history = kafka.snapshots().stream()
            .filter(p -> p.getScope().toString().equals(SCOPE)).toList();
        assertThat(history.get(history.size() - 1)).as("the last snapshot of run %s", tag).isEqualTo(last);
        Map<JobStatus, Long> times = client.getJobDetails(job.getJobID()).get().getTimestamps();
        assertThat(times.getOrDefault(JobStatus.RESTARTING, 0L) > 0).as("run %s restarted", tag)
            .isEqualTo(failAfterInputs > 0);
        job.cancel().get();
        assertEachForestTravelsOnce(history, tag);
        assertStoredCompressed(kafka, tag);
        System.out.printf("[DeterministicModeTest] %s: %d snapshots, last v%d %s at %d, forest %s%n", tag,
            history.size(), last.getVersion(), last.getStatus(), last.getCreatedAtMs(),
            history.stream().filter(p -> p.getQuantileModel() != null).count() + " times in full");
        return history;
    }

    /**
     * A forest is carried in full by the first record that uses it only; every later record names that record, and
     * the carrier is one this history holds.
     */
    private static void assertEachForestTravelsOnce(List<ParameterSnapshot> history, String tag) {
        List<ParameterSnapshot> carriers = history.stream().filter(p -> p.getQuantileModel() != null).toList();
        assertThat(carriers).as("run %s: records carrying a forest", tag)
            .allSatisfy(p -> assertThat(p.getQuantileModelVersion()).isEqualTo(p.getVersion()));
        assertThat(carriers.stream().map(ParameterSnapshot::getQuantileModel).distinct().count())
            .as("run %s: each carried forest is a different one", tag).isEqualTo(carriers.size());
        java.util.Set<Long> carried = new java.util.HashSet<>();
        carriers.forEach(p -> carried.add(p.getVersion()));
        assertThat(history).filteredOn(p -> p.getQuantileModel() == null && p.getQuantileModelVersion() != null)
            .as("run %s: records naming a forest", tag).isNotEmpty()
            .allSatisfy(p -> assertThat(carried).contains(p.getQuantileModelVersion()));
    }

    /**
     * Snapshots are stored compressed: the compacted topic keeps every version, one a publish interval.
     */
    private static void assertStoredCompressed(TestKafka kafka, String tag) throws Exception {
        // every record the broker stores, an aborted or open transaction's too (the failed run leaves some)
        long raw = kafka.readAll(Topics.PARAMS, false).stream().mapToLong(r -> r.value().length).sum();
        long stored = kafka.storedBytes(Topics.PARAMS);
        System.out.printf("[DeterministicModeTest] %s: %,d snapshot bytes stored in %,d (%.2f)%n", tag, raw, stored,
            (double) stored / raw);
        assertThat(stored).as("bytes stored for %,d bytes of snapshots", raw).isLessThan(raw * 6 / 10);
    }

    private static void assertSameHistory(List<ParameterSnapshot> a, List<ParameterSnapshot> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            assertThat(b.get(i)).as("snapshot %d (version %d): %s", i, a.get(i).getVersion(), difference(a.get(i), b.get(i)))
                .isEqualTo(a.get(i));
        }
        assertThat(b).hasSameSizeAs(a);
    }

    /** The first field (in the record's JSON form) where two snapshots differ, for the failure message. */
    private static String difference(ParameterSnapshot a, ParameterSnapshot b) {
        String[] x = a.toString().split(", ");
        String[] y = b.toString().split(", ");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            if (!x[i].equals(y[i])) {
                return "first difference at " + x[i] + " vs " + y[i];
            }
        }
        return x.length == y.length ? "equal" : "lengths " + x.length + " vs " + y.length;
    }

    @Test
    void sameInputGivesTheSameHistoryWhateverTheArrivalAndAcrossAFailure(
            @InjectClusterClient RestClusterClient<?> client) throws Exception {
        List<ParameterSnapshot> reference = run("prefilled", false, 0, client);
        assertThat(reference).as("snapshots").hasSizeGreaterThan(10);
        assertThat(reference).anySatisfy(p -> assertThat(p.getStatus()).isEqualTo(SnapshotStatus.ACCEPTED));
        assertThat(reference).anySatisfy(p -> assertThat(p.getQuantileModel()).isNotNull());
        for (int i = 0; i < reference.size(); i++) {
            ParameterSnapshot p = reference.get(i);
            assertThat(p.getVersion()).as("gap-free").isEqualTo(i + 1L);
            assertThat(p.getCreatedAtMs() % 1000).as("stamped with its event-time tick").isZero();
        }

        assertSameHistory(reference, run("two-parts", true, 0, client));
        assertSameHistory(reference, run("failed-once", true, 300, client));
    }
}
