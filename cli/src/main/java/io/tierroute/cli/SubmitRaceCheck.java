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
 * within the wait is a refusal, as in the check before the upload; so is a cluster that does not answer (a REST
 * error is polled through until the wait ends: leaving the job running unjudged could leave two writers).
 */
final class SubmitRaceCheck {

    private static final long POLL_MS = SubmitRace.CONFIRM_NANOS / 1_000_000;

    private SubmitRaceCheck() {}

    /** Returns when {@code ownId} may run on; else cancels it and throws IllegalStateException saying why. */
    static void keepOrCancel(FlinkRestClient rest, String ownId, Candidate c, Set<String> ignored, Duration wait) {
        String url = rest.base().toString();
        long deadline = System.nanoTime() + wait.toNanos();
        Long ownListed = null; // when a listing first showed ours: a Keep counts only from a later one
        while (true) {
            long sent = System.nanoTime();
            String waitingFor;
            SubmitRace.Verdict v = null;
            try {
                List<JobSummary> listed = rest.jobs();
                Optional<JobSummary> own = listed.stream().filter(j -> j.id().equals(ownId)).findFirst();
                if (own.isEmpty()) {
                    waitingFor = "the cluster did not list job " + ownId + " (" + c.name() + ") after starting it";
                } else {
                    if (ownListed == null) {
                        ownListed = System.nanoTime();
                    }
                    // only live rivals ranked before ours count: read no one else's settings
                    List<JobSummary> earlier = listed.stream().filter(j -> SubmitRace.rival(j, own.get())).toList();
                    v = SubmitRace.verdict(own.get(), LiveJobs.read(rest, earlier), c, ignored, url);
                    waitingFor = v instanceof SubmitRace.Wait w ? w.on().why()
                            : "a second listing to confirm that no job started before it (a racer listed late)";
                }
            } catch (FlinkRestClient.FlinkRestException e) {
                waitingFor = "the cluster's REST API failed: " + e.getMessage();
            }
            if (v instanceof SubmitRace.Keep && SubmitRace.confirmed(ownListed, sent)) {
                return;
            }
            if (v instanceof SubmitRace.Yield y) {
                throw new IllegalStateException(cancel(rest, ownId, wait) + ", since a job started before it: "
                        + y.to().why() + " (submits that raced: the job that started first stays)");
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(cancel(rest, ownId, wait) + ": within " + wait.toSeconds()
                        + " s it could not be told whether another writer started first: " + waitingFor);
            }
            sleep();
        }
    }

    /**
     * Cancels {@code id} (retrying a failed request) and waits until it has ended, all within {@code wait}; says what
     * became of it. A cancel that never got through says so, naming the job to cancel by hand.
     */
    static String cancel(FlinkRestClient rest, String id, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        String byHand = "cancel it by hand: flink cancel " + id + ", or the web UI " + rest.base() + "/#/job/running/"
                + id + "/overview";
        while (true) {
            try {
                rest.cancel(id);
                break;
            } catch (FlinkRestClient.FlinkRestException e) {
                if (System.nanoTime() > deadline) {
                    return "job " + id + ", just submitted, must be cancelled but cancelling it failed ("
                            + e.getMessage() + "); it may still run as a second writer: " + byHand;
                }
            }
            sleep();
        }
        String state;
        while (true) {
            try {
                state = rest.jobState(id);
                if (!SingleWriterGuard.alive(new JobSummary(id, "", state))) {
                    return "job " + id + ", just submitted, was cancelled again";
                }
            } catch (FlinkRestClient.FlinkRestException e) {
                state = "its state unknown: " + e.getMessage();
            }
            if (System.nanoTime() > deadline) {
                return "job " + id + ", just submitted, is being cancelled again (" + state + "; if it does not end, "
                        + byHand + ")";
            }
            sleep();
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
