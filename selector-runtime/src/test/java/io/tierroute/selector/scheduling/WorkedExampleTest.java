package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.sequences.LoadView;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * DESIGN.md §3's worked example, term by term: three workers, ISL 8000, expected output 500. The
 * expected values are computed here from the formulas, independently of {@link CostModel}.
 */
class WorkedExampleTest {

    private static final int W1 = 0, W2 = 1, W3 = 2;
    private static final int BLOCK = 500;             // 7500 held tokens = 15 blocks; ISL 8000 = 16 blocks
    private static final double BYTES_PER_TOKEN = 512;
    private static final double PCIE = 64e9;           // bytes/s
    private static final long AMPLE_KV = 1_000_000_000L;

    private final CostParameters p = CostParameters.builder()
            .alphaP(1).alphaP2(0).alphaD(50).alphaD2(0.001).alphaT(1)
            .alphaWf(5000).lambda(1.0 / 120).alphaHo(100).qSlack(4).build();
    private final double[] bandwidth = {0, PCIE, 0, 0};

    private PrefixMatch match() {
        PrefixMatch m = new PrefixMatch(3);
        m.reset(16);
        for (int t = 0; t < Tier.COUNT; t++) {
            m.set(W1, t, 15);                      // 7500 tokens on HBM
            m.set(W2, t, t >= Tier.CPU.ordinal() ? 15 : 0); // 7500 tokens on CPU only
        }
        return m;
    }

    private RouteContext request() {
        // The previous step of the workflow ran on W1 and ended 30 s ago.
        return RouteContext.of(3, 8000, 500, BLOCK, BYTES_PER_TOKEN).lastStep(W1, 30.0);
    }

    /** ctx = 0 for the in-flight requests (the seed gives only Σd and Σd²), so 2·Σ[ctx·d + d²/2] = Σd². */
    private static LoadView load(long sumD, long sumD2, int waiting, long kvUsed, long kvCap) {
        return new LoadView(0, waiting, sumD, sumD2, kvUsed, kvCap);
    }

    private double[] costs(double rhoW2, long kvUsedW3, long kvCapW3, CostTerms[] terms) {
        ParameterSet ps = ParameterSet.builder(3).cost(p).rho(W2, Tier.CPU, rhoW2).build();
        LoadView[] loads = {
                load(800, 200_000, 2, 0, AMPLE_KV),
                load(200, 50_000, 0, 0, AMPLE_KV),
                load(0, 0, 0, kvUsedW3, kvCapW3)};
        PrefixMatch m = match();
        RouteContext ctx = request();
        double[] total = new double[3];
        for (int w = 0; w < 3; w++) {
            terms[w] = new CostTerms();
            CostModel.score(ctx, w, m, loads[w], bandwidth, ps, terms[w]);
            total[w] = terms[w].total;
        }
        return total;
    }

    private static int argmin(double[] c) {
        int best = 0;
        for (int i = 1; i < c.length; i++) {
            if (c[i] < c[best]) best = i;
        }
        return best;
    }

    @Test
    void caseOneRecomputingOnAnIdleWorkerBeatsQueueingBehindDecode() {
        CostTerms[] t = new CostTerms[3];
        double[] total = costs(0.3, 0, AMPLE_KV, t);

        // W1: p_eff = 8000 − 7500; decode 50·800 + 0.001·200000/2; Q = 2 ≤ 4; bonus 5000·e^(−30/120).
        double w1Bonus = 5000 * Math.exp(-30.0 / 120);
        assertThat(t[W1].prefill).isCloseTo(500, within(0.1));
        assertThat(t[W1].decode).isCloseTo(40_000 + 100, within(0.1));
        assertThat(t[W1].tier).isCloseTo(0, within(0.1));
        assertThat(t[W1].headOfLine).isCloseTo(0, within(0.1));
        assertThat(t[W1].workflowBonus).isCloseTo(w1Bonus, within(0.1)).isCloseTo(3894, within(0.5));
        assertThat(total[W1]).isCloseTo(500 + 40_100 - w1Bonus, within(0.1)).isCloseTo(36_706, within(0.5));

        // W2: 7500 CPU tokens × 512 B over 64 GB/s × (1 − 0.3).
        double w2Tier = 7500 * 512 / (PCIE * (1 - 0.3)) * 1e6;
        assertThat(t[W2].prefill).isCloseTo(500, within(0.1));
        assertThat(t[W2].decode).isCloseTo(10_000 + 25, within(0.1));
        assertThat(t[W2].tier).isCloseTo(w2Tier, within(0.1)).isCloseTo(85.7, within(0.05));
        assertThat(t[W2].workflowBonus).isZero();
        assertThat(total[W2]).isCloseTo(500 + 10_025 + w2Tier, within(0.1)).isCloseTo(10_611, within(0.5));

        // W3: recompute everything, nothing else.
        assertThat(t[W3].prefill).isCloseTo(8000, within(0.1));
        assertThat(t[W3].decode).isZero();
        assertThat(t[W3].kv).isZero();
        assertThat(total[W3]).isCloseTo(8000, within(0.1));

        assertThat(argmin(total)).isEqualTo(W3);
    }

    @Test
    void caseTwoACongestedCpuLinkIsAMissAndW3StillWins() {
        CostTerms[] t = new CostTerms[3];
        double[] total = costs(0.95, 0, AMPLE_KV, t);

        assertThat(t[W2].cutOffTier).isEqualTo(Tier.CPU.ordinal());
        assertThat(t[W2].pEffTokens).isEqualTo(8000);
        assertThat(t[W2].prefill).isCloseTo(8000, within(0.1));
        assertThat(t[W2].tier).isZero();
        assertThat(total[W2]).isCloseTo(8000 + 10_025, within(0.1)).isCloseTo(18_025, within(0.1));
        assertThat(argmin(total)).isEqualTo(W3);
    }

    @Test
    void caseThreeW3WithFullKvMustEvictAndW2Wins() {
        CostTerms[] t = new CostTerms[3];
        long cap = 100_000;
        double[] total = costs(0.3, cap, cap, t);

        // C_kv = α_p·max(0, KV_used + ISL + d̂ − KV_cap) = 8000 + 500.
        assertThat(t[W3].kvOverflowTokens).isCloseTo(8500, within(0.1));
        assertThat(t[W3].kv).isCloseTo(8500, within(0.1));
        assertThat(total[W3]).isCloseTo(16_500, within(0.1));
        assertThat(argmin(total)).isEqualTo(W2);
    }
}
