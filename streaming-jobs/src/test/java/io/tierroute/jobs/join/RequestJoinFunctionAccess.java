package io.tierroute.jobs.join;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;

/** Test access to the join's row building from other packages. */
public final class RequestJoinFunctionAccess {
    private RequestJoinFunctionAccess() {}

    public static JoinedRow join(DecisionRow d, CompletionRow c) {
        return RequestJoinFunction.join(d, c);
    }
}
