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
 * {@code C_kv = max(α_p·overflow, k·(1 − D̄)²·W)}, {@code W = min(1, m/KV_used)·(Σd̂/|A(w)|)·(τ₀ + α·KV_used)}, term by
 * term, computed here from the formula. Fixture: ISL 8,000, d̂ 500, one worker with 4 requests in flight (Σd̂ 1,000)
 * holding 120,000 KV tokens of 125,000: r overflows by 120,000 + 8,000 + 500 − 125,000 = 3,500 tokens. The fleet's Ā is
 * 0 here, so the overflow price carries no harm part ({@code OverflowHarmTermTest} prices that).
 */
class AdmissionWaitTermTest {

    private static final int BLOCK = 500;
    private static final LoadView FULL = new LoadView(4, 0, 1_000, 0, 120_000, 125_000, 0);
    private final double[] bandwidth = {0, 64e9, 0, 0};

    private CostTerms score(CostParameters p, int hbmBlocks, double prefillDuty) {
        PrefixMatch m = new PrefixMatch(1);
        m.reset(16);
        for (int t = 0; t < Tier.COUNT; t++) {
            m.set(0, t, hbmBlocks); // cumulative per tier: everything held is in HBM
        }
        CostTerms out = new CostTerms();
        CostModel.score(RouteContext.of(1, 8000, 500, BLOCK, 512).prefillDuty(prefillDuty), 0, m, FULL, bandwidth,
                ParameterSet.builder(1).cost(p).build(), out);
        return out;
    }

    private static CostParameters fitted(double k) {
        return CostParameters.builder().alphaP(1).decodeStepUs(5_600).decodeStepKvUs(0.02).kvWaitScale(k).build();
    }

    /** W by hand: a step of 5,600 + 0.02·120,000 = 8,000 µs per predicted token, 250 tokens each, a share m/120,000. */
    private static double w(double missing) {
        return 8_000.0 * (1_000.0 / 4) * Math.min(1.0, missing / 120_000);
    }

    @Test
    void withoutAFittedDecodeStepCkvIsTheOverflowPrice() {
        CostTerms t = score(CostParameters.DEFAULTS, 0, 0.0);
        assertThat(t.kvOverflowTokens).isEqualTo(3_500);
        assertThat(t.kvWait).isZero();
        assertThat(t.kv).isEqualTo(CostParameters.DEFAULTS.alphaP() * 3_500);
    }

    @Test
    void theWaitForHbmIsPricedWhenItIsLongerThanRecomputingTheOverflow() {
        CostTerms t = score(fitted(0.5), 0, 0.5);
        double expected = 0.5 * (1 - 0.5) * (1 - 0.5) * w(3_500); // k·(1 − D̄)²·W = 7,291.7 µs
        assertThat(t.kvWait).isCloseTo(expected, within(1e-6));
        assertThat(t.kv).isCloseTo(Math.max(1.0 * 3_500, expected), within(1e-6));
        assertThat(t.kv).isGreaterThan(3_500.0);
        assertThat(t.total).isCloseTo(t.prefill + t.harm + t.queue + t.ownDecode + t.decode + t.kv + t.tier
                + t.headOfLine - t.workflowBonus - t.toolsBonus, within(1e-6));
        assertThat(t.toBreakdown().kvUs()).isEqualTo(t.kv);
    }

    @Test
    void rsPrefixAlreadyInHbmIsNotWaitedFor() {
        // 5 blocks (2,500 tokens) of r's prompt are held in HBM there: only 1,000 tokens are missing
        CostTerms t = score(fitted(1.0), 5, 0.0);
        assertThat(t.kvOverflowTokens).isEqualTo(3_500);
        assertThat(t.kvWait).isCloseTo(w(1_000), within(1e-6));
        // all of the overflow held: nothing to wait for, the overflow price alone
        CostTerms held = score(fitted(1.0), 16, 0.0);
        assertThat(held.kvWait).isZero();
        assertThat(held.kv).isEqualTo(1.0 * held.kvOverflowTokens);
    }

    @Test
    void aSaturatedFleetFadesTheWaitByTheSquareOfItsSpareShare() {
        double idle = score(fitted(1.0), 0, 0.0).kvWait;
        assertThat(idle).isCloseTo(w(3_500), within(1e-6));
        assertThat(score(fitted(1.0), 0, 0.75).kvWait).isCloseTo(idle * 0.25 * 0.25, within(1e-6));
        assertThat(score(fitted(1.0), 0, 1.0).kvWait).isZero();
        // and k scales it
        assertThat(score(fitted(0.2), 0, 0.0).kvWait).isCloseTo(0.2 * idle, within(1e-6));
    }

    @Test
    void theWaitFormulaAtItsEdges() {
        CostParameters p = fitted(1.0);
        assertThat(CostModel.admissionWait(p, 0, 120_000, 1_000, 4)).isZero();
        assertThat(CostModel.admissionWait(p, 3_500, 120_000, 1_000, 0)).isZero();
        assertThat(CostModel.admissionWait(p, 3_500, 0, 1_000, 4)).isZero();
        // more missing than resident: every request in flight must leave first (share capped at 1)
        assertThat(CostModel.admissionWait(p, 500_000, 120_000, 1_000, 4)).isCloseTo(8_000.0 * 250, within(1e-6));
    }
}
