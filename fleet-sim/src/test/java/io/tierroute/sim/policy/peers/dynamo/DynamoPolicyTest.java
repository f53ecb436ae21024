package io.tierroute.sim.policy.peers.dynamo;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.peers.TestFleet;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.tierroute.sim.policy.peers.TestFleet.chain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class DynamoPolicyTest {

    final TestFleet fleet = TestFleet.of(3);

    static KvEvent stored(int w, Tier t, long[] h) {
        return new KvEvent.Stored(w, t, false, 0, h);
    }

    @Test
    void deviceBlocksEarnFullCreditHostBlocksThreeQuarters() {
        DynamoPolicy p = new DynamoPolicy(DynamoConfig.v2026(), 3, 1);
        p.onKvEvent(stored(0, Tier.HBM, chain(100, 10)), 0);
        p.onKvEvent(stored(1, Tier.CPU, chain(100, 10)), 0);
        SimRequest r = fleet.request("r", 1, 0, chain(100, 12));
        int w = p.route(r, fleet, 1);
        // credit 10 vs 7.5 vs 0; prefill 12 − credit; decode 0 active + 12 new
        assertThat(p.lastCredit(0)).isEqualTo(10.0);
        assertThat(p.lastCredit(1)).isEqualTo(7.5);
        assertThat(p.lastLogit(0)).isEqualTo(2 + 12);
        assertThat(p.lastLogit(1)).isEqualTo(4.5 + 12);
        assertThat(p.lastLogit(2)).isEqualTo(12 + 12);
        assertThat(w).isZero();
    }

    @Test
    void diskExtensionContinuesAfterHostAndEarnsAQuarter() {
        DynamoPolicy p = new DynamoPolicy(DynamoConfig.v2026(), 3, 1);
        long[] h = chain(100, 12);
        p.onKvEvent(stored(2, Tier.HBM, java.util.Arrays.copyOfRange(h, 0, 4)), 0);
        p.onKvEvent(stored(2, Tier.CPU, java.util.Arrays.copyOfRange(h, 4, 8)), 0);
        p.onKvEvent(stored(2, Tier.NVME, java.util.Arrays.copyOfRange(h, 8, 12)), 0);
        p.route(fleet.request("r", 1, 0, h), fleet, 1);
        assertThat(p.lastCredit(2)).isEqualTo(4 + 0.75 * 4 + 0.25 * 4);
    }

    @Test
    void dynamo2025GivesHostBlocksNoCredit() {
        DynamoPolicy p = new DynamoPolicy(DynamoConfig.v2025(), 3, 1);
        p.onKvEvent(stored(0, Tier.HBM, chain(100, 10)), 0);
        p.onKvEvent(stored(1, Tier.CPU, chain(100, 10)), 0);
        p.route(fleet.request("r", 1, 0, chain(100, 12)), fleet, 1);
        assertThat(p.lastCredit(1)).isZero();
        assertThat(p.lastLogit(1)).isEqualTo(p.lastLogit(2)).isEqualTo(24);
        // with host credit, the 2026 selector prefers the host-cached worker over the empty one, always
        for (long seed = 0; seed < 20; seed++) {
            DynamoPolicy q = new DynamoPolicy(DynamoConfig.v2026(), 3, seed);
            q.onKvEvent(stored(1, Tier.CPU, chain(100, 10)), 0);
            assertThat(q.route(fleet.request("r", 1, 0, chain(100, 12)), fleet, 1)).isEqualTo(1);
        }
    }

    @Test
    void movedAndRemovedEventsChangeTheCredit() {
        DynamoPolicy p = new DynamoPolicy(DynamoConfig.v2026(), 3, 1);
        long[] h = chain(100, 10);
        p.onKvEvent(stored(0, Tier.HBM, h), 0);
        p.onKvEvent(new KvEvent.Moved(0, Tier.HBM, Tier.CPU, java.util.Arrays.copyOfRange(h, 6, 10)), 1);
        p.route(fleet.request("r", 2, 0, h), fleet, 2);
        assertThat(p.lastCredit(0)).isEqualTo(6 + 0.75 * 4);
        p.onKvEvent(new KvEvent.Removed(0, Tier.CPU, java.util.Arrays.copyOfRange(h, 8, 10)), 3);
        p.route(fleet.request("s", 4, 0, h), fleet, 4);
        assertThat(p.lastCredit(0)).isEqualTo(6 + 0.75 * 2);
        p.onKvEvent(new KvEvent.Cleared(0), 5);
        p.route(fleet.request("t", 6, 0, h), fleet, 6);
        assertThat(p.lastCredit(0)).isZero();
    }

    @Test
    void prefillCountsUntilFirstTokenAndBlocksUntilFinish() {
        DynamoPolicy p = new DynamoPolicy(DynamoConfig.v2026(), 3, 1);
        SimRequest a = fleet.request("a", 1, 8, chain(100, 4)); // 72 tokens: 4 full blocks + a partial one
        p.onRouted(a, 0, 1);
        SimRequest b = fleet.request("b", 2, 0, chain(100, 6)); // shares a's 4 blocks
        p.route(b, fleet, 2);
        // worker 0: prefill (72 + 96) / 16 = 10.5; decode 5 active + 2 new (blocks 4, 5) = 7
        assertThat(p.lastLogit(0)).isEqualTo(10.5 + 7);
        assertThat(p.lastLogit(1)).isEqualTo(6 + 6);
        p.onFirstToken(a, 0, 3);
        p.route(b, fleet, 3);
        assertThat(p.lastLogit(0)).isEqualTo(6 + 7);
        p.onFinished(a, 0, 10, 4);
        p.route(b, fleet, 4);
        assertThat(p.lastLogit(0)).isEqualTo(6 + 6);
    }

    @Test
    void aRoutedRequestsPrefillIsNetOfItsCredit() {
        DynamoPolicy p = new DynamoPolicy(DynamoConfig.v2026(), 3, 1);
        p.onKvEvent(stored(0, Tier.HBM, chain(100, 8)), 0);
        SimRequest a = fleet.request("a", 1, 0, chain(100, 10));
        assertThat(p.route(a, fleet, 1)).isZero();
        p.onRouted(a, 0, 1); // expects 160 − 8·16 = 32 tokens of prefill
        p.route(fleet.request("x", 2, 0, chain(9_000, 1)), fleet, 2);
        assertThat(p.lastLogit(0)).isEqualTo((32 + 16) / 16.0 + 10 + 1);
    }

    @Test
    void tiesAreBrokenUniformlyAtRandomAndDeterministicallyForASeed() {
        List<Integer> first = new ArrayList<>();
        int[] counts = new int[3];
        DynamoPolicy p = new DynamoPolicy(DynamoConfig.v2026(), 3, 99);
        for (int i = 0; i < 3000; i++) {
            int w = p.route(fleet.request("r" + i, i, 0, chain(i * 100L, 3)), fleet, i);
            first.add(w);
            counts[w]++;
        }
        for (int c : counts) {
            assertThat(c).isBetween(850, 1150);
        }
        DynamoPolicy again = new DynamoPolicy(DynamoConfig.v2026(), 3, 99);
        for (int i = 0; i < 3000; i++) {
            assertThat(again.route(fleet.request("r" + i, i, 0, chain(i * 100L, 3)), fleet, i)).isEqualTo(first.get(i));
        }
    }

    @Test
    void approximateModeRemembersItsOwnDecisionsFor120Seconds() {
        DynamoPolicy p = new DynamoPolicy(DynamoConfig.approximate(), 3, 1);
        p.onKvEvent(stored(2, Tier.HBM, chain(100, 10)), 0); // ignored: no KV events in this mode
        SimRequest a = fleet.request("a", 0, 0, chain(100, 10));
        int w = p.route(a, fleet, 0);
        assertThat(p.lastCredit(2)).isZero();
        p.onRouted(a, w, 0);
        p.onFirstToken(a, w, 1);
        p.onFinished(a, w, 10, 2);
        p.route(fleet.request("b", 60_000_000, 0, chain(100, 10)), fleet, 60_000_000);
        assertThat(p.lastCredit(w)).isEqualTo(10.0);
        p.route(fleet.request("c", 121_000_000, 0, chain(100, 10)), fleet, 121_000_000);
        assertThat(p.lastCredit(w)).isZero();
    }

    @Test
    void positiveTemperatureSamplesFavouringLowLogits() {
        DynamoPolicy p = new DynamoPolicy(DynamoConfig.v2026().withTemperature(0.5), 3, 7);
        p.onKvEvent(stored(0, Tier.HBM, chain(100, 10)), 0);
        int[] counts = new int[3];
        for (int i = 0; i < 2000; i++) {
            counts[p.route(fleet.request("r" + i, i, 0, chain(100, 10)), fleet, i)]++;
        }
        assertThat(counts[0]).isGreaterThan(counts[1] * 3);
        assertThat(counts[1]).isGreaterThan(0);
        assertThat((double) counts[1] / counts[2]).isCloseTo(1.0, within(0.3));
    }
}
