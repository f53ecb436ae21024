package io.tierroute.sim.policy.peers.llmd;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.WorkerTelemetry;
import io.tierroute.sim.policy.peers.TestFleet;
import org.junit.jupiter.api.Test;

import static io.tierroute.sim.policy.peers.TestFleet.chain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class LlmdPolicyTest {

    final TestFleet fleet = TestFleet.of(3);

    static WorkerTelemetry sample(int w, long at, int waiting, double kvUsage) {
        return new WorkerTelemetry(w, at, waiting, 0, kvUsage, 0, 1000, 0, new long[Tier.COUNT], 50_000,
                new double[Tier.COUNT]);
    }

    @Test
    void queueScorerIsOneForEveryWorkerWhenAllQueuesAreEqual() {
        LlmdPolicy p = new LlmdPolicy(LlmdConfig.precise(), fleet, 1);
        for (int w = 0; w < 3; w++) {
            p.onTelemetry(sample(w, 0, 7, 0.0));
        }
        p.route(fleet.request("r", 1, 0, chain(100, 4)), fleet, 1);
        for (int w = 0; w < 3; w++) {
            assertThat(p.lastScore(w)).isEqualTo(2 * 1.0 + 2 * 1.0); // no prefix, kv_util 1, queue 1
        }
    }

    @Test
    void queueScorerIsMinMaxNormalisedOverWaitingRequests() {
        LlmdPolicy p = new LlmdPolicy(LlmdConfig.precise(), fleet, 1);
        p.onTelemetry(sample(0, 0, 0, 0.0));
        p.onTelemetry(sample(1, 0, 5, 0.0));
        p.onTelemetry(sample(2, 0, 10, 0.0));
        assertThat(p.route(fleet.request("r", 1, 0, chain(100, 4)), fleet, 1)).isZero();
        assertThat(p.lastScore(0)).isEqualTo(2 + 2 * 1.0);
        assertThat(p.lastScore(1)).isEqualTo(2 + 2 * 0.5);
        assertThat(p.lastScore(2)).isEqualTo(2 + 2 * 0.0);
    }

    /**
     * Tier-weighted matched blocks (GPU 1.0, CPU 0.8), min-max normalised over the workers with a match as
     * llm-d-inference-scheduler's indexedScoresToNormalizedScoredPods does, then traded against kv-util and queue.
     */
    @Test
    void preciseWeighsGpuAndCpuBlocksNormalisesThemOverTheWorkersAndTradesThemAgainstKvUsage() {
        LlmdPolicy p = new LlmdPolicy(LlmdConfig.precise(), fleet, 1);
        p.onKvEvent(new KvEvent.Stored(0, Tier.HBM, false, 0, chain(100, 10)), 0);
        p.onKvEvent(new KvEvent.Stored(1, Tier.CPU, false, 0, chain(100, 10)), 0);
        p.onKvEvent(new KvEvent.Stored(2, Tier.HBM, false, 0, chain(100, 4)), 0);
        p.onTelemetry(sample(0, 0, 0, 0.6));
        p.onTelemetry(sample(1, 0, 0, 0.0));
        p.onTelemetry(sample(2, 0, 0, 0.0));
        int w = p.route(fleet.request("r", 1, 0, chain(100, 10)), fleet, 1);
        // raw 10, 8, 4 → 1, 2/3, 0: 3·1 + 2·0.4 + 2 = 5.8  vs  3·⅔ + 2 + 2 = 6  vs  0 + 2 + 2 = 4
        assertThat(p.lastScore(0)).isCloseTo(5.8, within(1e-12));
        assertThat(p.lastScore(1)).isCloseTo(6.0, within(1e-12));
        assertThat(p.lastScore(2)).isCloseTo(4.0, within(1e-12));
        assertThat(w).isEqualTo(1);
    }

    /** Only consecutive blocks from block 0 count; the best match gets the whole weight whatever the prompt's length. */
    @Test
    void preciseScoresOnlyConsecutiveBlocksAndTheBestMatchGetsTheWholeWeight() {
        LlmdPolicy p = new LlmdPolicy(LlmdConfig.precise(), fleet, 1);
        long[] h = chain(100, 10);
        p.onKvEvent(new KvEvent.Stored(0, Tier.HBM, false, 0, java.util.Arrays.copyOfRange(h, 0, 4)), 0);
        p.onKvEvent(new KvEvent.Stored(0, Tier.HBM, false, 0, java.util.Arrays.copyOfRange(h, 5, 10)), 0);
        p.route(fleet.request("r", 1, 0, h), fleet, 1);
        assertThat(p.lastScore(0)).as("4 of 10 blocks, the only match: 1.0").isCloseTo(3 + 2 + 2, within(1e-12));
        assertThat(p.lastScore(1)).as("no match").isCloseTo(2 + 2, within(1e-12));
        p.onKvEvent(new KvEvent.Stored(1, Tier.HBM, false, 0, h), 0);
        p.route(fleet.request("r2", 1, 0, h), fleet, 2);
        assertThat(p.lastScore(1)).as("10 blocks: the best").isCloseTo(3 + 2 + 2, within(1e-12));
        assertThat(p.lastScore(0)).as("4 blocks: the least of those matched").isCloseTo(0 + 2 + 2, within(1e-12));
    }

    @Test
    void telemetryIsReadAtItsPeriodNotInstantaneously() {
        LlmdPolicy p = new LlmdPolicy(LlmdConfig.precise(), fleet, 1);
        assertThat(p.telemetryPeriodMicros()).isEqualTo(50_000);
        p.onTelemetry(sample(0, 0, 0, 0.0));
        p.onTelemetry(sample(1, 0, 3, 0.0));
        p.onTelemetry(sample(2, 0, 3, 0.0));
        // the router's own picks between samples do not move its queue view: worker 0 wins every time
        for (int i = 0; i < 20; i++) {
            SimRequest r = fleet.request("r" + i, 1 + i, 0, chain(1000L * i, 2));
            int w = p.route(r, fleet, 1 + i);
            p.onRouted(r, w, 1 + i);
            assertThat(w).isZero();
        }
    }

    @Test
    void approximateProfileFollowsItsOwnPicks() {
        LlmdPolicy p = new LlmdPolicy(LlmdConfig.approximate(), fleet, 3);
        p.onKvEvent(new KvEvent.Stored(2, Tier.HBM, false, 0, chain(100, 10)), 0); // events are not read
        SimRequest a = fleet.request("a", 1, 0, chain(100, 10));
        int w = p.route(a, fleet, 1);
        p.onRouted(a, w, 1);
        SimRequest b = fleet.request("b", 2, 0, chain(100, 20));
        assertThat(p.route(b, fleet, 2)).isEqualTo(w);
        assertThat(p.lastScore(w)).isCloseTo(3 * 0.5 + 4, within(1e-12));
    }

    @Test
    void approximateProfileMatchesAtMost4096Tokens() {
        LlmdPolicy p = new LlmdPolicy(LlmdConfig.approximate(), fleet, 3);
        SimRequest a = fleet.request("a", 1, 0, chain(100, 300)); // 4 800 tokens: 256 blocks hashed
        int w = p.route(a, fleet, 1);
        p.onRouted(a, w, 1);
        long[] h = chain(100, 300);
        h[280] = -1; // differs only past the cap
        p.route(fleet.request("b", 2, 0, h), fleet, 2);
        assertThat(p.lastScore(w)).isCloseTo(3 + 4, within(1e-12));
    }

    @Test
    void approximateProfileSizesItsLruToTheEnginesKvCacheAsAutoTuneDoes() {
        TestFleet small = new TestFleet(2, 16, 10, 40); // 10 HBM blocks per worker
        LlmdPolicy p = new LlmdPolicy(LlmdConfig.approximate(), small, 1);
        p.onRouted(small.request("a", 1, 0, chain(100, 8)), 0, 1);
        p.route(small.request("c", 2, 0, chain(100, 8)), small, 2);
        assertThat(p.lastScore(0)).isCloseTo(3 * 1.0 + 4, within(1e-12)); // 8 of 8 blocks in a 10-block LRU
        p.onRouted(small.request("b", 3, 0, chain(500, 8)), 0, 3); // 16 blocks sent: a's first 6 are forgotten
        p.route(small.request("d", 4, 0, chain(100, 8)), small, 4);
        assertThat(p.lastScore(0)).isCloseTo(0 + 4, within(1e-12)); // block 0 gone: no consecutive match
        assertThat(LlmdConfig.approximate().version()).contains("autoTune");
        LlmdConfig a = LlmdConfig.approximate();
        assertThatThrownBy(() -> new LlmdConfig(a.name(), a.version(), a.prefix(), 3, 0, 2, 2, 1.0, 0.8, 50_000, -1, 4096))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("≥ 0 (0: autoTune");
    }

    @Test
    void approximateLruForgetsTheLeastRecentlyInsertedBlocks() {
        ApproxPrefixIndex lru = new ApproxPrefixIndex(new long[] {5});
        lru.insert(0, chain(100, 3), 3);
        lru.insert(0, chain(200, 3), 3); // evicts 100
        assertThat(lru.size(0)).isEqualTo(5);
        assertThat(lru.matched(0, chain(100, 3), 3)).isZero();
        assertThat(lru.matched(0, chain(200, 3), 3)).isEqualTo(3);
        lru.insert(0, chain(101, 2), 2); // refreshes 101, 102: 200 is now the eldest
        lru.insert(0, chain(300, 1), 1); // evicts 200, not 101
        assertThat(lru.matched(0, chain(200, 3), 3)).isZero();
        assertThat(lru.matched(0, chain(201, 2), 2)).isEqualTo(2);
        assertThat(lru.matched(0, chain(101, 2), 2)).isEqualTo(2);
    }

    @Test
    void tieredProfileKeepsCreditingACpuSizedHistoryAfterTheGpuSizedOneForgot() {
        TestFleet small = new TestFleet(2, 16, 10, 40); // 10 GPU blocks, CPU LRU 40
        LlmdPolicy p = new LlmdPolicy(LlmdConfig.tieredCpu(), small, 1);
        SimRequest a = small.request("a", 1, 0, chain(100, 8));
        p.onRouted(a, 0, 1);
        p.onRouted(small.request("b", 2, 0, chain(500, 8)), 0, 2); // pushes a out of the 10-block GPU LRU
        p.route(small.request("c", 3, 0, chain(100, 8)), small, 3);
        // gpu scorer: blocks 100, 101 evicted → 0 consecutive; cpu scorer: 8/8
        assertThat(p.lastScore(0)).isCloseTo(0 + 1 + 4, within(1e-12));
        TestFleet noCpu = new TestFleet(2, 16, 10, 0);
        LlmdPolicy q = new LlmdPolicy(LlmdConfig.tieredCpu(), noCpu, 1);
        q.onRouted(noCpu.request("a", 1, 0, chain(100, 8)), 0, 1);
        q.route(noCpu.request("c", 3, 0, chain(100, 8)), noCpu, 3);
        assertThat(q.lastScore(0)).isCloseTo(1 + 0 + 4, within(1e-12));
    }

    @Test
    void tieredProfilesCpuHistoryIsTheEnginesCpuTierNotAMultipleOfItsHbm() {
        TestFleet equalTiers = new TestFleet(2, 16, 10, 12); // a CPU tier as large as HBM and a bit: 12 blocks
        LlmdPolicy p = new LlmdPolicy(LlmdConfig.tieredCpu(), equalTiers, 1);
        p.onRouted(equalTiers.request("a", 1, 0, chain(100, 8)), 0, 1);
        p.onRouted(equalTiers.request("b", 2, 0, chain(500, 8)), 0, 2); // 16 blocks sent: a's first 4 leave both LRUs
        p.route(equalTiers.request("c", 3, 0, chain(100, 8)), equalTiers, 3);
        assertThat(p.lastScore(0)).isCloseTo(0 + 0 + 4, within(1e-12)); // 4 × HBM (40 blocks) would still credit 8/8
    }
}
