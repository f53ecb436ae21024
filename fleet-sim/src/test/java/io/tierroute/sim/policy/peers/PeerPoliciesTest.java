package io.tierroute.sim.policy.peers;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.PolicyRegistry;
import io.tierroute.sim.policy.PolicySetup;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.WorkerTelemetry;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class PeerPoliciesTest {

    static final List<String> PEERS = List.of("sglang-cache-aware", "sglang-cache-aware-rust", "dynamo", "dynamo-2025",
            "dynamo-approx", "llmd-precise", "llmd-approx", "llmd-tiered-cpu");

    @Test
    void registersEveryPeerUnderItsNameWithAVersion() {
        PolicyRegistry registry = new PolicyRegistry();
        TestFleet fleet = TestFleet.of(4);
        for (String name : PEERS) {
            RoutingPolicy p = registry.create(name, new PolicySetup(fleet, 1, null));
            assertThat(p.name()).isEqualTo(name);
            assertThat(p.version()).isNotBlank().isNotEqualTo("baseline");
        }
        assertThat(registry.create("llmd-precise", new PolicySetup(fleet, 1, null)).telemetryPeriodMicros())
                .isEqualTo(50_000);
    }

    @Test
    void sameSeedSameDecisionsForEveryPeer() {
        PolicyRegistry registry = new PolicyRegistry();
        for (String name : PEERS) {
            long seed = 42;
            List<Integer> a = drive(registry.create(name, new PolicySetup(TestFleet.of(4), seed, null)), seed);
            List<Integer> b = drive(registry.create(name, new PolicySetup(TestFleet.of(4), seed, null)), seed);
            assertThat(a).as("%s, seed %d", name, seed).isEqualTo(b);
            assertThat(a.stream().distinct().count()).as("%s uses more than one worker", name).isGreaterThan(1);
        }
    }

    /**
     * A small closed-loop driver: 400 requests from 20 prefix groups, each finishing 8 arrivals later,
     * with Stored events for what the policy routed and telemetry every 50 ms reporting its queue.
     */
    static List<Integer> drive(RoutingPolicy p, long seed) {
        TestFleet fleet = TestFleet.of(4);
        SplittableRandom random = new SplittableRandom(seed);
        List<Integer> picks = new ArrayList<>();
        ArrayDeque<Object[]> inFlight = new ArrayDeque<>();
        int[] load = new int[4];
        long now = 0;
        long nextTelemetry = 0;
        for (int i = 0; i < 400; i++) {
            now += 10_000 + random.nextInt(20_000);
            while (nextTelemetry <= now) {
                for (int w = 0; w < 4; w++) {
                    p.onTelemetry(new WorkerTelemetry(w, nextTelemetry, load[w], 0, Math.min(1, load[w] / 10.0), 0,
                            1000, 0, new long[Tier.COUNT], 50_000, new double[Tier.COUNT]));
                }
                nextTelemetry += p.telemetryPeriodMicros();
            }
            long group = random.nextInt(20) * 1_000_000L;
            long[] prefix = TestFleet.chain(group, 8 + random.nextInt(8));
            long[] hashes = new long[prefix.length + 4];
            System.arraycopy(prefix, 0, hashes, 0, prefix.length);
            for (int k = prefix.length; k < hashes.length; k++) {
                hashes[k] = random.nextLong();
            }
            SimRequest r = fleet.request("r" + i, now, 5, hashes);
            int w = p.route(r, fleet, now);
            picks.add(w);
            p.onRouted(r, w, now);
            load[w]++;
            p.onKvEvent(new KvEvent.Stored(w, Tier.HBM, false, 0, hashes), now);
            p.onFirstToken(r, w, now);
            inFlight.add(new Object[] {r, w});
            if (inFlight.size() > 8) {
                Object[] done = inFlight.poll();
                load[(Integer) done[1]]--;
                p.onFinished((SimRequest) done[0], (Integer) done[1], 10, now);
            }
        }
        return picks;
    }
}
