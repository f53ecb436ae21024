package io.tierroute.selector.kafka;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import java.util.concurrent.TimeUnit;

/**
 * The {@link ParameterLoader}'s line per swap. The swaps an operator wants to see (the first, a pin, an unpin, a
 * rollback, a jump, the first after a reset) are logged at INFO; routine ones (the next version, unpinned, no control
 * record since the last swap) at DEBUG, and at most one INFO a minute, which says how many there were: a snapshot a
 * second would be 86,400 lines a day. Used by the loader's thread only.
 */
final class SwapLog {

    private static final Logger log = LoggerFactory.getLogger(ParameterLoader.class); // the loader's lines, its logger

    /** At most one INFO line a minute for routine swaps. */
    static final long ROUTINE_SWAP_LOG_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final String scope;
    private long controlSequence;      // the served scope's control sequence at the last swap
    private long routineSwapsUnlogged; // routine swaps since the last INFO line about one
    private long routineSwapLoggedNanos = System.nanoTime() - ROUTINE_SWAP_LOG_NANOS;

    SwapLog(String scope) {
        this.scope = scope;
    }

    /**
     * The served scope now at {@code version}, was {@code was} (0: none applied before).
     *
     * @param afterReset      the first swap from the topics as they are after a history reset
     * @param pinned          whether the scope is pinned now
     * @param controlSequence the scope's control sequence now: a control record since the last swap makes it no routine
     * @return the level the line was logged at
     */
    Level swapped(long version, long was, boolean afterReset, boolean pinned, long controlSequence, long tookNanos) {
        boolean routine = was != 0 && version == was + 1 && !pinned && !afterReset
                && controlSequence == this.controlSequence;
        this.controlSequence = controlSequence;
        String line = "params loader: scope '{}' now at version {} (was {}{}), swapped in {} µs{}";
        String why = afterReset ? ", from the topics as they are after the reset" : pinned ? ", pinned" : "";
        if (!routine) {
            log.info(line, scope, version, was, why, tookNanos / 1000, "");
            return Level.INFO;
        }
        routineSwapsUnlogged++;
        long now = System.nanoTime();
        if (now - routineSwapLoggedNanos >= ROUTINE_SWAP_LOG_NANOS) {
            log.info(line, scope, version, was, why, tookNanos / 1000, "; " + routineSwapsUnlogged + " routine swap(s) "
                    + "since the last such line (the others at DEBUG)");
            routineSwapsUnlogged = 0;
            routineSwapLoggedNanos = now;
            return Level.INFO;
        }
        log.debug(line, scope, version, was, why, tookNanos / 1000, "");
        return Level.DEBUG;
    }
}
