package io.tierroute.jobs.fit;

import io.tierroute.fitter.snapshot.ModelReferences;
import io.tierroute.jobs.PublishedParams;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The records on the params topic that carry a quantile model in full, so that a snapshot can refer to one instead of
 * carrying the model again ({@link ModelReferences}): per scope, the active snapshot's carrier and the pending model's
 * while still published, and the last record this run published with a model. The state's carriers are checked against
 * the topic as the job's start read it ({@link PublishedParams}): one a trim had deleted is carried again once, then
 * named. This run's carriers are memory, not state: after a restore each model is carried once more.
 */
final class ForestCarriers {
    /** Newest version per scope on the params topic when the job was started. */
    private final Map<String, Long> newestAtStart;
    /** Per scope, the versions on the params topic then, as ranges ({@link PublishedParams#live}). */
    private final Map<String, long[]> liveAtStart;
    private final HashMap<String, ModelReferences.Carrier> carriedThisRun = new HashMap<>();

    ForestCarriers(Map<String, Long> newestAtStart, Map<String, long[]> liveAtStart) {
        this.newestAtStart = newestAtStart;
        this.liveAtStart = liveAtStart;
    }

    /**
     * Records already published with a model in full and still there: the active snapshot's model's, and the pending
     * model's ({@code pendingCarrier}, the version that published {@code fresh}, or null). One the state names but
     * {@code snapshots trim} deleted before this start (a savepoint older than its window, restored while another run
     * went on publishing) is left out, so the model travels in full again.
     */
    List<ModelReferences.Carrier> known(String scope, ParameterSnapshot active, QuantileForestModel fresh,
                                        Long pendingCarrier) {
        List<ModelReferences.Carrier> known = new ArrayList<>(3);
        ModelReferences.Carrier ofActive = ModelReferences.carrierOf(active);
        if (ofActive != null && stillPublished(scope, ofActive.version())) {
            known.add(ofActive);
        }
        if (fresh != null && pendingCarrier != null && stillPublished(scope, pendingCarrier)) {
            known.add(new ModelReferences.Carrier(pendingCarrier, fresh));
        }
        ModelReferences.Carrier carried = carriedThisRun.get(scope);
        if (carried != null) {
            known.add(carried);
        }
        return known;
    }

    /** This run published {@code model} in full in {@code version} of {@code scope}. */
    void published(String scope, long version, QuantileForestModel model) {
        carriedThisRun.put(scope, new ModelReferences.Carrier(version, model));
    }

    /**
     * Forgets this run's carrier of {@code scope} (its estimators left memory): a carrier the start's topic read shows
     * deleted then travels in full once more, as after a restore.
     */
    void forget(String scope) {
        carriedThisRun.remove(scope);
    }

    private boolean stillPublished(String scope, long version) {
        return PublishedParams.stillPublished(newestAtStart, liveAtStart, scope, version);
    }
}
