package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.cli.SingleWriterGuard.Candidate;
import io.tierroute.cli.SingleWriterGuard.LiveJob;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * submit refuses a second writer of tierroute.params: a live job of the same name, a live fitting job writing the
 * topic on the same Kafka whatever its name, and a live job it cannot judge unless vouched for with --ignore-job.
 */
class SingleWriterGuardTest {

    private static final String URL = "http://127.0.0.1:8081";
    private static final String KAFKA = "127.0.0.1:9092";
    private static final Candidate FIT_B = new Candidate("fit-b", "tierroute.params", KAFKA);
    private static final String[] ALIVE = {"RUNNING", "CREATED", "INITIALIZING", "RESTARTING", "FAILING", "CANCELLING"};

    @Test
    void anAliveJobOfTheSameNameIsRefusedWithTheUpgradePath() {
        for (String state : ALIVE) {
            var why = refusal(FIT_B, Set.of(), LiveJob.read(new JobSummary("abc", "fit-b", state), Map.of(), List.of()));
            assertThat(why).as(state).isPresent();
            assertThat(why.get()).contains("job abc 'fit-b' is " + state, "no second live job of the same name",
                    "tierroute submit --flink " + URL + " --savepoint DIR --job-id abc", "--from-savepoint PATH");
        }
    }

    @Test
    void onlyARunningJobIsToldToTakeASavepointNow() {
        var running = refusal(FIT_B, Set.of(), fitting("abc", "fit-a", "RUNNING", "tierroute.params", KAFKA));
        assertThat(running).get().asString().contains("To upgrade it: tierroute submit --flink " + URL
                + " --savepoint DIR --job-id abc").doesNotContain("wait until");
        // Flink refuses stop-with-savepoint unless the job runs: the others are told to wait first.
        for (String state : new String[] {"CREATED", "INITIALIZING", "RESTARTING", "FAILING", "CANCELLING"}) {
            assertThat(refusal(FIT_B, Set.of(), fitting("abc", "fit-a", state, "tierroute.params", KAFKA))).as(state)
                    .get().asString().contains("To upgrade it: wait until it is RUNNING (then tierroute submit",
                            "or has ended; a " + state + " job takes no savepoint");
        }
    }

    @Test
    void aFittingJobOfAnotherNameWritingTheSameTopicOnTheSameKafkaIsRefused() {
        for (String state : ALIVE) {
            var why = refusal(FIT_B, Set.of(), fitting("abc", "fit-a", state, "tierroute.params", KAFKA));
            assertThat(why).as(state).isPresent();
            assertThat(why.get()).doesNotContain("\n").contains("job abc 'fit-a' is " + state + " on " + URL,
                    "writes tierroute.params on Kafka " + KAFKA, "'fit-b' would be a second writer",
                    "tierroute submit --flink " + URL + " --savepoint DIR --job-id abc", "--from-savepoint PATH");
        }
        // the same brokers spelled otherwise, or one broker in common, are the same Kafka
        for (String bootstrap : new String[] {"localhost:9092", "PLAINTEXT://127.0.0.1:9092", "kafka-1:9092,127.0.0.1:9092"}) {
            assertThat(refusal(FIT_B, Set.of(), fitting("abc", "fit-a", "RUNNING", "tierroute.params", bootstrap)))
                    .as(bootstrap).isPresent();
        }
    }

    @Test
    void aFittingJobWritingTheTopicOnABootstrapWithNoBrokerInCommonIsRefusedUntilVouchedFor() {
        // kafka-0 and kafka-1, or a service name and an IP, may be one cluster: not proof of another Kafka.
        LiveJob elsewhere = fitting("a", "fit-a", "RUNNING", "tierroute.params", "kafka-other:9092");
        assertThat(refusal(FIT_B, Set.of(), elsewhere)).get().asString().doesNotContain("\n").contains(
                "job a 'fit-a' is RUNNING", "writing tierroute.params on Kafka kafka-other:9092, no broker in common with "
                        + KAFKA, "pass --ignore-job a");
        assertThat(refusal(FIT_B, Set.of("a"), elsewhere)).isEmpty();
    }

    @Test
    void aFittingJobOfAnotherTopicAndEndedJobsDoNotCount() {
        assertThat(refusal(FIT_B, Set.of(), fitting("b", "fit-c", "RUNNING", "another.params", KAFKA),
                fitting("c", "fit-d", "FINISHED", "tierroute.params", KAFKA),
                fitting("d", "fit-e", "CANCELED", "tierroute.params", KAFKA),
                LiveJob.unreadable(new JobSummary("e", "fit-b", "FAILED"), "HTTP 500"),
                LiveJob.read(new JobSummary("f", "wordcount", "RUNNING"), Map.of("wordcount.input", "x"),
                        List.of("Source: lines -> Flat Map", "Sink: counts")))).isEmpty();
    }

