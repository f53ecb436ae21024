package io.tierroute.selector.scheduling;

import io.tierroute.selector.sequences.PrefixMarks;

import java.util.List;
import java.util.Objects;

/**
 * A request one selector replica admitted, as the other replicas take it into their load ({@link ReplicaOutbox}):
 * what its {@code InFlightTracker} was given, and what its workflow and tool affinities learnt.
 *
 * @param requestId             the request's id
 * @param worker                the worker it was sent to (dense index of this selector's registry)
 * @param promptTokens          ISL
 * @param predictedOutputTokens {@code d̂(r)}
 * @param prefillTokens         {@code p_eff}: the prompt tokens the worker computes
 * @param tierTokens            tokens it loads from each slower tier (per tier ordinal), or null; copied
 * @param marks                 its prompt's prefix marks ({@link PrefixMarks#NONE} when the sender kept none)
 * @param workflowId            its agent workflow, or null
 * @param expectedNextTools     the tools its agent said it calls next (empty when none)
 */
public record ReplicaAdmission(String requestId, int worker, int promptTokens, int predictedOutputTokens,
                               long prefillTokens, long[] tierTokens, PrefixMarks marks, String workflowId,
                               List<String> expectedNextTools) {

    public ReplicaAdmission {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(marks, "marks");
        expectedNextTools = List.copyOf(expectedNextTools);
        // A copy: the selector hands the route thread's scratch array, which its next attempt rewrites while this
        // admission waits to be sent.
        tierTokens = tierTokens == null ? null : tierTokens.clone();
        if (tierTokens != null && tierTokens.length != io.tierroute.selector.protocol.Tier.COUNT) {
            throw new IllegalArgumentException("tierTokens has " + tierTokens.length + " entries; expected "
                    + io.tierroute.selector.protocol.Tier.COUNT);
        }
        if (worker < 0 || promptTokens < 0 || predictedOutputTokens < 0 || prefillTokens < 0) {
            throw new IllegalArgumentException("worker, prompt, output and prefill tokens must be >= 0, got " + worker
                    + ", " + promptTokens + ", " + predictedOutputTokens + " and " + prefillTokens);
        }
        // As a route bounds them (RouteRequest): beyond, the decode work's quadratic would overflow.
        if (promptTokens > RouteRequest.MAX_INPUT_TOKENS || predictedOutputTokens > RouteRequest.MAX_INPUT_TOKENS) {
            throw new IllegalArgumentException("prompt and output tokens must be at most " + RouteRequest.MAX_INPUT_TOKENS
                    + ", got " + promptTokens + " and " + predictedOutputTokens);
        }
        // Each tier's count within the prompt, and their plain sum too: the cost model adds a worker's queued tier
        // tokens to a link's segment, so one huge count (beside zeros) overflowed to a negative price that won every
        // route loading from that tier until the request expired.
        long loaded = 0;
        for (int t = 0; tierTokens != null && t < tierTokens.length; t++) {
            if (tierTokens[t] < 0 || tierTokens[t] > promptTokens) {
                throw new IllegalArgumentException("tierTokens[" + t + "] must be 0 to the prompt's " + promptTokens
                        + " tokens, got " + tierTokens[t]);
            }
            loaded += tierTokens[t]; // each ≤ 10^7: no overflow
        }
        if (prefillTokens > promptTokens || loaded > promptTokens) {
            throw new IllegalArgumentException("prefill tokens (" + prefillTokens + ") and tier tokens (" + loaded
                    + " in all) must each be at most the prompt's " + promptTokens);
        }
    }
}
