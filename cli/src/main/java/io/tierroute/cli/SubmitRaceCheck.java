package io.tierroute.cli;

import io.tierroute.cli.SingleWriterGuard.Candidate;
import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@link SubmitRace} against the cluster, right after submit's job was started: list the jobs, read the settings of
 * those ranked before ours, and keep ours, or cancel it and fail naming the job that stays. A job it cannot read
 * within the wait is a refusal, as in the check before the upload.
 */
final class SubmitRaceCheck {

    private static final long POLL_MS = 250;

    private SubmitRaceCheck() {}

    /** Returns when {@code ownId} may run on; else cancels it and throws IllegalStateException saying why. */
    static void keepOrCancel(FlinkRestClient rest, String ownId, Candidate c, Set<String> ignored, Duration wait) {
        String url = rest.base().toString();
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            List<JobSummary> listed = rest.jobs();
            Optional<JobSummary> own = listed.stream().filter(j -> j.id().equals(ownId)).findFirst();
            String waitingFor;
            if (own.isEmpty()) {
                waitingFor = "the cluster did not list job " + ownId + " (" + c.name() + ") after starting it";
            } else {
                // only jobs ranked before ours count: read no one else's settings
                List<JobSummary> earlier = listed.stream().filter(j -> SubmitRace.before(j, own.get())).toList();
                SubmitRace.Verdict v = SubmitRace.verdict(own.get(), LiveJobs.read(rest, earlier), c, ignored, url);
                if (v instanceof SubmitRace.Keep) {
                    return;
                }
                if (v instanceof SubmitRace.Yield y) {
                    throw new IllegalStateException(cancel(rest, ownId, wait) + ", since a job started before it: "
                            + y.to().why() + " (submits that raced: the job that started first stays)");
                }
                waitingFor = ((SubmitRace.Wait) v).on().why();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(cancel(rest, ownId, wait) + ": within " + wait.toSeconds()
                        + " s it could not be told whether another writer started first: " + waitingFor);
            }
            sleep();
        }
    }

    /** Cancels {@code id} and waits (at most {@code wait}) until it has ended; says what became of it. */
    private static String cancel(FlinkRestClient rest, String id, Duration wait) {
        try {
            rest.cancel(id);
            long deadline = System.nanoTime() + wait.toNanos();
            String state = rest.jobState(id);
            while (SingleWriterGuard.alive(new JobSummary(id, "", state)) && System.nanoTime() < deadline) {
                sleep();
                state = rest.jobState(id);
            }
            return SingleWriterGuard.alive(new JobSummary(id, "", state))
                    ? "job " + id + ", just submitted, is being cancelled again (" + state + ")"
                    : "job " + id + ", just submitted, was cancelled again";
        } catch (FlinkRestClient.FlinkRestException e) {
            return "job " + id + ", just submitted, must be cancelled but cancelling it failed (" + e.getMessage()
                    + "; cancel it in the web UI " + rest.base() + "/#/job/running/" + id + "/overview)";
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(POLL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
