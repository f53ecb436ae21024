package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;
import io.tierroute.deploy.local.RootCause;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

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

    /**
     * A failed job says why, as Flink shows it: one Flink refused at submission (a --from-savepoint path that is not
     * there; no vertex, it never ran) was said to have used up its restarts.
     */
    @Test
    void aFailedJobSaysWhyFromWhatFlinkShowsOfIt() {
        FlinkRestClient.JobDetails neverRan = new FlinkRestClient.JobDetails("fitting", "FAILED", List.of(), Map.of(), 0);
        RootCause refused = new RootCause("JobInitializationException: Could not start the JobMaster.",
                "FileNotFoundException: Cannot find checkpoint or savepoint file/directory '/nonexistent' on file system "
                        + "'file'.");
        assertThat(JobStates.explain("FAILED", neverRan, Optional.of(refused)))
                .startsWith("failed before it ran: Flink could not start it (FileNotFoundException: Cannot find checkpoint "
                        + "or savepoint file/directory '/nonexistent' on file system 'file'.); ")
                .doesNotContain("restarts").contains("selectors keep serving the last accepted one");

        FlinkRestClient.JobDetails ran = new FlinkRestClient.JobDetails("fitting", "FAILED", List.of("FAILED", "CANCELED"),
                Map.of("FAILED", 1, "CANCELED", 1), 2);
        RootCause exhausted = new RootCause("JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy"
                + "(maxNumberRestartAttempts=3, backoffTimeMS=10000)", "RuntimeException: boom");
        assertThat(JobStates.explain("FAILED", ran, Optional.of(exhausted)))
                .startsWith("failed: its restarts are used up (last failure: RuntimeException: boom); ");
        assertThat(JobStates.explain("FAILED", ran, Optional.of(new RootCause("JobException: Recovery is suppressed by "
                + "NoRestartBackoffTimeStrategy", "RuntimeException: boom"))))
                .startsWith("failed: restarts are off, so its first failure ended it (RuntimeException: boom); ");
        assertThat(JobStates.explain("FAILED", ran, Optional.of(new RootCause("RuntimeException: boom",
                "RuntimeException: boom")))).startsWith("failed: RuntimeException: boom; ");
        assertThat(JobStates.explain("FAILING", ran, Optional.empty()))
                .startsWith("failed (Flink has recorded no exception for it); ");
        assertThat(JobStates.explain("FAILED")).as("why unknown: no reason made up").startsWith("failed; ");
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
