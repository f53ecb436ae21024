package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /jobs/<id>/config} as Flink 2.2's JobConfigHandler answers it: with the job's global job
 * parameters, with none, and without an execution config (a job still initializing). The answer of a
 * real cluster is read in cli's SessionClusterJobTest; the third shape is hard to catch there.
 */
class FlinkRestClientConfigTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theGlobalJobParametersOfTheExecutionConfig() throws Exception {
        String body = "{\"jid\":\"abc\",\"name\":\"fit\",\"execution-config\":{\"execution-mode\":\"PIPELINED\","
                + "\"restart-strategy\":\"Cluster level default restart strategy\",\"job-parallelism\":1,"
                + "\"object-reuse-mode\":true,\"user-config\":{\"tierroute.role\":\"fitting-job\","
                + "\"tierroute.bootstrap-servers\":\"127.0.0.1:9092\"}}}";
        assertThat(FlinkRestClient.userConfig(JSON.readTree(body))).contains(Map.of("tierroute.role", "fitting-job",
                "tierroute.bootstrap-servers", "127.0.0.1:9092"));
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
