package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /jobs/<id>/config} as Flink 2.2's JobConfigHandler answers it: with the job's global job
 * parameters, with none (also what an INITIALIZING job's sparse placeholder shows, whatever the job registered:
 * cli's LiveJobs refuses to judge such a job), and without an execution config. The answer of a real cluster is
 * read in cli's SessionClusterJobTest.
 */
class FlinkRestClientConfigTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theGlobalJobParametersOfTheExecutionConfig() throws Exception {
        String body = "{\"jid\":\"abc\",\"name\":\"fit\",\"execution-config\":{"
                + "\"restart-strategy\":\"Cluster level default restart strategy\",\"job-parallelism\":1,"
                + "\"object-reuse-mode\":true,\"user-config\":{\"tierroute.role\":\"fitting-job\","
                + "\"tierroute.bootstrap-servers\":\"127.0.0.1:9092\"}}}";
        assertThat(FlinkRestClient.userConfig(JSON.readTree(body))).contains(Map.of("tierroute.role", "fitting-job",
                "tierroute.bootstrap-servers", "127.0.0.1:9092"));
    }

    @Test
    void anInitializingJobsPlaceholderShowsNoParameters() throws Exception {
        // Flink 2.2.1's answer for a job still INITIALIZING (ArchivedExecutionGraph's sparse graph): a default
        // execution config, whatever the job registered.
        String body = "{\"jid\":\"abc\",\"name\":\"fit-a\",\"execution-config\":{\"restart-strategy\":"
                + "\"Cluster level default restart strategy\",\"job-parallelism\":1,\"object-reuse-mode\":false,"
                + "\"user-config\":{}}}";
        assertThat(FlinkRestClient.userConfig(JSON.readTree(body))).contains(Map.of());
    }

    @Test
    void noParametersIsAnEmptyMapAndNoExecutionConfigIsNothing() throws Exception {
        assertThat(FlinkRestClient.userConfig(JSON.readTree("{\"jid\":\"abc\",\"name\":\"other\",\"execution-config\":"
                + "{\"job-parallelism\":1,\"user-config\":{}}}"))).contains(Map.of());
        assertThat(FlinkRestClient.userConfig(JSON.readTree("{\"jid\":\"abc\",\"name\":\"other\"}"))).isEmpty();
        assertThat(FlinkRestClient.userConfig(JSON.readTree("{\"jid\":\"abc\",\"name\":\"other\",\"execution-config\":null}")))
                .isEmpty();
    }
}
