package io.tierroute.sim.engine;

import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.tierroute.sim.engine.StepTimeModelTest.ids;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link RoutingPolicy#HOLD}: a policy holds a request and releases it later through its dispatcher. */
class HeldRequestsTest {

    private final EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).cpuCapacityTokens(0).build();
    private final RequestFactory f = new RequestFactory(cfg.model(), 16);

    /** Holds every request after the first and releases the oldest held one, to {@code releaseTo}, at each first token. */
    private static class HoldUntilFirstToken implements RoutingPolicy {
        final List<SimRequest> held = new ArrayList<>();
        final List<Long> firstTokens = new ArrayList<>();
        final int releaseTo;
        Dispatcher dispatcher;
        boolean routedOne;

        HoldUntilFirstToken(int releaseTo) {
            this.releaseTo = releaseTo;
        }

        @Override public String name() { return "hold-until-first-token"; }
        @Override public String version() { return "test"; }
        @Override public void attach(Dispatcher d) { dispatcher = d; }

        @Override
        public int route(SimRequest r, FleetView v, long now) {
            if (!routedOne) {
                routedOne = true;
                return 0;
            }
            held.add(r);
            return HOLD;
        }

        @Override
        public void onFirstToken(SimRequest r, int worker, long now) {
            firstTokens.add(now);
            if (!held.isEmpty()) {
                dispatcher.dispatch(held.remove(0), releaseTo);
            }
        }
    }

    private static Completion byId(SimResult r, String id) {
        return r.completions().stream().filter(c -> c.request().id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void aHeldRequestReachesItsWorkerWhenReleasedAndItsTtftCountsTheHold() {
        SimRequest a = f.request("a", 0, 4000, ids(250, 0), 20, 20, null);
        SimRequest b = f.request("b", 10, 32, ids(2, 1000), 5, 5, null);
        HoldUntilFirstToken policy = new HoldUntilFirstToken(0);
        SimResult r = new Simulation(cfg, List.of(a, b)).run(policy, null);

        assertThat(r.completions()).hasSize(2);
        long aFirst = policy.firstTokens.get(0);
        Completion cb = byId(r, "b");
        // Held from its arrival (10 µs) to a's first token, then it waits for the worker's next step like any arrival.
        assertThat(cb.queueWaitMicros()).isGreaterThanOrEqualTo(aFirst - 10);
        // What the engine's completion log gives (the fitter's view) starts at the delivery, after the hold.
        assertThat(cb.heldMicros()).isEqualTo(aFirst - 10);
        assertThat(cb.engineTtftMicros()).isEqualTo(cb.ttftMicros() - (aFirst - 10));
        assertThat(cb.engineQueueWaitMicros()).isEqualTo(cb.queueWaitMicros() - (aFirst - 10));
        assertThat(byId(r, "a").heldMicros()).isZero();
        assertThat(byId(r, "a").engineTtftMicros()).isEqualTo(byId(r, "a").ttftMicros());
        assertThat(r.rejected()).isZero();
    }

    @Test
    void aHeldRequestReleasedAsRefusedIsCountedRejected() {
        SimRequest a = f.request("a", 0, 64, ids(4, 0), 5, 5, null);
        SimRequest b = f.request("b", 10, 64, ids(4, 100), 5, 5, null);
        SimResult r = new Simulation(cfg, List.of(a, b)).run(new HoldUntilFirstToken(RoutingPolicy.REFUSED), null);
        assertThat(r.completions()).extracting(c -> c.request().id()).containsExactly("a");
        assertThat(r.rejected()).isEqualTo(1);
    }

    @Test
    void aRequestHeldAndNeverReleasedStallsTheRunWithAReason() {
        SimRequest a = f.request("a", 0, 64, ids(4, 0), 5, 5, null);
        SimRequest b = f.request("b", 10, 64, ids(4, 100), 5, 5, null);
        RoutingPolicy never = new HoldUntilFirstToken(0) {
            @Override public void onFirstToken(SimRequest r, int worker, long now) {}
        };
        assertThatThrownBy(() -> new Simulation(cfg, List.of(a, b)).run(never, null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("stalled")
                .hasMessageContaining("1 held by the policy, never released");
    }

    @Test
    void releasingARequestThePolicyDoesNotHoldIsABug() {
        SimRequest a = f.request("a", 0, 64, ids(4, 0), 5, 5, null);
        RoutingPolicy liar = new HoldUntilFirstToken(0) {
            @Override public void onFirstToken(SimRequest r, int worker, long now) { dispatcher.dispatch(r, 0); }
        };
        assertThatThrownBy(() -> new Simulation(cfg, List.of(a)).run(liar, null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("released a, which it does not hold");
    }
}
