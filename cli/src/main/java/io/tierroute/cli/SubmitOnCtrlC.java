package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.schemas.Topics;

import java.io.PrintWriter;
import java.time.Duration;

/**
 * Ctrl-C (or SIGTERM) during {@code submit}'s upload and run request, which Flink cannot be asked to undo: a shutdown
 * hook, in place from before the upload until the check for racing submits has kept the job, that deletes the uploaded
 * jar (29 MB that would stay in the cluster's {@code /jars}; best effort, a few seconds at most) and says what may have
 * started: during that check, the job, which runs on unjudged, and what to check and cancel. Without it the JVM ended
 * silently, with a job perhaps running and never named. As {@code cluster up}'s hook, it is removed when the phase ends
 * without a signal.
 */
final class SubmitOnCtrlC implements AutoCloseable {

    /** How long the hook waits for Flink to delete the jar: the JVM exits only after it. */
    static final Duration DELETE_TIMEOUT = Duration.ofSeconds(3);

    private final FlinkRestClient rest;
    private final PrintWriter err;
    private final Thread hook;
    private String jarId;         // guarded by this
    private boolean runRequested; // guarded by this
    private volatile String jobId;
    private boolean jarDeleted;   // guarded by this
    private boolean stopping;     // guarded by this: the hook has begun; no run request may be sent after it

    /** Thrown to the command when the hook has begun: what the hook said must stay true. */
    static final class Interrupted extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        Interrupted() {
            super("interrupted (Ctrl-C)");
        }
    }

    SubmitOnCtrlC(FlinkRestClient rest, PrintWriter err) {
        this.rest = rest;
        this.err = err;
        this.hook = new Thread(this::onInterrupt, "tierroute-submit-interrupted");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** The upload finished: the cluster holds the jar under {@code id}. */
    synchronized void uploaded(String id) {
        if (stopping) {
            throw new Interrupted();
        }
        jarId = id;
    }

    /**
     * The run request is about to be sent: from now on a job may start. Refused once the hook has begun (hooks run
     * beside the command's thread), so a hook that said "nothing was started" is never contradicted by a job.
     */
    synchronized void runRequested() {
        if (stopping) {
            throw new Interrupted();
        }
        runRequested = true;
    }

    /** Flink answered the run request with the job's id. */
    void started(String id) {
        jobId = id;
    }

    /**
     * Deletes the uploaded jar with {@code client} unless that was done already (by the command or the hook, whichever
     * comes first); null, or why it failed.
     */
    synchronized String deleteJar(FlinkRestClient client) {
        if (jarId == null || jarDeleted) {
            return null;
        }
        try {
            client.deleteJar(jarId);
            jarDeleted = true;
            return null;
        } catch (FlinkRestClient.FlinkRestException e) {
            return e.getMessage();
        }
    }

    /** What the hook does: the jar deleted, then one line on what state things are in. */
    void onInterrupt() {
        String jarId;
        boolean runRequested;
        boolean jarDeleted;
        synchronized (this) { // from here the command can neither record an upload nor send the run request
            stopping = true;
            jarId = this.jarId;
            runRequested = this.runRequested;
            jarDeleted = this.jarDeleted;
        }
        String jarNote = "";
        if (jarId != null && !jarDeleted) { // deleted by the command already: nothing to say about it
            String failed = deleteJar(new FlinkRestClient(rest.base(), DELETE_TIMEOUT));
            jarNote = failed == null ? "; the uploaded jar " + jarId + " is deleted from the cluster"
                    : "; the uploaded jar " + jarId + " could not be deleted (" + failed + "): curl -X DELETE "
                    + rest.base() + "/jars/" + jarId;
        }
        String state;
        if (jobId != null) { // the check for racing submits did not end: no one judged whether it is a second writer
            state = "interrupted after job " + jobId + " was started, before the check for racing submits ended: it "
                    + "runs on, perhaps beside another writer of " + Topics.PARAMS + " that a submit started at the same "
                    + "time; check with 'tierroute cluster status' or the Flink UI at " + rest.base() + ", and if a "
                    + "fitting job started before it writes that topic on the same Kafka, cancel this one (flink cancel "
                    + jobId + ", or " + rest.base() + "/#/job/running/" + jobId + "/overview); else stop it when done "
                    + "with: tierroute submit --flink " + rest.base() + " --savepoint DIR --job-id " + jobId;
        } else if (runRequested) {
            state = "interrupted after the run request was sent: a job may be running; check with 'tierroute cluster "
                    + "status' or the Flink UI at " + rest.base();
        } else if (jarId != null) {
            state = "interrupted after the upload, before the run request: nothing was started";
        } else {
            state = "interrupted during the upload of the job jar: nothing was started (an upload that completed as "
                    + "the command stopped leaves the jar in " + rest.base() + "/jars)";
        }
        err.println("tierroute submit: " + state + jarNote);
        err.flush();
    }

    /** The phase is over without a signal: the hook is removed (during a shutdown it runs, or ran). */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs
        }
    }
}
