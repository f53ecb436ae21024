package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.local.FlinkRestClient.JobSummary;
import java.util.List;
import org.junit.jupiter.api.Test;

/** submit refuses a second fitting job while one of the same name is alive on the cluster (/jobs/overview). */
class SingleWriterGuardTest {

    private static final String URL = "http://127.0.0.1:8081";

    @Test
    void anAliveJobOfTheSameNameIsRefusedWithTheUpgradePath() {
        for (String state : new String[] {"RUNNING", "CREATED", "INITIALIZING", "RESTARTING", "FAILING", "CANCELLING"}) {
            var why = SingleWriterGuard.refusal(List.of(new JobSummary("abc", "tierroute-fitting-job", state)),
                    "tierroute-fitting-job", URL);
            assertThat(why).as(state).isPresent();
            assertThat(why.get()).contains("job abc 'tierroute-fitting-job' is " + state,
                    "tierroute submit --flink " + URL + " --savepoint DIR", "--from-savepoint PATH");
        }
    }

    @Test
    void endedJobsAndOtherNamesDoNotCount() {
        List<JobSummary> jobs = List.of(new JobSummary("a", "tierroute-fitting-job", "FINISHED"),
                new JobSummary("b", "tierroute-fitting-job", "CANCELED"), new JobSummary("c", "tierroute-fitting-job", "FAILED"),
                new JobSummary("d", "another-job", "RUNNING"));
        assertThat(SingleWriterGuard.refusal(jobs, "tierroute-fitting-job", URL)).isEmpty();
        assertThat(SingleWriterGuard.refusal(jobs, "another-job", URL)).isPresent();
    }

    @Test
    void theNameComesFromTheJobArgumentsOrTheJobsDefault() {
        assertThat(SingleWriterGuard.jobName(List.of("--parallelism", "1"))).isEqualTo("tierroute-fitting-job");
        assertThat(SingleWriterGuard.jobName(List.of("--job-name", "fit-b"))).isEqualTo("fit-b");
        assertThat(SingleWriterGuard.jobName(List.of("--job-name=fit-c", "--parallelism", "1"))).isEqualTo("fit-c");
    }
}
