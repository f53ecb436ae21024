package io.tierroute.jobs.fit;

import io.tierroute.jobs.PublishedParams;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.avro.ParameterSnapshot;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * One subtask's share of the active snapshots the params topic held at submission ({@link PublishedParams#active}),
 * still encoded: only the scopes this subtask owns are kept, each decoded when its scope first asks and then dropped,
 * whether it was used or its restored state made it moot.
 */
final class ActiveAtStart {
    private final Map<String, byte[]> encoded = new HashMap<>();

    /** The scopes of {@code all} that Flink's key groups assign to subtask {@code index} of {@code parallelism}. */
    ActiveAtStart(Map<String, byte[]> all, int maxParallelism, int parallelism, int index) {
        all.forEach((scope, bytes) -> {
            if (KeyGroupRangeAssignment.assignKeyToParallelOperator(scope, maxParallelism, parallelism) == index) {
                encoded.put(scope, bytes);
            }
        });
    }

    boolean has(String scope) {
        return encoded.containsKey(scope);
    }

    /** The scope's snapshot, decoded with its model; null when there is none or it was taken. */
    ParameterSnapshot take(String scope) {
        byte[] bytes = encoded.remove(scope);
        return bytes == null ? null : Codecs.PARAMETER_SNAPSHOT.decode(bytes);
    }

    /** Drops the scope's snapshot unread. */
    void drop(String scope) {
        encoded.remove(scope);
    }
}
