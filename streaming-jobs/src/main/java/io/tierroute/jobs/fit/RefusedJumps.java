package io.tierroute.jobs.fit;

import io.tierroute.fitter.snapshot.GateResult;
import io.tierroute.fitter.snapshot.JumpWatch;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;

/**
 * The jumps the gate refused for the current scope, each as first seen, over {@link ScopeFitFunction}'s
 * {@code refusedJumps} map state (parameter label → {@link RefusedJump}): what {@link JumpWatch} needs to accept a jump
 * that persists over enough new rows. Rewritten after every gate run.
 */
final class RefusedJumps {
    private final MapState<String, RefusedJump> state;

    RefusedJumps(MapState<String, RefusedJump> state) {
        this.state = state;
    }

    /** The jumps refused so far, as first seen. */
    JumpWatch watch() throws Exception {
        Map<String, JumpWatch.Seen> seen = new HashMap<>();
        for (Map.Entry<String, RefusedJump> e : state.entries()) {
            seen.put(e.getKey(), e.getValue().seen());
        }
        return new JumpWatch(seen);
    }

    /** Keeps the jumps {@code result} refused, each as first seen; forgets the others. */
    void keepAfter(GateResult result) throws Exception {
        JumpWatch next = watch().after(result);
        state.clear();
        for (Map.Entry<String, JumpWatch.Seen> e : next.seen().entrySet()) {
            state.put(e.getKey(), RefusedJump.of(e.getValue()));
        }
    }
}
