package io.tierroute.sim.policy.tierroute;

import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.engine.SimResult;
import io.tierroute.sim.engine.Simulation;
import io.tierroute.sim.policy.PolicyRegistry;
import io.tierroute.sim.policy.PolicySetup;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tierroute-2-replicas} through the real engine: two selectors take the requests in turn, each hears every KV
 * event and telemetry sample and only its own requests' events, and both route with {@code tierroute-fitted}'s
 * parameters.
 */
class ReplicatedTierrouteTest {

    private static final int WORKERS = 4;
    private final EngineConfig cfg = EngineConfig.builder().workers(WORKERS).blockSize(16).hbmCapacityTokens(65_536).build();
    private final RequestFactory f = new RequestFactory(cfg.model(), 16);

    /** 120 requests on four 2,000-token prefixes, 20 ms apart. */
    private List<SimRequest> requests() {
        List<SimRequest> rs = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            long[] ids = new long[125];
            for (int b = 0; b < ids.length; b++) {
                ids[b] = (i % 4) * 1000L + b;
            }
            rs.add(f.request("r" + i, i * 20_000L, 2000, ids, 64, 64, null));
        }
        return rs;
    }

    private PolicySetup setup(Simulation sim) {
        return new PolicySetup(sim.fleetView(), 7, p -> new Simulation(cfg, requests()).run(p, null).completions());
    }

    @Test
    void theReplicasTakeTheRequestsInTurnAndEachHearsOnlyItsOwn() {
        Simulation sim = new Simulation(cfg, requests());
        ReplicatedTierroute policy = (ReplicatedTierroute) new PolicyRegistry()
                .create(TierroutePolicy.TWO_REPLICAS_NAME, setup(sim));
        SimResult result = sim.run(policy, null);

        assertThat(result.completions()).hasSize(120);
        assertThat(policy.replicas()).hasSize(2);
        for (TierroutePolicy replica : policy.replicas()) {
            assertThat(replica.selector().routedCount()).as("every other request").isEqualTo(60);
            assertThat(replica.selector().inflight().size()).as("each finish reached the replica that routed it")
                    .isZero();
            assertThat(((RunPrefixIndex) replica.selector().index()).blockCount()).as("every replica hears KV events")
                    .isPositive();
        }
        assertThat(((RunPrefixIndex) policy.replicas().get(0).selector().index()).blockCount())
                .isEqualTo(((RunPrefixIndex) policy.replicas().get(1).selector().index()).blockCount());
    }

    @Test
    void theReplicasRouteWithTheFittedPolicysParameters() {
        Simulation sim = new Simulation(cfg, requests());
        PolicyRegistry registry = new PolicyRegistry();
        TierroutePolicy fitted = (TierroutePolicy) registry.create(TierroutePolicy.FITTED_NAME, setup(sim));
        ReplicatedTierroute replicated = (ReplicatedTierroute) registry.create(TierroutePolicy.TWO_REPLICAS_NAME,
                setup(sim));
        for (TierroutePolicy replica : replicated.replicas()) {
            assertThat(replica.selector().parameters().current().cost())
                    .isEqualTo(fitted.selector().parameters().current().cost());
        }
        assertThat(replicated.name()).isEqualTo("tierroute-2-replicas");
        assertThat(replicated.version()).startsWith("2 replicas of tierroute ");
    }
}
