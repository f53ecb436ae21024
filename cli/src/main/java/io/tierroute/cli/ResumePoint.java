package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a fitting job that stopped or stops can resume from, for {@code cluster status} and {@code cluster down}: its
 * newest completed checkpoint; else the checkpoint or savepoint it was restored from ({@code latest.restored}: a
 * resubmission with {@code --from-savepoint} that failed before completing a checkpoint of its own); else the same of
 * the earlier jobs of its name, newest first (a failed job, resubmitted afresh, whose resubmission failed too). Only
 * the newest job of a name counted before, so such a job was said to have nothing to resume from, and {@code down}
 * recorded nothing, while the earlier job's checkpoint was still there.
 *
 * <p>An earlier job counts only when it has ended and was submitted as this one: the same published parameters and
 * job arguments, i.e. the same {@link ResumeCommand} line but for the path. A name says nothing of the writer (every
 * fitting job has the default name unless told otherwise): a job for another Kafka or topic, or one still running,
 * would hand this job another writer's state (its version counter and pins), published into this job's Kafka.
 *
 * @param path   the checkpoint or savepoint, as Flink names it
 * @param source null for the job's own newest checkpoint, else what the path is, for the line that prints it
 */
record ResumePoint(String path, String source) {

    /**
     * {@code job}'s resume point, looking at the other {@code jobs} Flink lists when it has none of its own;
     * {@code identity} and {@code arguments} are its published parameters and {@link ResumeCommand#jobArguments}.
     */
    static Optional<ResumePoint> of(FlinkRestClient rest, JobSummary job, Map<String, String> identity,
                                    List<String> arguments, List<JobSummary> jobs) {
        Optional<String> own = rest.latestCheckpointPath(job.id());
        if (own.isPresent()) {
            return Optional.of(new ResumePoint(own.get(), null));
        }
        Optional<String> restored = rest.restoredCheckpointPath(job.id());
        if (restored.isPresent()) {
            return Optional.of(new ResumePoint(restored.get(), "the checkpoint it was restored from; it completed none"));
        }
        List<JobSummary> earlier = jobs.stream()
                .filter(j -> j.name().equals(job.name()) && !j.id().equals(job.id()) && j.startTime() < job.startTime())
                .filter(j -> !SingleWriterGuard.alive(j)) // a live job's checkpoints are its own: not ours to resume
                .sorted(Comparator.comparingLong(JobSummary::startTime).reversed())
                .toList();
        for (JobSummary e : earlier) {
            if (!sameSubmission(rest, e, identity, arguments)) {
                continue;
            }
            String which = "job " + e.id() + " (" + e.state() + "), an earlier job of that name and settings";
            Optional<String> completed = rest.latestCheckpointPath(e.id());
            if (completed.isPresent()) {
                return Optional.of(new ResumePoint(completed.get(), "the last checkpoint of " + which
                        + "; this one completed none"));
            }
            Optional<String> itsRestored = rest.restoredCheckpointPath(e.id());
            if (itsRestored.isPresent()) {
                return Optional.of(new ResumePoint(itsRestored.get(), "the checkpoint " + which
                        + ", was restored from; neither completed one"));
            }
        }
        return Optional.empty();
    }

    /** {@code e} was submitted as the job of {@code identity} and {@code arguments}: unreadable settings are not. */
    private static boolean sameSubmission(FlinkRestClient rest, JobSummary e, Map<String, String> identity,
                                          List<String> arguments) {
        FlinkRestClient.JobConfig config = rest.jobConfig(e.id()).orElse(ResumeCommand.UNKNOWN);
        return !config.userConfig().isEmpty() && config.userConfig().equals(identity)
                && ResumeCommand.jobArguments(rest, e.id(), config).equals(arguments);
    }
}
