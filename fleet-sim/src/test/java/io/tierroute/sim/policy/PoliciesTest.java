package io.tierroute.sim.policy;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.engine.SimResult;
import io.tierroute.sim.engine.Simulation;
import io.tierroute.sim.policy.baseline.LeastLoadedPolicy;
import io.tierroute.sim.policy.baseline.RoundRobinPolicy;
import io.tierroute.sim.policy.tierroute.TierroutePolicy;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PoliciesTest {

    private final EngineConfig cfg = EngineConfig.builder().workers(4).blockSize(16).hbmCapacityTokens(16_384).build();
    private final RequestFactory f = new RequestFactory(cfg.model(), 16);
    private final PolicyRegistry registry = new PolicyRegistry();

    private static long[] ids(int n, long base) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = base + i;
        }
        return a;
    }

    private RoutingPolicy create(String name, Simulation sim) {
        return registry.create(name, new PolicySetup(sim.fleetView(), 42, null));
    }

    @Test
    void theRegistryListsEveryFamilyAndRejectsUnknownsAndDuplicates() {
        assertThat(registry.names()).contains("round-robin", "random", "least-loaded", "tierroute-default",
                "tierroute-fitted", "tierroute-gated", "tierroute-claims", "tierroute-2-replicas", "tierroute-2-replicas-synced",
                "oracle", "oracle-ttft");
        assertThatThrownBy(() -> registry.create("nope", null)).hasMessageContaining("known: round-robin");
        assertThatThrownBy(() -> registry.register("oracle", s -> null)).hasMessageContaining("twice");
    }

    @Test
    void roundRobinCyclesAndLeastLoadedFollowsItsOwnCount() {
        Simulation sim = new Simulation(cfg, List.of());
        RoundRobinPolicy rr = new RoundRobinPolicy();
        SimRequest r = f.request("x", 0, 32, ids(2, 0), 8, 8, null);
        assertThat(List.of(rr.route(r, sim.fleetView(), 0), rr.route(r, sim.fleetView(), 0), rr.route(r, sim.fleetView(), 0),
                rr.route(r, sim.fleetView(), 0), rr.route(r, sim.fleetView(), 0))).containsExactly(0, 1, 2, 3, 0);
        LeastLoadedPolicy ll = new LeastLoadedPolicy(4, 1);
        for (int w : new int[] {0, 1, 3}) {
            ll.onRouted(r, w, 0);
        }
        assertThat(ll.route(r, sim.fleetView(), 0)).isEqualTo(2);
        ll.onFinished(r, 3, 1, 0);
        ll.onRouted(r, 2, 0);
        assertThat(ll.route(r, sim.fleetView(), 0)).isEqualTo(3);
    }

    @Test
    void tierrouteSendsARequestToTheWorkerThatHoldsItsPrefix() {
        SimRequest r = f.request("r", 0, 4000, ids(250, 7), 64, 32, null);
        Simulation sim = new Simulation(cfg, List.of(r));
        RoutingPolicy p = create("tierroute-default", sim);
        // Worker 2 reports the first 200 blocks stored in HBM.
        p.onKvEvent(new KvEvent.Stored(2, Tier.HBM, false, 0, java.util.Arrays.copyOf(r.blockHashes(), 200)), 0);
        assertThat(p.route(r, sim.fleetView(), 0)).isEqualTo(2);
    }

    @Test
    void tierroutePrefersTheWarmWorkerThroughTheRealEngineEventsAndHitsItsCache() {
        List<SimRequest> rs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            // 3 prefixes of 1,696 tokens on 4 workers: round robin keeps moving each prefix around
            rs.add(f.request("r" + i, i * 400_000L, 1700, ids(106, (i % 3) * 1000), 16, 16, null));
        }
        SimResult tr = new Simulation(cfg, rs).run(create("tierroute-default", new Simulation(cfg, rs)), null);
        SimResult rr = new Simulation(cfg, rs).run(new RoundRobinPolicy(), null);
        long trHits = tr.completions().stream().mapToLong(c -> c.hitTokens()[0]).sum();
        long rrHits = rr.completions().stream().mapToLong(c -> c.hitTokens()[0]).sum();
        assertThat(trHits).isGreaterThan(rrHits);
        assertThat(trHits).isEqualTo(37L * 1696); // every repeat hits its 106 blocks
        assertThat(rrHits).isEqualTo(28L * 1696); // only once a (worker, prefix) pair recurs
    }

    @Test
    void tierrouteRefusesAPromptNoWorkerCanHoldAndTheSimulatorCountsItRejected() {
        List<SimRequest> rs = List.of(
                f.request("huge", 0, 20_000, ids(1250, 1), 8, 8, null), // HBM holds 16,384 tokens
                f.request("small", 1_000, 1_000, ids(62, 5000), 8, 8, null));
        TierroutePolicy tierroute = (TierroutePolicy) create("tierroute-default", new Simulation(cfg, rs));
        SimResult r = new Simulation(cfg, rs).run(tierroute, null);
        assertThat(r.rejected()).isEqualTo(1);
        assertThat(r.completions()).extracting(c -> c.request().id()).containsExactly("small");
        assertThat(tierroute.selector().rejectedCount()).isEqualTo(1); // the selector refused it, not the engine
    }

    @Test
    void theOracleAvoidsABusyWorkerAndUsesACachedOne() {
        List<SimRequest> rs = new ArrayList<>();
        rs.add(f.request("warm", 0, 4000, ids(250, 1), 8, 8, null));
        rs.add(f.request("again", 5_000_000, 4000, ids(250, 1), 8, 8, null));
        Simulation sim = new Simulation(cfg, rs);
        RoutingPolicy oracle = create("oracle", sim);
        assertThat(oracle.name()).isEqualTo("oracle");
        SimResult r = sim.run(oracle, null);
        Completion warm = r.completions().get(0);
        Completion again = r.completions().get(1);
        assertThat(again.worker()).isEqualTo(warm.worker());
        assertThat(again.hitTokens()[0]).isEqualTo(3984);

        Simulation sim2 = new Simulation(cfg, rs);
        RoutingPolicy ttft = create("oracle-ttft", sim2);
        assertThat(ttft.name()).isEqualTo("oracle-ttft");
        SimResult r2 = sim2.run(ttft, null);
        assertThat(r2.completions().get(1).worker()).isEqualTo(r2.completions().get(0).worker());
    }
}
