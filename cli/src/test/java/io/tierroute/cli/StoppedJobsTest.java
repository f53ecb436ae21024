package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierroute.jobs.WriterIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which jobs a {@code cluster down} keeps recorded: those nothing on the cluster has resumed or replaced since. */
class StoppedJobsTest {

    private static final String CLUSTERS_KAFKA = "127.0.0.1:9092";

    @TempDir
    Path dir;

    private static StoppedJobs.Job job(String topic, String bootstrap, boolean onTheClustersKafka, String checkpoint) {
        return new StoppedJobs.Job(Map.of(WriterIdentity.ROLE, WriterIdentity.FITTING_JOB, WriterIdentity.PARAMS_TOPIC,
                topic, WriterIdentity.BOOTSTRAP_SERVERS, bootstrap), List.of("--parallelism", "1"), checkpoint,
                onTheClustersKafka);
    }

    private static StoppedJobs.Writes ran(String topic, String bootstrap, boolean onTheClustersKafka) {
        return new StoppedJobs.Writes(topic, bootstrap, onTheClustersKafka);
    }

    @Test
    void aJobNothingResumedSinceStaysRecordedThroughADownThatStoppedNothing() {
        StoppedJobs.Job earlier = job("params", CLUSTERS_KAFKA, true, "file:/c/job-1/chk-7");
        assertThat(StoppedJobs.afterDown(List.of(), List.of(earlier), List.of())).containsExactly(earlier);
        // another writer's run (another topic, or the same topic on another Kafka) does not take it over
        assertThat(StoppedJobs.afterDown(List.of(), List.of(earlier), List.of(ran("other", "127.0.0.1:7001", true),
                ran("params", "kafka.example:9092", false)))).containsExactly(earlier);
    }

    @Test
    void aRunOfTheSameWriterSinceTakesItsRecordOverWhateverTheClustersKafkaPortIsNow() {
        StoppedJobs.Job earlier = job("params", CLUSTERS_KAFKA, true, "file:/c/job-1/chk-7");
        // resumed on the next 'up', whose broker has another port, and cancelled (or finished) before this down
        assertThat(StoppedJobs.afterDown(List.of(), List.of(earlier), List.of(ran("params", "127.0.0.1:7001", true))))
                .isEmpty();
        // running at this down: its newer record replaces the earlier one
        StoppedJobs.Job now = job("params", "127.0.0.1:7001", true, "file:/c/job-2/chk-3");
        assertThat(StoppedJobs.afterDown(List.of(now), List.of(earlier), List.of(now.writes()))).containsExactly(now);
    }

    @Test
    void onAnotherKafkaTheSameWriterIsTheSameTopicAtTheSameBootstrap() {
        StoppedJobs.Job earlier = job("params", "kafka.example:9092", false, "file:/c/job-1/chk-7");
        assertThat(StoppedJobs.afterDown(List.of(), List.of(earlier), List.of(ran("params", "kafka.example:9092", false))))
                .isEmpty();
        assertThat(StoppedJobs.afterDown(List.of(), List.of(earlier), List.of(ran("params", "kafka.other:9092", false),
                ran("params", "kafka.example:9092", true)))).containsExactly(earlier);
    }

    @Test
    void theSameWriterIsTheSameWhicheverSideAsks() {
        StoppedJobs.Writes onCluster = ran("params", CLUSTERS_KAFKA, true);
        StoppedJobs.Writes onClusterNewPort = ran("params", "127.0.0.1:7001", true);
        StoppedJobs.Writes elsewhere = ran("params", CLUSTERS_KAFKA, false);
        assertThat(onCluster.sameAs(onClusterNewPort)).isTrue();
        assertThat(onClusterNewPort.sameAs(onCluster)).isTrue();
        assertThat(onCluster.sameAs(elsewhere)).isFalse();
        assertThat(elsewhere.sameAs(onCluster)).isFalse();
        StoppedJobs.Writes noTopic = ran(null, CLUSTERS_KAFKA, true);
        assertThat(noTopic.sameAs(noTopic)).isFalse(); // a record without a topic names no writer to take it over
    }

    @Test
    void theRecordReadsBackAsWrittenAndAnEmptyOneIsRemoved() throws Exception {
        StoppedJobs.Job a = job("params", CLUSTERS_KAFKA, true, "file:/c/job-1/chk-7");
        StoppedJobs.Job b = job("params-b", "kafka.example:9092", false, "file:/c/job-2/chk-1");
        StoppedJobs.write(dir, StoppedJobs.afterDown(List.of(b), List.of(a), List.of(b.writes())));
        assertThat(StoppedJobs.read(dir)).containsExactly(b, a);
        StoppedJobs.write(dir, List.of());
        assertThat(Files.exists(dir.resolve(StoppedJobs.FILE))).isFalse();
        assertThat(StoppedJobs.read(dir)).isEmpty();
    }

    /** A write that fails midway (a full disk, Ctrl-C) leaves the earlier record whole: before, it was truncated first. */
    @Test
    void aWriteThatFailsLeavesTheEarlierRecordWhole() throws Exception {
        StoppedJobs.Job earlier = job("params", CLUSTERS_KAFKA, true, "file:/c/job-1/chk-7");
        StoppedJobs.write(dir, List.of(earlier));
        byte[] before = Files.readAllBytes(dir.resolve(StoppedJobs.FILE));
        // A lone surrogate has no UTF-8 form: the encoder fails once part of the record is written.
        StoppedJobs.Job unwritable = job("params", CLUSTERS_KAFKA, true, "file:/c/job-2/chk-\uD800");
        assertThatThrownBy(() -> StoppedJobs.write(dir, List.of(unwritable))).isInstanceOf(IOException.class);
        assertThat(Files.readAllBytes(dir.resolve(StoppedJobs.FILE))).isEqualTo(before);
        assertThat(StoppedJobs.read(dir)).containsExactly(earlier);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).as("no staging file left").containsExactly(
                    StoppedJobs.FILE);
        }
    }
}
