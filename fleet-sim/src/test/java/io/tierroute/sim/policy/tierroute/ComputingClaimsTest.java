package io.tierroute.sim.policy.tierroute;

import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.engine.SimResult;
import io.tierroute.sim.engine.Simulation;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.PolicyRegistry;
import io.tierroute.sim.policy.PolicySetup;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The selector's computing claims through the real engine: a burst of repeats arriving while their prefix is still
 * being computed. Without claims the index shows no holder until the Stored events, so the burst spreads each prefix
 * over several workers, each computing it; with them the repeats follow the worker computing it.
 */
class ComputingClaimsTest {

    private static final int WORKERS = 4;
    private final EngineConfig cfg = EngineConfig.builder().workers(WORKERS).blockSize(16).hbmCapacityTokens(65_536).build();
    private final RequestFactory f = new RequestFactory(cfg.model(), 16);

    /** Three 4,000-token prefixes, eight requests each, 2 ms apart: all routed before any prefill ends. */
    private List<SimRequest> burst() {
        List<SimRequest> rs = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            long[] ids = new long[250];
            for (int b = 0; b < ids.length; b++) {
                ids[b] = (i % 3) * 1000L + b;
            }
            rs.add(f.request("r" + i, i * 2_000L, 4000, ids, 16, 16, null));
        }
        return rs;
    }

    private SimResult run(boolean claims) {
        List<SimRequest> rs = burst();
        Simulation sim = new Simulation(cfg, rs);
        // Prefill at 100 µs/token, so that a 4,000-token hit is worth more than a request in flight costs.
        ParameterSet params = ParameterSet.builder(WORKERS).version(1)
                .cost(CostParameters.builder().alphaP(100).build()).build();
        TierroutePolicy policy = new TierroutePolicy("tierroute-test", sim.fleetView(), 7, params, 0, false, claims);
        return sim.run(policy, null);
    }

    /** Σ over the prefixes of the workers that served it: 3 when each prefix lives on one worker. */
    private static int workersServingEachPrefix(SimResult r) {
        int copies = 0;
        for (int prefix = 0; prefix < 3; prefix++) {
            Set<Integer> workers = new HashSet<>();
            for (Completion c : r.completions()) {
                if (Integer.parseInt(c.request().id().substring(1)) % 3 == prefix) {
                    workers.add(c.worker());
                }
            }
            copies += workers.size();
        }
        return copies;
    }

    private static long computed(SimResult r) {
        return r.completions().stream().mapToLong(Completion::computedTokens).sum();
    }

    @Test
    void repeatsFollowTheWorkerComputingTheirPrefixInsteadOfComputingItAgainElsewhere() {
        SimResult blind = run(false);
        SimResult claimed = run(true);
        assertThat(blind.completions()).hasSize(24);
        assertThat(claimed.completions()).hasSize(24);
        assertThat(workersServingEachPrefix(claimed)).isEqualTo(3);
        assertThat(workersServingEachPrefix(blind)).isGreaterThan(3);
        assertThat(computed(claimed)).isLessThan(computed(blind));
    }

    @Test
    void tierrouteClaimsIsTheFittedPolicyWithClaimsOn() {
        PolicyRegistry registry = new PolicyRegistry();
        Simulation sim = new Simulation(cfg, burst());
        PolicySetup setup = new PolicySetup(sim.fleetView(), 7, p -> new Simulation(cfg, burst()).run(p, null).completions());
        TierroutePolicy claims = (TierroutePolicy) registry.create(TierroutePolicy.CLAIMS_NAME, setup);
        TierroutePolicy fitted = (TierroutePolicy) registry.create(TierroutePolicy.FITTED_NAME, setup);
        assertThat(claims.selector().settings().computingClaims()).isTrue();
        assertThat(fitted.selector().settings().computingClaims()).isFalse();
        assertThat(claims.name()).isEqualTo("tierroute-claims");
    }
}
