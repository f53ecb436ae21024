package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Who holds a cluster's task slots and how many a job needs, read from answers of a real Flink 2.2.1 session cluster
 * (1 TaskManager with 2 slots, started as cli's cluster tests start one): job 'a' of parallelism 1 running, then job 'c' of
 * parallelism 2 waiting for its second slot. cli's cluster/SubmitSlotsClusterTest reads the live answers.
 */
class FlinkRestClientSlotsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RUNNING_JOB = "c8d92c0a974a63b58c9ff0700471779d";

    static JsonNode captured(String name) throws IOException {
        try (var in = FlinkRestClientSlotsTest.class.getResourceAsStream("/flink/" + name)) {
            return JSON.readTree(in);
        }
    }

    @Test
    void aTaskManagerNamesTheJobsHoldingItsSlots() throws Exception {
        assertThat(TaskManagerSlots.of(captured("taskmanager-details-one-job.json")))
                .isEqualTo(new TaskManagerSlots("taskmanager-1", 2, 1, Map.of(RUNNING_JOB, 1)));
        // a TaskManager whose slots are all free lists no allocated slot
        assertThat(TaskManagerSlots.of(JSON.readTree("{\"id\":\"tm-2\",\"slotsNumber\":4,\"freeSlots\":4,"
                + "\"allocatedSlots\":[]}"))).isEqualTo(new TaskManagerSlots("tm-2", 4, 4, Map.of()));
    }

    @Test
    void aJobNeedsItsLargestParallelismPerSlotSharingGroup() throws Exception {
        // the fitting job: every operator at --parallelism 2 but the control source's 1, all in the default group
        FlinkRestClient.JobDetails waiting = FlinkJobs.jobDetails(captured("job-waiting-for-slots.json"));
        assertThat(waiting.slotsNeeded()).isEqualTo(2);
        assertThat(waiting.state()).isEqualTo("RUNNING");
        assertThat(waiting.fullyRunning()).isFalse();
        assertThat(waiting.tasks("SCHEDULED")).isEqualTo(waiting.taskCount()).isEqualTo(13);

        FlinkRestClient.JobDetails running = FlinkJobs.jobDetails(captured("job-running.json"));
        assertThat(running.slotsNeeded()).isEqualTo(1);
        assertThat(running.fullyRunning()).isTrue();
        assertThat(running.tasks("RUNNING")).isEqualTo(7);

        // two groups: their slots add up
        assertThat(FlinkJobs.jobDetails(JSON.readTree("{\"name\":\"x\",\"state\":\"RUNNING\",\"vertices\":["
                + "{\"slotSharingGroupId\":\"g1\",\"parallelism\":3,\"status\":\"RUNNING\"},"
                + "{\"slotSharingGroupId\":\"g1\",\"parallelism\":1,\"status\":\"RUNNING\"},"
                + "{\"slotSharingGroupId\":\"g2\",\"parallelism\":2,\"status\":\"RUNNING\"}]}")).slotsNeeded()).isEqualTo(5);
    }
}
