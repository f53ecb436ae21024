package io.tierroute.sim.policy.peers.sglang;

import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.peers.TestFleet;
import org.junit.jupiter.api.Test;

import static io.tierroute.sim.policy.peers.TestFleet.chain;
import static org.assertj.core.api.Assertions.assertThat;

class CacheAwarePolicyTest {

    final TestFleet fleet = TestFleet.of(3);

    CacheAwarePolicy policy(CacheAwareConfig c) {
        return new CacheAwarePolicy(c, fleet.workers(), fleet.blockSize(), 5);
    }

    /** Routes and delivers; returns the worker. */
    int send(CacheAwarePolicy p, SimRequest r) {
        int w = p.route(r, fleet, r.arrivalMicros());
        p.onRouted(r, w, r.arrivalMicros());
        return w;
    }

    /** Puts {@code n} unrelated in-flight requests on {@code worker} without touching the tree. */
    void loadUp(CacheAwarePolicy p, int worker, int n) {
        for (int i = 0; i < n; i++) {
            p.onRouted(fleet.request("filler" + worker + "-" + i, 0, 0, 999_000L + i), worker, 0);
        }
    }

    @Test
    void aMissGoesToTheLeastLoadedAndAHitToTheTenant() {
        CacheAwarePolicy p = policy(CacheAwareConfig.pythonCli());
        loadUp(p, 0, 2);
        loadUp(p, 2, 1);
        assertThat(send(p, fleet.request("a", 1, 0, chain(100, 10)))).isEqualTo(1); // empty tree: least loaded
        loadUp(p, 1, 5); // worker 1 is now the busiest (6) but not imbalanced (max − min = 5 ≤ 64)
        assertThat(send(p, fleet.request("b", 2, 0, chain(100, 12)))).isEqualTo(1); // 10/12 matched > 0.3
        assertThat(p.load(1)).isEqualTo(7);
    }

    @Test
    void theCacheThresholdIsStrictAndDiffersBetweenVariants() {
        for (CacheAwareConfig c : new CacheAwareConfig[] {CacheAwareConfig.pythonCli(), CacheAwareConfig.rust()}) {
            CacheAwarePolicy p = policy(c);
            assertThat(send(p, fleet.request("a", 1, 0, chain(100, 4)))).isZero();
            // 4 of 10 blocks matched: rate 0.4 — above Python's 0.3, below Rust's 0.5
            long[] h = new long[10];
            System.arraycopy(chain(100, 4), 0, h, 0, 4);
            System.arraycopy(chain(5_000, 6), 0, h, 4, 6);
            int w = send(p, fleet.request("b", 2, 0, h));
            assertThat(w).as(c.name()).isEqualTo(c.cacheThreshold() < 0.4 ? 0 : 1);
        }
    }

    @Test
    void pythonCliSwitchesToLoadBalancingPastBothBalanceThresholds() {
        // 64 more in flight than the idle workers: not imbalanced (needs > 64), the cache wins
        CacheAwarePolicy p = policy(CacheAwareConfig.pythonCli());
        assertThat(send(p, fleet.request("a", 1, 0, chain(100, 10)))).isZero();
        loadUp(p, 0, 63); // load 0 = 64, others 0
        assertThat(send(p, fleet.request("b", 2, 0, chain(100, 10)))).isZero();
        // now 65 vs 0: 65 − 0 > 64 and 65 > 0 × 1.5 → imbalanced → least loaded despite the full hit
        assertThat(send(p, fleet.request("c", 3, 0, chain(100, 10)))).isEqualTo(1);
    }

    @Test
    void theRelativeThresholdAlsoHasToBeExceeded() {
        // Loads 105 / 70 / 69: Rust (32, 1.1): 36 > 32 and 105 > 75.9 → imbalanced → least loaded (2);
        // Python (64, 1.5): 36 ≤ 64 → balanced → the cached tenant (0).
        CacheAwarePolicy rust = policy(CacheAwareConfig.rust());
        CacheAwarePolicy py = policy(CacheAwareConfig.pythonCli());
        for (CacheAwarePolicy p : new CacheAwarePolicy[] {rust, py}) {
            assertThat(send(p, fleet.request("a", 1, 0, chain(100, 10)))).isZero();
            loadUp(p, 0, 104);
            loadUp(p, 1, 70);
            loadUp(p, 2, 69);
        }
        assertThat(send(rust, fleet.request("b", 2, 0, chain(100, 10)))).isEqualTo(2);
        assertThat(send(py, fleet.request("b", 2, 0, chain(100, 10)))).isZero();
        CacheAwarePolicy py2 = policy(CacheAwareConfig.pythonCli());
        assertThat(send(py2, fleet.request("a", 1, 0, chain(100, 10)))).isZero();
        loadUp(py2, 0, 299);
        loadUp(py2, 1, 200);
        loadUp(py2, 2, 200);
        // 300 vs 200: 100 > 64 but 300 = 1.5 × 200 is not > → balanced → cache
        assertThat(send(py2, fleet.request("b", 2, 0, chain(100, 10)))).isZero();
    }

    @Test
    void finishingReleasesLoad() {
        CacheAwarePolicy p = policy(CacheAwareConfig.pythonCli());
        SimRequest a = fleet.request("a", 1, 0, chain(100, 10));
        int w = send(p, a);
        p.onFinished(a, w, 10, 5);
        assertThat(p.load(w)).isZero();
    }

    @Test
    void theTreeCapIsTheUpstreamTokenBudgetInSurrogateCharacters() {
        CacheAwarePolicy p = policy(CacheAwareConfig.pythonCli());
        // 2^26 chars / 4 chars per token = 2^24 tokens = 2^20 blocks of 16 → × 16 surrogate chars
        assertThat(p.maxSurrogateChars()).isEqualTo((1L << 20) * SimRequest.TEXT_CHARS_PER_BLOCK);
    }

    @Test
    void evictionRunsEverySixtySecondsOfVirtualTime() {
        CacheAwarePolicy p = new CacheAwarePolicy(CacheAwareConfig.pythonCli().withMaxTreeSize(64),
                fleet.workers(), fleet.blockSize(), 5);
        // cap = 64 chars / 4 chars per token = 16 tokens = one block = 16 surrogate chars
        assertThat(p.maxSurrogateChars()).isEqualTo(16);
        send(p, fleet.request("a", 1_000_000, 0, chain(100, 2)));
        send(p, fleet.request("b", 2_000_000, 0, chain(500, 2)));
        assertThat(p.tree().charCount(0)).isEqualTo(32); // a on 0, b (a miss) on 1
        send(p, fleet.request("c", 59_000_000, 0, chain(900, 1))); // before 60 s: no eviction
        assertThat(p.tree().charCount(0) + p.tree().charCount(1) + p.tree().charCount(2)).isEqualTo(80);
        send(p, fleet.request("d", 61_000_000, 0, chain(700, 1))); // evicts first, then inserts d
        for (int w = 0; w < 3; w++) {
            assertThat(p.tree().charCount(w)).isLessThanOrEqualTo(16);
        }
    }
}
