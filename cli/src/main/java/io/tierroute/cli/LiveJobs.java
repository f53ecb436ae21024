package io.tierroute.cli;

import io.tierroute.cli.SingleWriterGuard.LiveJob;
import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;
import io.tierroute.jobs.WriterIdentity;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The cluster's live jobs with what its REST API tells of each one's writes: the input of {@link SingleWriterGuard}. */
final class LiveJobs {

    private LiveJobs() {}

    /**
     * {@code GET /jobs/overview}, then per live job {@code GET /jobs/<id>/config} and, when its parameters hold no
     * writer identity, {@code GET /jobs/<id>} for its vertices. A failed per-job call makes that job unreadable
     * (the guard then refuses it) rather than failing the whole check; a failed overview fails it.
     */
    static List<LiveJob> read(FlinkRestClient rest) {
        List<LiveJob> out = new ArrayList<>();
        for (JobSummary j : rest.jobs()) {
            if (!SingleWriterGuard.alive(j)) {
                continue;
            }
            try {
                Optional<Map<String, String>> params = rest.userConfig(j.id());
                if (params.isEmpty()) {
                    out.add(LiveJob.unreadable(j, "Flink serves no execution config for it yet; retry once it runs"));
                } else if (params.get().containsKey(WriterIdentity.ROLE)) {
                    out.add(LiveJob.read(j, params.get(), List.of()));
                } else {
                    out.add(LiveJob.read(j, params.get(), rest.vertexNames(j.id())));
                }
            } catch (FlinkRestClient.FlinkRestException e) {
                out.add(LiveJob.unreadable(j, e.getMessage()));
            }
        }
        return out;
    }
}
