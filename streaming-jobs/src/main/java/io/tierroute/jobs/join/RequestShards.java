package io.tierroute.jobs.join;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * The join's key: a shard of the request ids, not the request id itself, so that one event-time timer
 * per shard and clean-up bucket replaces one timer registered and deleted per request
 * ({@link RequestJoinFunction}). Both sides of a request land in the same shard.
 */
public final class RequestShards {
    /**
     * Shards: as many as Flink's default key groups (max parallelism 128), so every subtask of any
     * parallelism up to that gets some; more would only add clean-up timers (about 16 per shard).
     */
    public static final int COUNT = 128;

    private RequestShards() {}

    public static int of(String requestId) {
        return Math.floorMod(requestId.hashCode(), COUNT);
    }

    /** Shard of a decision's request id. */
    public static final class OfDecision implements KeySelector<DecisionRow, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer getKey(DecisionRow d) {
            return of(d.requestId);
        }
    }

    /** Shard of a completion's request id. */
    public static final class OfCompletion implements KeySelector<CompletionRow, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer getKey(CompletionRow c) {
            return of(c.requestId);
        }
    }
}
