package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.local.FlinkRestClient.JobSummary;
import io.tierroute.deploy.local.TaskManagerSlots;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
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
    void theJobNeedsItsParallelismAndArgumentsThatDoNotParseAreTheJobsToReport() {
        assertThat(SubmitSlots.needed(List.of())).hasValue(2); // the job's default
        assertThat(SubmitSlots.needed(List.of("--job-name", "x", "--parallelism", "4"))).hasValue(4);
        assertThat(SubmitSlots.needed(List.of("--parallelism=3"))).hasValue(3);
        assertThat(SubmitSlots.needed(List.of("--parallelism", "0"))).isEqualTo(OptionalInt.empty());
        assertThat(SubmitSlots.needed(List.of("--no-such-flag", "1"))).isEqualTo(OptionalInt.empty());
    }

    @Test
    void moreThanTheClusterHasIsATotalShortageNamingItsTaskManagers() {
        var one = List.of(new TaskManagerSlots("tm-1", 2, 2, Map.of()));
        SubmitSlots.Shortage s = SubmitSlots.shortage(3, one, List.of()).orElseThrow();
        assertThat(s.total()).isTrue();
        assertThat(s.text()).isEqualTo("the job needs 3 task slots (its --parallelism; its operators share slots); the "
                + "cluster has 2 slots in total (1 TaskManager × 2); lower --parallelism (after --) or start more TaskManagers");
        assertThat(SubmitSlots.layout(List.of(new TaskManagerSlots("a", 4, 0, Map.of()), new TaskManagerSlots("b", 4, 4,
                Map.of())))).isEqualTo("2 TaskManagers × 4");
        assertThat(SubmitSlots.layout(List.of(new TaskManagerSlots("a", 2, 0, Map.of()), new TaskManagerSlots("b", 1, 1,
                Map.of())))).isEqualTo("2 TaskManagers: 2 + 1");
        assertThat(SubmitSlots.shortage(1, List.of(), List.of()).orElseThrow().text())
                .contains("the cluster has 0 slots in total (no TaskManager registered)");
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
}
