package io.tierroute.sim.policy.tierroute;

import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.sim.policy.SimRequest;

/** A simulated request as the selector's route input: what a gateway would send for it. */
public final class SimRouteRequests {

    private SimRouteRequests() {}

    /**
     * The request's trace block ids (no tokens or text), prompt length, output budget and, for an agent's step, its
     * workflow, step, expected output and next tools; {@code explain} asks for every candidate's terms.
     */
    public static RouteRequest of(SimRequest r, boolean explain) {
        SimRequest.Agent a = r.agent();
        RouteRequest.AgentContext agent = a == null ? null
                : new RouteRequest.AgentContext(a.workflowId(), Integer.toString(a.step()), a.expectedNextTools());
        return new RouteRequest(r.id(), null, null, null, null, r.blockIds(), null, r.promptTokens(), r.maxTokens(),
                a == null ? null : a.expectedOutputTokens(), agent, explain);
    }
}
