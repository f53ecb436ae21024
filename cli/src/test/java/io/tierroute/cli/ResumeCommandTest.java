package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.WriterIdentity;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The job arguments a resume line carries besides the job's published parameters: its {@code --parallelism}, state
 * backend and checkpoint interval as Flink shows them (the values below are those of answers captured from a real Flink
 * 2.2.1 cluster, deploy's {@code src/test/resources/flink/checkpoints-config-*.json}), and that the line's job arguments
 * parse back to the job's settings. cluster/ResumeLineClusterTest runs the printed lines on a real 1-slot cluster.
 */
class ResumeCommandTest {

    private static final Map<String, String> FITTING = Map.of(WriterIdentity.ROLE, WriterIdentity.FITTING_JOB,
            WriterIdentity.BOOTSTRAP_SERVERS, "k:9092", WriterIdentity.JOB_NAME, "fit-rocks",
            WriterIdentity.GROUP_ID, "fit-rocks", WriterIdentity.TRANSACTIONAL_ID_PREFIX, "fit-rocks");

    @Test
    void theStateBackendAndCheckpointIntervalGoWhenNotTheDefaults() {
        // a job run with --state-backend rocksdb --checkpoint-interval 3s, and one with the defaults
        assertThat(ResumeCommand.checkpointArguments(new FlinkRestClient.CheckpointConfig(3000, "EmbeddedRocksDBStateBackend")))
                .containsExactly("--state-backend", "rocksdb", "--checkpoint-interval", "3s");
        assertThat(ResumeCommand.checkpointArguments(new FlinkRestClient.CheckpointConfig(500, "HashMapStateBackend")))
                .isEmpty();
        // a backend the job's flag does not set, or none shown: left out
        assertThat(ResumeCommand.checkpointArguments(new FlinkRestClient.CheckpointConfig(500, "ForStStateBackend")))
                .isEmpty();
        assertThat(ResumeCommand.checkpointArguments(new FlinkRestClient.CheckpointConfig(-1, ""))).isEmpty();
        // an interval the job would refuse with the default --transaction-timeout (10 min), which Flink does not show
        assertThat(ResumeCommand.checkpointArguments(new FlinkRestClient.CheckpointConfig(600_000, "HashMapStateBackend")))
                .isEmpty();
        assertThat(ResumeCommand.checkpointArguments(new FlinkRestClient.CheckpointConfig(599_999, "HashMapStateBackend")))
                .containsExactly("--checkpoint-interval", "599999ms");
        assertThat(List.of(ResumeCommand.duration(120_000), ResumeCommand.duration(1000), ResumeCommand.duration(1500),
                ResumeCommand.duration(250))).containsExactly("2m", "1s", "1500ms", "250ms");
    }

    @Test
    void theLinesJobArgumentsParseBackToTheJobsSettings() {
        List<String> arguments = List.of("--parallelism", "3", "--state-backend", "rocksdb", "--checkpoint-interval", "90s");
        String line = ResumeCommand.of(URI.create("http://f:8081"), FITTING, arguments, "/sp/savepoint-1", "");
        assertThat(line).isEqualTo("tierroute submit --flink http://f:8081 --bootstrap k:9092 --from-savepoint "
                + "/sp/savepoint-1 -- --job-name fit-rocks --group-id fit-rocks --transactional-id-prefix fit-rocks "
                + "--parallelism 3 --state-backend rocksdb --checkpoint-interval 90s");
        List<String> jobArgs = Arrays.asList(line.substring(line.indexOf(" -- ") + 4).split(" "));
        JobSettings resumed = JobSettings.parse(jobArgs.toArray(String[]::new));
        assertThat(resumed.parallelism()).isEqualTo(3);
        assertThat(resumed.stateBackend()).isEqualTo("rocksdb");
        assertThat(resumed.checkpointInterval()).isEqualTo(Duration.ofSeconds(90));
        assertThat(resumed.jobName()).isEqualTo("fit-rocks");
        // only the parallelism known: the published parameters, then it
        assertThat(ResumeCommand.of(URI.create("http://f:8081"), Map.of(WriterIdentity.JOB_NAME, "fit"),
                List.of("--parallelism", "1"), "/sp/2", "")).endsWith("--from-savepoint /sp/2 -- --job-name fit --parallelism 1");
    }

    @Test
    void whatCannotBeReadIsLeftOut() {
        // nothing listens there: the checkpoint settings cannot be read, the parallelism from the job's config stays
        FlinkRestClient nowhere = new FlinkRestClient(URI.create("http://127.0.0.1:" + LoopbackPorts.free()),
                Duration.ofSeconds(2));
        assertThat(ResumeCommand.jobArguments(nowhere, "00000000000000000000000000000001",
                new FlinkRestClient.JobConfig(FITTING, OptionalInt.of(1)))).containsExactly("--parallelism", "1");
        assertThat(ResumeCommand.jobArguments(nowhere, "00000000000000000000000000000001",
                new FlinkRestClient.JobConfig(FITTING, OptionalInt.empty()))).isEmpty();
        // an INITIALIZING job's placeholder (no parameters, parallelism 1 whatever the job set), another application's
        // job, a config that could not be read: no arguments, rather than a parallelism that may not be the job's
        assertThat(ResumeCommand.jobArguments(nowhere, "00000000000000000000000000000001",
                new FlinkRestClient.JobConfig(Map.of(), OptionalInt.of(1)))).isEmpty();
        assertThat(ResumeCommand.jobArguments(nowhere, "00000000000000000000000000000001",
                new FlinkRestClient.JobConfig(Map.of("app", "x"), OptionalInt.of(4)))).isEmpty();
        assertThat(ResumeCommand.jobArguments(nowhere, "00000000000000000000000000000001", ResumeCommand.UNKNOWN))
                .isEmpty();
        assertThat(ResumeCommand.of(URI.create("http://f:8081"), Map.of(), List.of(), "/sp/savepoint-1", ""))
                .isEqualTo("tierroute submit --flink http://f:8081 --bootstrap HOST:PORT --from-savepoint /sp/savepoint-1");
    }
}
