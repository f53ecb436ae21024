package io.tierroute.selector.sequences;

import java.util.HashMap;
import java.util.Map;

/**
 * The prompt-prefix KV one worker's running requests hold, each prefix counted once, as the engine holds it: requests
 * that share a prefix (a system prompt, a group's document, a workflow's context) share its blocks in HBM, so
 * {@code KV_used} is not the sum of their contexts. A request is entered by its <em>prefix marks</em>, the chained
 * block hash at the end of every whole granule of its prompt ({@link InFlightRequest#prefixMarks}): a chained hash
 * names its whole prefix, so two requests share exactly the granules whose marks are equal, and the distinct marks
 * here are the distinct prefix granules held. What a request holds beyond its last whole granule (the rest of its
 * prompt, its output) is its own and counted by the caller.
 *
 * <p>Only running requests (with a first token) are entered: an engine matches a cached prefix only once its blocks
 * are computed or loaded (DESIGN.md §6), so requests that wait beside one another each need the prefix's room. A
 * waiting request counts its whole context even where a running one already holds its prefix, which the engine would
 * share: entering every request from its admission on lost agentic-pcie's p99, and so did that middle way (its holder
 * may release the prefix before the waiting request is admitted; fleet-sim/experiments/ROUNDS.md, "Shared-KV round"). Not thread-safe: its {@link WorkerLoad}'s lock guards it.
 */
final class SharedPrefixKv {

    private final Map<Long, Integer> holders = new HashMap<>(); // mark -> running requests holding its granule
    private long tokens;

    /** {@code r} runs here: its granules are held (once, whoever else holds them). */
    void enter(InFlightRequest r) {
        for (long mark : r.prefixMarks.marks()) {
            if (holders.merge(mark, 1, Integer::sum) == 1) {
                tokens += r.prefixMarks.tokensEach();
            }
        }
    }

    /** {@code r} no longer runs here: the granules no other running request holds are freed. */
    void leave(InFlightRequest r) {
        for (long mark : r.prefixMarks.marks()) {
            Integer n = holders.get(mark);
            if (n == null) {
                throw new IllegalStateException("prefix mark of " + r.id + " was never entered");
            }
            if (n == 1) {
                holders.remove(mark);
                tokens -= r.prefixMarks.tokensEach();
            } else {
                holders.put(mark, n - 1);
            }
        }
    }

    /** Prompt-prefix tokens held by the running requests entered, each granule once. */
    long tokens() {
        return tokens;
    }
}
