package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Where a fitting job that stopped or stops can resume from, for {@code cluster status} and {@code cluster down}: its
 * newest completed checkpoint; else the checkpoint or savepoint it was restored from ({@code latest.restored}: a
 * resubmission with {@code --from-savepoint} that failed before completing a checkpoint of its own); else the same of
 * the earlier jobs of its name, newest first (a failed job, resubmitted afresh, whose resubmission failed too). Only
 * the newest job of a name counted before, so such a job was said to have nothing to resume from, and {@code down}
 * recorded nothing, while the earlier job's checkpoint was still there.
 *
 * @param path   the checkpoint or savepoint, as Flink names it
 * @param source null for the job's own newest checkpoint, else what the path is, for the line that prints it
 */
record ResumePoint(String path, String source) {

    /** {@code job}'s resume point, looking at the other {@code jobs} Flink lists when it has none of its own. */
    static Optional<ResumePoint> of(FlinkRestClient rest, JobSummary job, List<JobSummary> jobs) {
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
                .sorted(Comparator.comparingLong(JobSummary::startTime).reversed())
                .toList();
        for (JobSummary e : earlier) {
            String which = "job " + e.id() + " (" + e.state() + "), an earlier job of that name";
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
}
