package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient.JobSummary;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Whether {@code submit} may start the fitting job: a second job of the same name would share the first's
 * consumer group and transactional-id prefix, and tierroute.params must have a single writer (README).
 */
final class SingleWriterGuard {

    /** Flink's globally terminal job states; every other state (CREATED, RUNNING, RESTARTING ...) is alive. */
    private static final Set<String> ENDED = Set.of("FINISHED", "CANCELED", "FAILED");

    static final String DEFAULT_JOB_NAME = "tierroute-fitting-job";

    private SingleWriterGuard() {}

    /** The job name the job arguments give ({@code --job-name X} or {@code --job-name=X}), else the job's default. */
    static String jobName(List<String> jobArgs) {
        String name = DEFAULT_JOB_NAME;
        for (int i = 0; i < jobArgs.size(); i++) {
            String a = jobArgs.get(i);
            if (a.equals("--job-name") && i + 1 < jobArgs.size()) {
                name = jobArgs.get(++i);
            } else if (a.startsWith("--job-name=")) {
                name = a.substring("--job-name=".length());
            }
        }
        return name;
    }

    /** Why a job named {@code name} must not start next to {@code jobs}, or empty when none of them is alive. */
    static Optional<String> refusal(List<JobSummary> jobs, String name, String flinkUrl) {
        return jobs.stream().filter(j -> j.name().equals(name) && !ENDED.contains(j.state())).findFirst()
                .map(j -> "job " + j.id() + " '" + name + "' is " + j.state() + " on " + flinkUrl + "; a second one would "
                        + "also write tierroute.params with the same group id and transactional ids. To upgrade it: "
                        + "tierroute submit --flink " + flinkUrl + " --savepoint DIR, then submit again with "
                        + "--from-savepoint PATH");
    }
}
