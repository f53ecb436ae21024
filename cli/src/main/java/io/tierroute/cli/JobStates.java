package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient.JobDetails;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;
import io.tierroute.deploy.local.RootCause;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
        return explain(state, "failed");
    }

    /**
     * As {@link #explain(String)}, a failed job's line with why it failed, from what Flink shows of it: {@code details}
     * ({@code GET /jobs/<id>}) and {@code cause}, the newest entry of its exception history.
     */
    static String explain(String state, JobDetails details, Optional<RootCause> cause) {
        return explain(state, failed(details, cause));
    }

    private static String explain(String state, String failed) {
        String meanwhile = "no snapshot is published meanwhile; selectors keep serving the last accepted one";
        return switch (state) {
            case "RESTARTING" -> "restarting with no task slot to run on (its TaskManager is gone); " + meanwhile;
            case "RUNNING" -> "listed as running, but the cluster has no task slot (its TaskManager is gone): it runs "
                    + "nowhere; " + meanwhile;
            case "FAILING", "FAILED" -> failed + "; " + meanwhile;
            case "SUSPENDED" -> "suspended: the JobManager lost its leadership; " + meanwhile;
            default -> state;
        };
    }

    private static String failed(JobDetails details, Optional<RootCause> cause) {
        return failed(!details.vertexStates().isEmpty(), cause);
    }

    /**
     * Why a job failed, from its newest exception: {@code ran} false for a job Flink refused while initialising it (e.g.
     * {@code --from-savepoint} of a path that is not there: the submission's HTTP 400; no vertex), which never ran and
     * has no restarts to use up. A job that ran fails for good when its restart strategy gives up, which Flink reports
     * as "Recovery is suppressed by ..." (by NoRestartBackoffTimeStrategy when restarts are off: then it had none to use
     * up).
     */
    static String failed(boolean ran, Optional<RootCause> cause) {
        String none = "Flink has recorded no exception for it";
        if (!ran) {
            return "failed before it ran: Flink could not start it (" + cause.map(RootCause::innermost).orElse(none) + ")";
        }
        if (cause.isPresent() && cause.get().first().contains("Recovery is suppressed by NoRestartBackoffTimeStrategy")) {
            return "failed: restarts are off, so its first failure ended it (" + cause.get().innermost() + ")";
        }
        if (cause.isPresent() && cause.get().first().contains("Recovery is suppressed")) {
            return "failed: its restarts are used up (last failure: " + cause.get().innermost() + ")";
        }
        return cause.map(c -> "failed: " + c.innermost()).orElse("failed (" + none + ")");
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
