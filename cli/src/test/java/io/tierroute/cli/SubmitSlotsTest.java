package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.FlinkRestClient.JobDetails;
import io.tierroute.deploy.local.FlinkRestClient.JobNotRunningException;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;
import io.tierroute.deploy.local.RootCause;
import io.tierroute.deploy.local.TaskManagerSlots;
import io.tierroute.jobs.JobSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What {@code submit} decides from the cluster's slots before an upload (cluster/SubmitSlotsClusterTest runs it on a
 * real cluster): the slots the job's arguments need, a cluster with fewer in total (refused whatever the flags) or
 * fewer free (named by the jobs holding them), and the submit line of {@code cluster up} on a cluster too small for
 * the job's default parallelism.
 */
class SubmitSlotsTest {

    private static final String A = "0123456789abcdef0123456789abcdef";
    private static final String B = "fedcba9876543210fedcba9876543210";

    @Test
    void moreThanTheClusterHasIsATotalShortageNamingItsTaskManagers() {
        var one = List.of(new TaskManagerSlots("tm-1", 2, 2, Map.of()));
        SubmitSlots.Shortage s = SubmitSlots.shortage(3, one, List.of()).orElseThrow();
        assertThat(s.total()).isTrue();
        assertThat(s.text()).isEqualTo("the job needs 3 task slots (its --parallelism; its operators share slots); the "
                + "cluster has 2 slots in total (1 TaskManager × 2); lower --parallelism (after --) or start more TaskManagers");
        assertThat(s.refusal()).isEqualTo(s.text() + " (a cluster that starts them on demand: pass --no-slot-check)");
        assertThat(SubmitSlots.layout(List.of(new TaskManagerSlots("a", 4, 0, Map.of()), new TaskManagerSlots("b", 4, 4,
                Map.of())))).isEqualTo("2 TaskManagers × 4");
        assertThat(SubmitSlots.layout(List.of(new TaskManagerSlots("a", 2, 0, Map.of()), new TaskManagerSlots("b", 1, 1,
                Map.of())))).isEqualTo("2 TaskManagers: 2 + 1");
        // Flink's native Kubernetes or a YARN session: no TaskManager until a job asks for slots
        SubmitSlots.Shortage none = SubmitSlots.shortage(1, List.of(), List.of()).orElseThrow();
        assertThat(none.total()).isTrue();
        assertThat(none.text()).isEqualTo("the job needs 1 task slot (its --parallelism; its operators share slots); the "
                + "cluster has 0 slots in total (no TaskManager registered); start TaskManagers");
        assertThat(none.refusal()).isEqualTo("the job needs 1 task slot (its --parallelism; its operators share slots); the "
                + "cluster has 0 slots in total (no TaskManager registered): a cluster that starts TaskManagers on demand "
                + "(Flink's native Kubernetes, a YARN session)? pass --no-slot-check; else start TaskManagers");
    }

    @Test
    void fewerFreeThanNeededNamesTheJobsHoldingTheOthers() {
        var tms = List.of(new TaskManagerSlots("tm-1", 2, 0, Map.of(A, 1, B, 1)), new TaskManagerSlots("tm-2", 2, 1,
                Map.of(A, 1)));
        var jobs = List.of(new JobSummary(A, "other-app", "RUNNING"));
        SubmitSlots.Shortage s = SubmitSlots.shortage(2, tms, jobs).orElseThrow();
        assertThat(s.total()).isFalse();
        assertThat(s.text()).startsWith("the job needs 2 task slots (its --parallelism; its operators share slots); 1 of "
                        + "the cluster's 4 slots is free: ")
                .contains("job " + A + " 'other-app' (RUNNING) holds 2", "job " + B + " holds 1"); // B not listed (yet)
        assertThat(s.refusal()).isEqualTo(s.text() + "; wait until they are free, lower --parallelism (after --), or pass "
                + "--wait-for-slots to submit anyway and wait up to --wait for them");
        assertThat(SubmitSlots.shortage(1, tms, jobs)).isEmpty();
        assertThat(SubmitSlots.shortage(2, List.of(new TaskManagerSlots("tm-1", 2, 1, Map.of())), jobs).orElseThrow()
                .text()).endsWith("free: no job holds the others (a TaskManager may be releasing them)");
    }

    @Test
    void clusterUpsNextStepLowersTheParallelismToASmallClustersSlots() {
        URI flink = URI.create("http://127.0.0.1:8081");
        assertThat(ClusterCommand.nextStep(flink, "127.0.0.1:9092", "", 1))
                .isEqualTo("tierroute submit --flink http://127.0.0.1:8081 --bootstrap 127.0.0.1:9092 -- --parallelism 1");
        assertThat(ClusterCommand.nextStep(flink, "127.0.0.1:9092", "", 2))
                .isEqualTo("tierroute submit --flink http://127.0.0.1:8081 --bootstrap 127.0.0.1:9092");
    }

