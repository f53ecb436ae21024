package io.tierroute.jobs.join;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.util.MathUtils;

/**
 * The join's key: a shard of the request ids, not the request id itself, so that one event-time timer
 * per shard and clean-up bucket replaces one timer registered and deleted per request
 * ({@link RequestJoinFunction}). Both sides of a request land in the same shard.
 */
public final class RequestShards {
    /**
     * Shards: as many as Flink's default key groups (max parallelism 128 for a parallelism up to 85), so every
     * subtask of any parallelism up to that gets its share; more would only add clean-up timers.
     */
    public static final int COUNT = 128;

    /**
     * The key of shard i: an int that Flink assigns to key group i (of {@link #COUNT}). Shard numbers as keys
     * would not do: Flink hashes a key into its key group, and 128 hashed ints leave some key groups with two
     * or three shards and others with none — one join subtask got 30 % more input than the other in the
     * benchmark. With another max parallelism the keys still work, only less evenly spread.
     */
    private static final Integer[] KEYS = keys();

    private RequestShards() {}

    private static Integer[] keys() {
        Integer[] keys = new Integer[COUNT];
        int found = 0;
        for (int k = 0; found < COUNT; k++) {
            int group = KeyGroupRangeAssignment.assignToKeyGroup(k, COUNT);
            if (keys[group] == null) {
                keys[group] = k;
                found++;
            }
        }
        return keys;
    }

    /**
     * The shard key of a request id: from the top bits of a mixed hash, because a shard's map keys the ids by
     * their own hash's low bits (a shard of equal low bits made long collision chains in its map).
     */
    public static Integer of(String requestId) {
        return KEYS[MathUtils.murmurHash(requestId.hashCode()) >>> 24]; // non-negative: bits 30..24
    }

    /** The shard number, 0 to {@link #COUNT} - 1, of a shard key: the key group it was chosen for. */
    public static int index(Integer key) {
        return KeyGroupRangeAssignment.assignToKeyGroup(key, COUNT);
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
