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
        assertThat(policy.tracked()).isZero();
    }

    @Test
    void heldAndRefusedRequestsAreForgottenByTheReplicaThatTookThem() {
        // A burst of 40 distinct 2,000-token prompts 1 ms apart (late binding holds them while every worker has one of
        // the replica's requests waiting), and two prompts no worker's KV cache can hold (refused at once).
        List<SimRequest> rs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            long[] ids = new long[125];
            for (int b = 0; b < ids.length; b++) {
                ids[b] = 100_000L * (i + 1) + b;
            }
            rs.add(f.request("b" + i, i * 1_000L, 2000, ids, 64, 64, null));
        }
        for (int i = 0; i < 2; i++) {
            long[] ids = new long[4_200];
            for (int b = 0; b < ids.length; b++) {
                ids[b] = 9_000_000L * (i + 1) + b;
            }
            rs.add(f.request("huge" + i, 50_000L + i, 67_200, ids, 64, 64, null));
        }
        Simulation sim = new Simulation(cfg, rs);
        ReplicatedTierroute policy = (ReplicatedTierroute) new PolicyRegistry()
                .create(TierroutePolicy.TWO_REPLICAS_NAME, setup(sim));
        SimResult result = sim.run(policy, null);

        assertThat(result.completions()).hasSize(40);
        assertThat(result.rejected()).isEqualTo(2);
        for (TierroutePolicy replica : policy.replicas()) {
            assertThat(replica.selector().queuedCount()).as("held by late binding").isPositive();
            assertThat(replica.selector().rejectedCount()).as("one prompt too large each").isEqualTo(1);
            assertThat(replica.selector().inflight().size()).isZero();
            assertThat(replica.selector().inflight().ownKvAccounting()).as("one of two: telemetry's KV base").isFalse();
            assertThat(replica.selector().settings().ownKvAccounting()).isFalse();
        }
        assertThat(policy.tracked()).as("nothing left of the refused or the held").isZero();
    }

    @Test
    void overTheDirectPathFewerEventsArriveBeforeTheirAdmission() {
        long[] parked = new long[2];
        String[] names = {TierroutePolicy.TWO_SYNCED_REPLICAS_NAME, TierroutePolicy.TWO_DIRECT_REPLICAS_NAME};
        for (int k = 0; k < 2; k++) {
            Simulation sim = new Simulation(cfg, requests());
            ReplicatedTierroute policy = (ReplicatedTierroute) new PolicyRegistry().create(names[k], setup(sim));
            assertThat(sim.run(policy, null).completions()).hasSize(120);
            parked[k] = policy.syncs().get(0).eventsParked() + policy.syncs().get(1).eventsParked();
        }
        assertThat(TierroutePolicy.DIRECT_SYNC_DELAY_MICROS).isLessThan(TierroutePolicy.SYNC_DELAY_MICROS);
        assertThat(parked[1]).as("2 ms late instead of 25: fewer events posted before their admission is heard")
                .isLessThan(parked[0]);
    }

    @Test
    void syncedReplicasHearEachOthersRequestsAndEventsPostedToEither() {
        Simulation sim = new Simulation(cfg, requests());
        ReplicatedTierroute policy = (ReplicatedTierroute) new PolicyRegistry()
                .create(TierroutePolicy.TWO_SYNCED_REPLICAS_NAME, setup(sim));
        SimResult result = sim.run(policy, null);

        assertThat(result.completions()).hasSize(120);
        assertThat(policy.syncs()).hasSize(2);
        assertThat(policy.replicas().get(0).selector().inflight().size() + policy.replicas().get(1).selector()
                .inflight().size()).as("at most the last finish is still on its way to the other replica")
                .isLessThanOrEqualTo(1);
        policy.deliverUpTo(result.completions().stream().mapToLong(c -> c.finishMicros()).max().orElseThrow()
                + TierroutePolicy.SYNC_DELAY_MICROS);
        for (int i = 0; i < 2; i++) {
            TierroutePolicy replica = policy.replicas().get(i);
            var sync = policy.syncs().get(i);
            assertThat(replica.selector().routedCount()).isEqualTo(60);
            assertThat(sync.admissionsSent()).as("each admission told").isEqualTo(60);
            assertThat(sync.admissionsApplied()).as("each of the other's admissions heard").isEqualTo(60);
            assertThat(sync.eventsParked()).as("events posted here before the other's admission arrived").isPositive();
            assertThat(sync.pendingEvents()).as("every parked event met its admission").isZero();
            assertThat(sync.unmatchedEvents()).isZero();
            assertThat(replica.selector().inflight().size()).as("every finish reached both replicas").isZero();
            assertThat(replica.selector().inflight().ownKvAccounting()).as("synced: the fleet's whole demand").isTrue();
        }
        assertThat(policy.syncs().get(0).eventsSent() + policy.syncs().get(1).eventsSent())
                .as("each request's events, posted to the replicas in turn").isGreaterThanOrEqualTo(240);
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
