package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient.JobSummary;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** What a Flink job state means for an operator of the fitting job (states of Flink's {@code JobStatus}). */
final class JobStates {

    private JobStates() {
    }

    /**
     * A job that publishes nothing and will not by itself: failing, failed or suspended, or running or restarting
     * with no task slot in the cluster (its TaskManager gone: Flink lists such a job as RUNNING until its tasks are
     * found lost, which took over 90 s on a job without input; a restart with slots is an ordinary recovery).
     */
    static boolean halted(String state, int slotsTotal) {
        return switch (state) {
            case "FAILING", "FAILED", "SUSPENDED" -> true;
            case "RUNNING", "RESTARTING" -> slotsTotal == 0;
            default -> false;
        };
    }

    /** One line on a {@link #halted} state: what it means and what the selectors serve meanwhile. */
    static String explain(String state) {
        String meanwhile = "no snapshot is published meanwhile; selectors keep serving the last accepted one";
        return switch (state) {
            case "RESTARTING" -> "restarting with no task slot to run on (its TaskManager is gone); " + meanwhile;
            case "RUNNING" -> "listed as running, but the cluster has no task slot (its TaskManager is gone): it runs "
                    + "nowhere; " + meanwhile;
            case "FAILING", "FAILED" -> "failed: its restarts are used up; " + meanwhile;
            case "SUSPENDED" -> "suspended: the JobManager lost its leadership; " + meanwhile;
            default -> state;
        };
    }

    /**
     * The ids of the jobs that are the newest of their name: Flink lists ended jobs for an hour, and a failed job an
     * operator has since resubmitted is history, not something to resume.
     */
    static Set<String> newestOfTheirName(List<JobSummary> jobs) {
        Map<String, JobSummary> newest = new HashMap<>();
        for (JobSummary j : jobs) {
            newest.merge(j.name(), j, (a, b) -> b.startTime() > a.startTime() ? b : a);
        }
        return newest.values().stream().map(JobSummary::id).collect(Collectors.toSet());
    }
}
