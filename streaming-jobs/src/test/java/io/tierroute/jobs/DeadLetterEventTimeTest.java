package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.schemas.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dead letter does not move the job's event time (ingest/AcceptedRecordWatermarks), on a real MiniCluster and
 * broker. The workload is stamped 40 minutes in the past, as in {@link FittingJobTest}; the garbage records get
 * the producer's wall clock as Kafka timestamp, which is a dead letter's event time.
 */
class DeadLetterEventTimeTest {
    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK = FittingJobFixture.miniCluster(METRICS::addToConfiguration);

    @RegisterExtension
    final FittingJobFixture fixture = new FittingJobFixture();
    @TempDir
    Path tmp;

    private static final Duration IDLENESS = Duration.ofSeconds(1);

    private static ProducerRecord<byte[], byte[]> garbage(String topic, int i) {
        byte[] key = ("garbage-" + i).getBytes(StandardCharsets.UTF_8);
        return new ProducerRecord<>(topic, key, "not avro".getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Completions wait in the join for decisions that come well after the idleness: meanwhile the completions'
     * partitions go idle and only garbage arrives on both join inputs. Were the garbage's timestamps in the
     * watermark, the join's event time would jump 40 minutes, past every waiting completion's 2-minute grace, and
     * no pair would join.
     */
    @Test
    void garbageStampedNowDoesNotExpireCompletionsWaitingForTheirDecisions() throws Exception {
        TestKafka kafka = fixture.kafka();
        Workload w = new Workload(7, "pool-g", System.currentTimeMillis() - Duration.ofMinutes(40).toMillis(), 0.05);
        JobID job = fixture.start(fixture.settings(tmp, "garbage").toBuilder().set("idleness", IDLENESS).build(), null)
            .getJobID();
        List<ProducerRecord<byte[], byte[]>> pairs = w.requests(300);
        long rows = w.requests();
        List<ProducerRecord<byte[], byte[]>> completions =
            pairs.stream().filter(r -> r.topic().equals(Topics.COMPLETIONS)).toList();
        kafka.send(completions);
        // The completions must be in the job (waiting in the join) before the garbage comes: otherwise a slow start
        // could read completions, garbage and decisions in one burst and join every pair whatever the watermarks do.
        await(() -> counter(job, "decodedRecords") >= completions.size(), Duration.ofSeconds(60));
        assertThat(counter(job, "decodedRecords")).as("completions read before the garbage").isEqualTo(completions.size());

        List<ProducerRecord<byte[], byte[]>> garbage = new ArrayList<>();
        long until = System.nanoTime() + 4 * IDLENESS.toNanos();
        for (int i = 0; System.nanoTime() < until; i++) {
            List<ProducerRecord<byte[], byte[]>> now = List.of(garbage(Topics.DECISIONS, i), garbage(Topics.COMPLETIONS, i));
            kafka.send(now);
            garbage.addAll(now);
            Thread.sleep(IDLENESS.toMillis() / 4);
        }
        kafka.send(pairs.stream().filter(r -> r.topic().equals(Topics.DECISIONS)).toList());

        await(() -> counter(job, "joinedRows") >= rows, Duration.ofSeconds(60));
        assertThat(counter(job, "joinedRows")).as("pairs joined; completions expired unmatched: "
            + counter(job, "completionsWithoutDecision")).isEqualTo(rows);
        assertThat(counter(job, "completionsWithoutDecision")).isZero();
        kafka.awaitSnapshot(p -> p.getAlphaP().getSamples() == rows, Duration.ofSeconds(60), "fitted on all " + rows + " rows");
        await(() -> kafka.deadLetters().size() >= garbage.size(), Duration.ofSeconds(30));
        assertThat(kafka.deadLetters()).as("the garbage is still dead-lettered").hasSize(garbage.size());
    }

    /** Polls {@code done} until it holds or {@code timeout} passed (the assertions after it say what failed). */
    private static void await(BooleanSupplier done, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(300);
        }
    }

    private static long counter(JobID id, String name) {
        return JobCounters.sum(METRICS, id, name);
    }
}
