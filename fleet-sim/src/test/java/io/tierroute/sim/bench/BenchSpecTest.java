package io.tierroute.sim.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BenchSpecTest {

    private static BenchSpec spec(int limit, int workers, List<Double> loads, List<String> policies, Long hbm, Long cpu,
                                  Double pcie, double warmUp) {
        return new BenchSpec(null, "llmd-blog", limit, workers, loads, policies, 1, hbm, cpu, pcie, warmUp);
    }

    private static BenchSpec loads(Double... loads) {
        return spec(0, 2, List.of(loads), List.of("random"), null, null, null, 0.3);
    }

    @Test
    void everyLoadIsCheckedNotOnlyTheFirst() {
        for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY, 1e-9, 101}) {
            assertThatIllegalArgumentException().isThrownBy(() -> loads(1.0, 2.0, bad))
                    .withMessageStartingWith("--load must be a number in [0.01, 100] (got ");
        }
        assertThatIllegalArgumentException().isThrownBy(() -> loads(1.0, 2.0, 0.0)).withMessageEndingWith("(got 0)");
        assertThat(loads(0.01, 1.0, 100.0).loads()).containsExactly(0.01, 1.0, 100.0);
    }

    @Test
    void duplicatesAreRejected() {
        assertThatIllegalArgumentException().isThrownBy(() -> loads(1.0, 2.0, 1.0))
                .withMessage("--load must be a list of values distinct to two decimals (got 1,2,1)");
        assertThatIllegalArgumentException().isThrownBy(() -> loads(0.011, 0.012))
                .as("the reports print loads with two decimals: both would read 0.01")
                .withMessageStartingWith("--load must be a list of values distinct to two decimals");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> spec(0, 2, List.of(1.0), List.of("random", "random"), null, null, null, 0.3))
                .withMessage("--policies must be a list of distinct names (got random,random)");
    }

    @Test
    void eachNumberNamesItsOption() {
        assertThatIllegalArgumentException().isThrownBy(() -> spec(-5, 2, List.of(1.0), List.of("random"), null, null, null, 0.3))
                .withMessage("--limit must be ≥ 0 (got -5)");
        assertThatIllegalArgumentException().isThrownBy(() -> spec(0, 0, List.of(1.0), List.of("random"), null, null, null, 0.3))
                .withMessage("--workers must be in [1, 4096] (got 0)");
        assertThatIllegalArgumentException().isThrownBy(() -> spec(0, 50_000_000, List.of(1.0), List.of("random"), null, null, null, 0.3))
                .withMessage("--workers must be in [1, 4096] (got 50000000)");
        assertThatIllegalArgumentException().isThrownBy(() -> spec(0, 2, List.of(1.0), List.of("random"), 0L, null, null, 0.3))
                .withMessage("--hbm-tokens must be ≥ 512 (one KV block) (got 0)");
        assertThatIllegalArgumentException().isThrownBy(() -> spec(0, 2, List.of(1.0), List.of("random"), 511L, null, null, 0.3))
                .withMessage("--hbm-tokens must be ≥ 512 (one KV block) (got 511)");
        assertThatIllegalArgumentException().isThrownBy(() -> spec(0, 2, List.of(1.0), List.of("random"), null, -1L, null, 0.3))
                .withMessage("--cpu-tokens must be ≥ 0 (got -1)");
        assertThatIllegalArgumentException().isThrownBy(() -> spec(0, 2, List.of(1.0), List.of("random"), null, null, 0.0, 0.3))
                .withMessage("--pcie-gbps must be in [0.01, 10000] (got 0)");
        assertThatIllegalArgumentException().isThrownBy(() -> spec(0, 2, List.of(1.0), List.of("random"), null, null, 1e6, 0.3))
                .withMessage("--pcie-gbps must be in [0.01, 10000] (got 0.001)");
        assertThatIllegalArgumentException().isThrownBy(() -> spec(0, 2, List.of(1.0), List.of("random"), null, null, Double.NaN, 0.3))
                .withMessage("--pcie-gbps must be in [0.01, 10000] (got NaN)");
        assertThatIllegalArgumentException().isThrownBy(() -> spec(0, 2, List.of(1.0), List.of("random"), null, null, null, 2))
                .withMessage("--warm-up must be a number in (0, 1] (got 2)");
        assertThat(spec(0, 1, List.of(1.0), List.of("random"), 512L, 0L, 1e9, 1).cpuTokens()).isZero();
    }

    private static BenchSpec tiers(Long cpu, Long nvme) {
        return new BenchSpec(null, "llmd-blog", 0, 2, List.of(1.0), List.of("random"), 1, null, cpu, null, nvme, null, 0.3);
    }

    /** On the old code each of these ran with an empty tier and said nothing: less than a block holds nothing. */
    @Test
    void aTierThatCouldHoldNoBlockIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> tiers(0L, 100L))
                .withMessage("--nvme-tokens must be 0 with --cpu-tokens 0: the NVMe tier receives the CPU tier's "
                        + "evictions, so it needs a CPU tier (got 100)");
        assertThatIllegalArgumentException().isThrownBy(() -> tiers(null, 100L))
                .withMessage("--nvme-tokens must be 0 (no NVMe tier) or ≥ 512 (one KV block) (got 100)");
        assertThatIllegalArgumentException().isThrownBy(() -> tiers(511L, null))
                .withMessage("--cpu-tokens must be 0 (no CPU tier) or ≥ 512 (one KV block) (got 511)");
        assertThat(tiers(512L, 512L).nvmeTokens()).isEqualTo(512L);
        assertThat(tiers(0L, 0L).cpuTokens()).isZero();
    }
}
