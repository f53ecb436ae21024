package io.tierroute.cli;

import io.tierroute.cli.SingleWriterGuard.LiveJob;
import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;
import io.tierroute.jobs.WriterIdentity;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/** The cluster's live jobs with what its REST API tells of each one's writes: the input of {@link SingleWriterGuard}. */
final class LiveJobs {

    private LiveJobs() {}

    /**
     * {@code GET /jobs/overview}, then per live job {@code GET /jobs/<id>/config} and, when its parameters hold no
     * writer identity, {@code GET /jobs/<id>} for its vertices. A failed per-job call makes that job unreadable
     * (the guard then refuses it) rather than failing the whole check; a failed overview fails it.
     */
    static List<LiveJob> read(FlinkRestClient rest) {
        return read(rest, rest.jobs());
    }

    /** {@link #read(FlinkRestClient)} of the given jobs of {@code GET /jobs/overview} only. */
    static List<LiveJob> read(FlinkRestClient rest, List<JobSummary> listed) {
        List<LiveJob> out = new ArrayList<>();
        for (JobSummary j : listed) {
            if (!SingleWriterGuard.alive(j)) {
                continue;
            }
            try {
                out.add(judge(j, () -> rest.userConfig(j.id()), () -> rest.vertexNames(j.id())));
            } catch (FlinkRestClient.FlinkRestException e) {
                out.add(LiveJob.unreadable(j, e.getMessage()));
            }
        }
        return out;
    }

    /**
     * What one live job's REST answers tell: its parameters ({@code config}, read unless the job is INITIALIZING: empty
     * when Flink served no execution config) and, read only when they hold no writer identity, its vertices. A job that is INITIALIZING (after a
     * submission, a JobManager failover or while it restores a savepoint) and any job Flink shows no vertices for is
     * unreadable: Flink 2.2 answers such a job from a sparse placeholder (an empty {@code user-config}, no vertices)
     * that would otherwise pass for another application's job.
     */
    static LiveJob judge(JobSummary j, Supplier<Optional<Map<String, String>>> config, Supplier<List<String>> vertexNames) {
        if (j.state().equals(INITIALIZING)) {
            return LiveJob.unreadable(j, "Flink shows an INITIALIZING job's settings only once it runs; retry then");
        }
        Optional<Map<String, String>> params = config.get();
        if (params.isEmpty()) {
            return LiveJob.unreadable(j, "Flink serves no execution config for it");
        }
        if (params.get().containsKey(WriterIdentity.ROLE)) {
            return LiveJob.read(j, params.get(), List.of());
        }
        List<String> vertices = vertexNames.get();
        if (vertices.isEmpty()) {
            return LiveJob.unreadable(j, "Flink shows no vertices for it while it is " + j.state());
        }
        return LiveJob.read(j, params.get(), vertices);
    }

    private static final String INITIALIZING = "INITIALIZING";
}
