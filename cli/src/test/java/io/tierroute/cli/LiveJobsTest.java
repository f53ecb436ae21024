package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.cli.SingleWriterGuard.Candidate;
import io.tierroute.cli.SingleWriterGuard.LiveJob;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * How one live job's REST answers become what the guard judges. Flink 2.2 answers a job that is INITIALIZING (after a
 * submission, a JobManager failover, while it restores a savepoint) from a sparse placeholder: a default execution
 * config with an empty {@code user-config} and no vertices (FlinkRestClientConfigTest has its JSON). Read at face
 * value that is "another application's job", and a second writer would pass.
 */
class LiveJobsTest {

    private static final Candidate FIT_B = new Candidate("fit-b", "tierroute.params", "127.0.0.1:9092");
    private static final Supplier<List<String>> NOT_ASKED = () -> {
        throw new AssertionError("the vertices must not be read when the parameters tell");
    };

    @Test
    void anInitializingJobIsUnreadableWhateverItsPlaceholderShows() {
        LiveJob j = LiveJobs.judge(new JobSummary("abc", "fit-a", "INITIALIZING"), () -> Optional.of(Map.of()), List::of);
        assertThat(j.unreadable()).contains("INITIALIZING", "retry");
        assertThat(refusal(j)).get().asString().contains("job abc 'fit-a' is INITIALIZING", "pass --ignore-job abc");
    }

    @Test
    void aJobFlinkShowsNoVerticesForIsUnreadable() {
        LiveJob j = LiveJobs.judge(new JobSummary("abc", "fit-a", "RESTARTING"), () -> Optional.of(Map.of()), List::of);
        assertThat(j.unreadable()).contains("no vertices", "RESTARTING");
        assertThat(refusal(j)).isPresent();
        assertThat(LiveJobs.judge(new JobSummary("abc", "fit-a", "RUNNING"), Optional::empty, NOT_ASKED).unreadable())
                .contains("no execution config");
    }

    @Test
    void anotherApplicationsJobIsReadFromItsVerticesAndPasses() {
        LiveJob j = LiveJobs.judge(new JobSummary("w", "wordcount", "RUNNING"), () -> Optional.of(Map.of("input", "x")),
                () -> List.of("Source: lines -> Flat Map", "Sink: counts"));
        assertThat(j.unreadable()).isNull();
        assertThat(refusal(j)).isEmpty();
    }

    @Test
    void aFittingJobsPublishedIdentityIsEnoughAndIsJudgedOnIt() {
        Map<String, String> identity = Map.of("tierroute.role", "fitting-job", "tierroute.params-topic", "tierroute.params",
                "tierroute.bootstrap-servers", "localhost:9092");
        LiveJob j = LiveJobs.judge(new JobSummary("abc", "fit-a", "RUNNING"), () -> Optional.of(identity), NOT_ASKED);
        assertThat(j.fittingJob()).isTrue();
        assertThat(refusal(j)).get().asString().contains("writes tierroute.params on Kafka localhost:9092");
    }

    private static Optional<String> refusal(LiveJob j) {
        return SingleWriterGuard.refusal(List.of(j), FIT_B, Set.of(), "http://127.0.0.1:8081");
    }
}
