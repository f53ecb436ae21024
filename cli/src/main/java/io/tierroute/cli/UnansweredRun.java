package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.FlinkRestClient.FlinkRestException;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A run request that got no answer (it timed out, or the connection dropped once made) may still have started the job:
 * Flink runs what it received. Which job that is: the one job of its name the cluster lists that it did not list before
 * the request. {@code submit} carries on with it (the race check, the wait for RUNNING) instead of saying it could not
 * reach the cluster while a writer of {@code tierroute.params} starts unseen.
 */
final class UnansweredRun {
    /** How long the cluster is given to list a job whose run request went unanswered. */
    static final Duration LISTING_WAIT = Duration.ofSeconds(10);

    private UnansweredRun() {}

    /** The ids of the jobs the cluster listed before the run request, to compare with after it. */
    static Set<String> ids(List<JobSummary> listed) {
        return listed.stream().map(JobSummary::id).collect(Collectors.toUnmodifiableSet());
    }

    /**
     * The job {@code unanswered} (the run request's failure) started, when the cluster lists exactly one new job named
     * {@code name} within {@code wait}.
     *
     * @throws FlinkRestException saying a job may be starting, and what to check before submitting again, otherwise
     */
    static String startedJob(FlinkRestClient rest, String name, Set<String> listedBefore, FlinkRestException unanswered,
                             Duration wait) {
        String sent = unanswered.getMessage() + "; the run request was sent, so the job may be starting on the cluster";
        String check = ": check 'tierroute cluster status' (or the web UI) before submitting again";
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            List<JobSummary> started;
            try {
                started = rest.jobs().stream()
                        .filter(j -> j.name().equals(name) && !listedBefore.contains(j.id())).toList();
            } catch (FlinkRestException again) {
                throw new FlinkRestException(sent + ", and the cluster cannot list its jobs either (" + again.getMessage()
                        + ")" + check, unanswered);
            }
            if (started.size() == 1) {
                return started.get(0).id();
            }
            if (started.size() > 1) {
                throw new FlinkRestException(sent + ", and it lists " + started.size() + " new jobs named " + name + " ("
                        + started.stream().map(JobSummary::id).collect(Collectors.joining(", "))
                        + "): another submit raced this one" + check, unanswered);
            }
            if (System.nanoTime() > deadline) {
                throw new FlinkRestException(sent + "; it lists no new job named " + name + " after "
                        + wait.toSeconds() + " s" + check, unanswered);
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new FlinkRestException(sent + check, unanswered);
            }
        }
    }
}
