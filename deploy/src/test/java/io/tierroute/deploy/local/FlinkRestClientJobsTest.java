package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * One job of {@code GET /jobs/overview} as Flink 2.2's JobsOverviewHandler answers it: its start-time is what ranks
 * racing submits (cli's SubmitRace), so it must come through; an answer without one ranks first (-1).
 */
class FlinkRestClientJobsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aJobsIdNameStateAndStartTime() throws Exception {
        String job = "{\"jid\":\"9b3c4f0e1d2a4b5c8d7e6f5a4b3c2d1e\",\"name\":\"tierroute-fitting-job\",\"start-time\":"
                + "1764579600123,\"end-time\":-1,\"duration\":4521,\"state\":\"INITIALIZING\",\"last-modification\":"
                + "1764579600123,\"tasks\":{\"running\":0,\"canceling\":0,\"canceled\":0,\"total\":0,\"created\":0,"
                + "\"scheduled\":0,\"deploying\":0,\"reconciling\":0,\"finished\":0,\"initializing\":0,\"failed\":0}}";
        assertThat(FlinkJobs.jobSummary(JSON.readTree(job))).isEqualTo(new FlinkRestClient.JobSummary(
                "9b3c4f0e1d2a4b5c8d7e6f5a4b3c2d1e", "tierroute-fitting-job", "INITIALIZING", 1764579600123L));
    }

    @Test
    void noStartTimeIsMinusOne() throws Exception {
        assertThat(FlinkJobs.jobSummary(JSON.readTree("{\"jid\":\"a\",\"name\":\"n\",\"state\":\"RUNNING\"}"))
                .startTime()).isEqualTo(-1);
        assertThat(new FlinkRestClient.JobSummary("a", "n", "RUNNING").startTime()).isEqualTo(-1);
    }
}
