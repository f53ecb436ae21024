package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /jobs/<id>/config} as Flink 2.2's JobConfigHandler answers it: with the job's global job
 * parameters, with none (also what an INITIALIZING job's sparse placeholder shows, whatever the job registered:
 * cli's LiveJobs refuses to judge such a job), and without an execution config; the parallelism the job set and its
 * checkpoint settings ({@code GET /jobs/<id>/checkpoints/config}), from answers of a real Flink 2.2.1 session cluster
 * captured under {@code src/test/resources/flink/}: a fitting job run with {@code --parallelism 2 --state-backend rocksdb
 * --checkpoint-interval 3s} (on a cluster given the RocksDB jars), and one with {@code --parallelism 1} and the
 * defaults, once FINISHED (stopped with a savepoint). The answers of a live cluster are read in cli's
 * SessionClusterJobTest and ResumeLineClusterTest.
 */
class FlinkRestClientConfigTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theGlobalJobParametersOfTheExecutionConfig() throws Exception {
        String body = "{\"jid\":\"abc\",\"name\":\"fit\",\"execution-config\":{"
                + "\"restart-strategy\":\"Cluster level default restart strategy\",\"job-parallelism\":1,"
                + "\"object-reuse-mode\":true,\"user-config\":{\"tierroute.role\":\"fitting-job\","
                + "\"tierroute.bootstrap-servers\":\"127.0.0.1:9092\"}}}";
        assertThat(FlinkConfigQueries.userConfig(JSON.readTree(body))).contains(Map.of("tierroute.role", "fitting-job",
                "tierroute.bootstrap-servers", "127.0.0.1:9092"));
    }

    @Test
    void anInitializingJobsPlaceholderShowsNoParameters() throws Exception {
        // Flink 2.2.1's answer for a job still INITIALIZING (ArchivedExecutionGraph's sparse graph): a default
        // execution config, whatever the job registered.
        String body = "{\"jid\":\"abc\",\"name\":\"fit-a\",\"execution-config\":{\"restart-strategy\":"
                + "\"Cluster level default restart strategy\",\"job-parallelism\":1,\"object-reuse-mode\":false,"
                + "\"user-config\":{}}}";
        assertThat(FlinkConfigQueries.userConfig(JSON.readTree(body))).contains(Map.of());
    }

    @Test
    void noParametersIsAnEmptyMapAndNoExecutionConfigIsNothing() throws Exception {
        assertThat(FlinkConfigQueries.userConfig(JSON.readTree("{\"jid\":\"abc\",\"name\":\"other\",\"execution-config\":"
                + "{\"job-parallelism\":1,\"user-config\":{}}}"))).contains(Map.of());
        assertThat(FlinkConfigQueries.userConfig(JSON.readTree("{\"jid\":\"abc\",\"name\":\"other\"}"))).isEmpty();
        assertThat(FlinkConfigQueries.userConfig(JSON.readTree("{\"jid\":\"abc\",\"name\":\"other\",\"execution-config\":null}")))
                .isEmpty();
    }

    @Test
    void theParallelismTheJobSetIsItsJobParallelism() throws Exception {
        FlinkRestClient.JobConfig two = FlinkConfigQueries.jobConfig(FlinkRestClientSlotsTest.captured(
                "job-config-parallelism-2.json")).orElseThrow();
        assertThat(two.parallelism()).isEqualTo(OptionalInt.of(2));
        assertThat(two.userConfig()).containsEntry("tierroute.role", "fitting-job").containsEntry("tierroute.job-name",
                "fit-rocks");
        // a job stopped with a savepoint (FINISHED) still answers its config
        FlinkRestClient.JobConfig finished = FlinkConfigQueries.jobConfig(FlinkRestClientSlotsTest.captured(
                "job-config-finished.json")).orElseThrow();
        assertThat(finished.parallelism()).isEqualTo(OptionalInt.of(1));
        assertThat(finished.userConfig()).containsEntry("tierroute.job-name", "fit one");
        // none, or not a positive number (ExecutionConfig's -1: not set): unknown
        assertThat(FlinkConfigQueries.jobConfig(JSON.readTree("{\"execution-config\":{\"user-config\":{}}}")).orElseThrow()
                .parallelism()).isEmpty();
        assertThat(FlinkConfigQueries.jobConfig(JSON.readTree("{\"execution-config\":{\"job-parallelism\":-1}}"))
                .orElseThrow().parallelism()).isEmpty();
        assertThat(FlinkConfigQueries.jobConfig(JSON.readTree("{\"execution-config\":{\"job-parallelism\":\"2\"}}"))
                .orElseThrow().parallelism()).isEmpty();
        assertThat(FlinkConfigQueries.jobConfig(JSON.readTree("{\"jid\":\"abc\"}"))).isEmpty();
    }

    @Test
    void theCheckpointIntervalAndStateBackendOfTheCheckpointConfig() throws Exception {
        assertThat(FlinkConfigQueries.checkpointConfig(FlinkRestClientSlotsTest.captured("checkpoints-config-rocksdb.json")))
                .isEqualTo(new FlinkRestClient.CheckpointConfig(3000, "EmbeddedRocksDBStateBackend"));
        assertThat(FlinkConfigQueries.checkpointConfig(FlinkRestClientSlotsTest.captured("checkpoints-config-hashmap.json")))
                .isEqualTo(new FlinkRestClient.CheckpointConfig(500, "HashMapStateBackend"));
        assertThat(FlinkConfigQueries.checkpointConfig(JSON.readTree("{\"interval\":0}")))
                .isEqualTo(new FlinkRestClient.CheckpointConfig(-1, ""));
    }
}