    @Test
    void aClusterThatCannotBeReadIsAWarningAndTheSubmitGoesOn() {
        // a real failed call: nothing listens on port 1 (as a TaskManager that left answers 404, a FlinkRestException)
        FlinkRestClient rest = new FlinkRestClient(URI.create("http://127.0.0.1:1"), Duration.ofSeconds(5));
        StringWriter err = new StringWriter();
        assertThat(SubmitSlots.readOrWarn(rest, 2, new PrintWriter(err, true))).isEmpty();
        assertThat(err.toString().strip()).doesNotContain("\n")
                .startsWith("tierroute submit: warning: could not check the cluster's task slots (cannot reach the Flink "
                        + "cluster at http://127.0.0.1:1 (GET /overview): connection refused")
                .endsWith("); submitting without that check");
    }

    /** A job that failed, or did not run within --wait (tasks {@code tasks}), for {@code innermost}. */
    private static JobNotRunningException notRunning(String state, Map<String, Integer> tasks, String innermost) {
        JobDetails d = new JobDetails("fit", state, List.of("CREATED"), tasks, 2);
        Optional<RootCause> cause = innermost == null ? Optional.empty()
                : Optional.of(new RootCause("JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy("
                + "maxNumberRestartAttempts=20, backoffTimeMS=2000)", innermost));
        return new JobNotRunningException("job x (fit) is " + state, d, cause);
    }

    @Test
    void theShortageLineIsForAJobShortOfSlotsOnly() {
        String noSlot = "NoResourceAvailableException: Could not acquire the minimum required resources.";
        assertThat(SubmitSlots.shortOfSlots(notRunning("FAILED", Map.of("FAILED", 1, "CANCELED", 12), noSlot))).isTrue();
        assertThat(SubmitSlots.shortOfSlots(notRunning("RUNNING", Map.of("SCHEDULED", 13), null)))
                .as("waiting for slots, no exception yet").isTrue();
        assertThat(SubmitSlots.shortOfSlots(notRunning("RESTARTING", Map.of("RUNNING", 3, "SCHEDULED", 2),
                "TimeoutException: Timeout of 60000ms expired before the position for partition tierroute.decisions-0 "
                        + "could be determined"))).as("some tasks wait for a slot").isTrue();
        // a job that failed on Kafka while other jobs hold slots: not "needs N slots"
        JobNotRunningException kafka = notRunning("FAILED", Map.of("FAILED", 1, "CANCELED", 12),
                "TimeoutException: Timeout expired after 60000ms while awaiting InitProducerId");
        assertThat(SubmitSlots.shortOfSlots(kafka)).isFalse();
        assertThat(SubmitSlots.shortOfSlots(notRunning("RUNNING", Map.of("RUNNING", 7, "DEPLOYING", 6), null))).isFalse();
        FlinkRestClient down = new FlinkRestClient(URI.create("http://127.0.0.1:1"), Duration.ofSeconds(5));
        assertThat(SubmitSlots.afterFailure(down, "x", 2, kafka)).isEmpty();
        assertThat(SubmitSlots.afterFailure(down, "x", 2,
                new FlinkRestClient.FlinkRestException("GET /jobs/x failed: HTTP 500", null))).isEmpty();
    }

    @Test
    void progressSaysWhatTheJobNeedsOnceFlinkListsItsVertices() {
        FlinkRestClient.Overview o = new FlinkRestClient.Overview(1, 2, 1, 1, "2.2.1");
        assertThat(SubmitSlots.progress(5, new JobDetails("fit", "RUNNING", List.of("CREATED", "CREATED"),
                Map.of("SCHEDULED", 3, "RUNNING", 0), 2), o))
                .isEqualTo("  5 s: job RUNNING, 0 of 3 tasks running, 3 waiting for a task slot; 1 of 2 slots free, it needs 2");
        assertThat(SubmitSlots.progress(10, new JobDetails("fit", "INITIALIZING", List.of(), Map.of(), 0), o))
                .isEqualTo("  10 s: job INITIALIZING, 0 of 0 tasks running; 1 of 2 slots free");
    }

    @Test
    void helpNamesTheSkipFlagAndTheJobsOwnDefaultParallelism() {
        StringWriter out = new StringWriter();
        assertThat(TierrouteCommand.execute(new String[] {"submit", "--help"}, new PrintWriter(out, true),
                new PrintWriter(new StringWriter(), true))).isZero();
        String help = out.toString().replaceAll("\\s+", " ");
        assertThat(help).contains("its operators share slots; default " + JobSettings.builder().build().parallelism()
                        + ")", "--no-slot-check Submit without first comparing the task slots")
                .doesNotContain(SubmitCommand.JOB_PARALLELISM);

        StringWriter err = new StringWriter();
        assertThat(TierrouteCommand.execute(new String[] {"submit", "--flink", "http://127.0.0.1:1", "--savepoint", "/tmp",
                "--no-slot-check"}, new PrintWriter(new StringWriter(), true), new PrintWriter(err, true))).isEqualTo(2);
        assertThat(err.toString()).startsWith("--savepoint stops a job; it takes no").contains("--no-slot-check");
    }
}