    @Test
    void aJobWhoseSettingsCannotBeReadIsRefusedUntilItIsVouchedFor() {
        LiveJob initializing = LiveJob.unreadable(new JobSummary("abc", "fit-a", "INITIALIZING"),
                "Flink serves no execution config for it yet;\nretry once it runs");
        var why = refusal(FIT_B, Set.of(), initializing);
        assertThat(why).isPresent();
        assertThat(why.get()).doesNotContain("\n").contains("job abc 'fit-a' is INITIALIZING on " + URL,
                "its settings cannot be read (Flink serves no execution config for it yet; retry once it runs)",
                "may write tierroute.params on Kafka " + KAFKA, "--savepoint DIR --job-id abc", "--from-savepoint PATH",
                "pass --ignore-job abc");
        assertThat(refusal(FIT_B, Set.of("abc"), initializing)).isEmpty();
    }

    @Test
    void aParamsSinkWithoutPublishedSettingsIsAnEarlierFittingJobAndRefused() {
        LiveJob old = LiveJob.read(new JobSummary("abc", "fit-a", "RUNNING"), Map.of(), List.of("Source: telemetry source",
                "fit, gate and publish per scope -> params sink: Writer -> params sink: Committer"));
        assertThat(refusal(FIT_B, Set.of(), old)).get().asString()
                .contains("job abc 'fit-a' is RUNNING", "has a 'params sink' but publishes no tierroute.role",
                        "--ignore-job abc");
        assertThat(refusal(FIT_B, Set.of("abc"), old)).isEmpty();
        // published settings without the topic or Kafka cannot clear a fitting job either
        Map<String, String> partial = Map.of("tierroute.role", "fitting-job", "tierroute.params-topic", "tierroute.params");
        assertThat(refusal(FIT_B, Set.of(), LiveJob.read(new JobSummary("abc", "fit-a", "RUNNING"), partial, List.of())))
                .get().asString().contains("no params topic or Kafka", "--ignore-job abc");
    }

    @Test
    void ignoringAJobNeverLetsASeenWriterOrTheSameNamePass() {
        assertThat(refusal(FIT_B, Set.of("abc"), fitting("abc", "fit-a", "RUNNING", "tierroute.params", KAFKA))).isPresent();
        assertThat(refusal(FIT_B, Set.of("abc"), LiveJob.unreadable(new JobSummary("abc", "fit-b", "RUNNING"), "HTTP 500")))
                .get().asString().contains("job abc 'fit-b' is RUNNING", "no second live job of the same name");
    }

    @Test
    void aSeenWriterIsNamedBeforeAJobThatCannotBeJudged() {
        var why = refusal(FIT_B, Set.of(), LiveJob.unreadable(new JobSummary("x", "other", "RUNNING"), "HTTP 500"),
                fitting("abc", "fit-a", "RUNNING", "tierroute.params", KAFKA));
        assertThat(why).get().asString().startsWith("job abc 'fit-a'");
    }

    @Test
    void theNameComesFromTheJobArgumentsOrTheJobsDefault() {
        assertThat(SingleWriterGuard.jobName(List.of("--parallelism", "1"))).isEqualTo("tierroute-fitting-job");
        assertThat(SingleWriterGuard.jobName(List.of("--job-name", "fit-b"))).isEqualTo("fit-b");
        assertThat(SingleWriterGuard.jobName(List.of("--job-name=fit-c", "--parallelism", "1"))).isEqualTo("fit-c");
    }

    private static Optional<String> refusal(Candidate c, Set<String> ignored, LiveJob... jobs) {
        return SingleWriterGuard.refusal(List.of(jobs), c, ignored, URL);
    }

    /** A fitting job as its published parameters show it (WriterIdentity's keys). */
    private static LiveJob fitting(String id, String name, String state, String topic, String bootstrap) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("tierroute.role", "fitting-job");
        params.put("tierroute.params-topic", topic);
        params.put("tierroute.bootstrap-servers", bootstrap);
        params.put("tierroute.job-name", name);
        params.put("tierroute.group-id", name);
        params.put("tierroute.transactional-id-prefix", name);
        return LiveJob.read(new JobSummary(id, name, state), params, List.of());
    }
}
