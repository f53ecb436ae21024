package io.tierroute.deploy.local;

import static io.tierroute.deploy.local.FlinkRestClientSlotsTest.captured;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The root cause {@code submit} reports for a job that does not run, from {@code GET /jobs/<id>/exceptions} of a real
 * Flink 2.2.1 session cluster: a job of parallelism 2 on one free slot, restarting (each attempt a
 * NoResourceAvailableException under two CompletionExceptions), then FAILED once its restarts were used up.
 */
class RootCauseTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NO_SLOT = "NoResourceAvailableException: Could not acquire the minimum required resources.";

    @Test
    void aFailedJobsInnermostCauseUnderTheLineFlinkReportsItUnder() throws Exception {
        RootCause c = RootCause.of(captured("exceptions-no-resource-failed.json")).orElseThrow();
        assertThat(c.exceptionClass()).isEqualTo("NoResourceAvailableException");
        assertThat(c.innermost()).isEqualTo(NO_SLOT);
        assertThat(c.first()).isEqualTo("JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy("
                + "maxNumberRestartAttempts=2, backoffTimeMS=2000)");
        assertThat(c.toString()).isEqualTo(NO_SLOT + " (Flink reports it under " + c.first() + ")");
    }

    @Test
    void wrappersThatOnlyRepeatTheCauseAreLeftOut() throws Exception {
        RootCause c = RootCause.of(captured("exceptions-no-resource-restarting.json")).orElseThrow();
        assertThat(c.first()).isEqualTo("CompletionException: CompletionException: " + NO_SLOT);
        assertThat(c.toString()).isEqualTo(NO_SLOT);
    }

    @Test
    void noExceptionYetIsNoneAndAnOlderFlinksRootExceptionIsRead() throws Exception {
        // what the waiting job's answer was before its first slot request failed
        assertThat(RootCause.of(JSON.readTree("{\"exceptionHistory\":{\"entries\":[],\"truncated\":false}}"))).isEmpty();
        assertThat(RootCause.of(JSON.readTree("{\"root-exception\":\"java.lang.IllegalStateException: boom\\n\\tat a.B.c"
                + "(B.java:1)\\n\",\"exceptionHistory\":{\"entries\":[]}}")))
                .contains(new RootCause("IllegalStateException: boom", "IllegalStateException: boom"));
    }

    @Test
    void aJobNotRunningSaysWhatItsTasksWaitForAndWhy() throws Exception {
        FlinkRestClient.JobDetails waiting = FlinkRestClient.jobDetails(captured("job-waiting-for-slots.json"));
        String id = "dd2ddce9ca33bb6b7b22e8b10579ec6e";
        assertThat(FlinkRestClient.notRunning(id, waiting, Duration.ofSeconds(30), Optional.empty())).isEqualTo("job " + id
                + " (c) is RUNNING, not fully running after 30 s (0 of 13 tasks running, 13 waiting for a task slot); "
                + "Flink has recorded no exception for it");
        FlinkRestClient.JobDetails failed = new FlinkRestClient.JobDetails("c", "FAILED", waiting.vertexStates(),
                waiting.tasks(), 2);
        assertThat(FlinkRestClient.notRunning(id, failed, null, RootCause.of(captured("exceptions-no-resource-failed.json"))))
                .startsWith("job " + id + " (c) is FAILED; root cause: " + NO_SLOT + " (Flink reports it under JobException: ");
    }
}
