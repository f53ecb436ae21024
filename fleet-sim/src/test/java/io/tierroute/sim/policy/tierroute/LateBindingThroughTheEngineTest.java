package io.tierroute.sim.policy.tierroute;

import io.tierroute.selector.params.ParameterSet;
import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.engine.SimResult;
import io.tierroute.sim.engine.Simulation;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The selector's late binding ({@code holdAtWaiting}, {@link TierroutePolicy#HOLD_AT_WAITING}) through the real
 * engine: while the worker has a request waiting for its first token, later ones wait in the selector's admission
 * queue, and the cheapest of them is bound first.
 */
class LateBindingThroughTheEngineTest {

    private final EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).cpuCapacityTokens(0).build();
    private final RequestFactory f = new RequestFactory(cfg.model(), 16);

    private SimRequest request(String id, long arrivalMicros, int tokens, long firstBlock) {
        long[] ids = new long[tokens / 16];
        for (int b = 0; b < ids.length; b++) {
            ids[b] = firstBlock + b;
        }
        return f.request(id, arrivalMicros, tokens, ids, 8, 8, null);
    }

    private static Completion byId(SimResult r, String id) {
        return r.completions().stream().filter(c -> c.request().id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void theWarmUpFitLearnsFromTheEnginesTtftNotTheRoutersHold() {
        List<SimRequest> rs = List.of(request("first", 0, 4000, 0), request("held", 100, 160, 20_000));
        Simulation sim = new Simulation(cfg, rs);
        TierroutePolicy probe = new TierroutePolicy("tierroute-test", sim.fleetView(), 7, ParameterSet.defaults(1), 0,
                true, false);
        SimResult r = sim.run(probe, null);

        Completion held = byId(r, "held");
        assertThat(held.heldMicros()).as("held until first's first token").isPositive();
        assertThat(TierrouteFitting.observation(probe.recordedDecision("held"), held).realisedUs())
                .isEqualTo((double) held.engineTtftMicros())
                .isLessThan(held.ttftMicros());
    }

    @Test
    void whileTheWorkerWaitsTheCheapestHeldRequestIsBoundFirstThoughItCameLast() {
        // first, then a long prompt and a short one while first is still prefilling.
        List<SimRequest> rs = List.of(request("first", 0, 4000, 0), request("long", 100, 12_000, 10_000),
                request("short", 200, 160, 20_000));
        Simulation sim = new Simulation(cfg, rs);
        TierroutePolicy policy = new TierroutePolicy("tierroute-test", sim.fleetView(), 7, ParameterSet.defaults(1), 0,
                false, false);
        SimResult r = sim.run(policy, null);

        assertThat(r.completions()).hasSize(3);
        assertThat(r.rejected()).isZero();
        Completion first = byId(r, "first");
        Completion shortOne = byId(r, "short");
        Completion longOne = byId(r, "long");
        long firstToken = first.request().arrivalMicros() + first.ttftMicros();
        // Held until first's first token: neither reached the engine's queue before it.
        assertThat(shortOne.request().arrivalMicros() + shortOne.queueWaitMicros()).isGreaterThanOrEqualTo(firstToken);
        assertThat(longOne.request().arrivalMicros() + longOne.queueWaitMicros()).isGreaterThanOrEqualTo(firstToken);
        // Cheapest first: the short prompt's first token comes before the long one's, which waited for it.
        assertThat(shortOne.request().arrivalMicros() + shortOne.ttftMicros())
                .isLessThan(longOne.request().arrivalMicros() + longOne.ttftMicros());
        assertThat(longOne.request().arrivalMicros() + longOne.queueWaitMicros())
                .isGreaterThanOrEqualTo(shortOne.request().arrivalMicros() + shortOne.ttftMicros());
    }
}
