package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient.JobSummary;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class JobStatesTest {

    @Test
    void aFailedJobOrOneRestartingWithNoSlotIsHaltedAndSaysWhatIsServed() {
        for (String s : new String[] {"RESTARTING", "FAILING", "FAILED", "SUSPENDED"}) {
            assertThat(JobStates.halted(s, 0)).as(s).isTrue();
            assertThat(JobStates.explain(s)).as(s).contains("selectors keep serving the last accepted one");
        }
        assertThat(JobStates.explain("RESTARTING")).contains("no task slot");
        assertThat(JobStates.halted("RUNNING", 0)).as("running on no TaskManager").isTrue();
        assertThat(JobStates.explain("RUNNING")).contains("runs nowhere");
    }

    @Test
    void aRunOrRestartWithSlotsAndStartingOrEndedJobsAreNotHalted() {
        assertThat(JobStates.halted("RESTARTING", 2)).as("an ordinary recovery").isFalse();
        assertThat(JobStates.halted("RUNNING", 2)).isFalse();
        for (String s : new String[] {"CREATED", "INITIALIZING", "CANCELLING", "CANCELED", "FINISHED"}) {
            assertThat(JobStates.halted(s, 0)).as(s).isFalse();
        }
    }

    @Test
    void onlyTheNewestJobOfANameCounts() {
        List<JobSummary> jobs = List.of(new JobSummary("old", "fitting", "FAILED", 100),
                new JobSummary("new", "fitting", "RUNNING", 200), new JobSummary("other", "another", "FAILED", 50));
        assertThat(JobStates.newestOfTheirName(jobs)).containsExactlyInAnyOrder("new", "other");
    }
}
