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
 * {@code C_kv = α_p·overflow + α_p·κ·Ā·(m_load·(1 − D̄)² + m_rec·(1 − D̄)³)} (before the fitted wait), {@code m} = the
 * overflow less r's prefix held in HBM there, {@code m_load} the part of it r's prefix holds in the CPU tier there,
 * {@code m_rec = m − m_load}, {@code κ = 0.5 + 2·D̄}, computed here from the formula. Fixture: ISL 8,000, d̂ 500, α_p 2,
 * one worker with 4 requests in flight holding 120,000 KV tokens of 125,000: r overflows by 120,000 + 8,000 + 500 −
 * 125,000 = 3,500 tokens; the fleet has Ā = 6 requests in flight per worker.
 */
class OverflowHarmTermTest {

    private static final int BLOCK = 500;
    private static final LoadView FULL = new LoadView(4, 0, 1_000, 0, 120_000, 125_000, 0);
    private static final CostParameters P = CostParameters.builder().alphaP(2).build();
    private final double[] bandwidth = {0, 64e9, 0, 0};

    private CostTerms score(int hbmBlocks, int cpuBlocks, double fleetMeanInFlight, double prefillDuty) {
        PrefixMatch m = new PrefixMatch(1);
        m.reset(16);
        m.set(0, Tier.HBM.ordinal(), hbmBlocks);
        for (int t = Tier.CPU.ordinal(); t < Tier.COUNT; t++) {
            m.set(0, t, hbmBlocks + cpuBlocks); // cumulative per tier
        }
        CostTerms out = new CostTerms();
        CostModel.score(RouteContext.of(1, 8000, 500, BLOCK, 512).fleetMeanInFlight(fleetMeanInFlight)
                .prefillDuty(prefillDuty), 0, m, FULL, bandwidth, ParameterSet.builder(1).cost(P).build(), out);
        return out;
    }

    /** κ·Ā·(1 − D̄)³ by hand: the factor of a recomputed token. */
    private static double harmFactor(double fleetMeanInFlight, double prefillDuty) {
        double spare = 1 - prefillDuty;
        return (0.5 + 2 * prefillDuty) * fleetMeanInFlight * spare * spare * spare;
    }

    /** κ·Ā·(1 − D̄)² by hand: the factor of a token loaded from a slower tier. */
    private static double loadHarmFactor(double fleetMeanInFlight, double prefillDuty) {
        double spare = 1 - prefillDuty;
        return (0.5 + 2 * prefillDuty) * fleetMeanInFlight * spare * spare;
    }

    @Test
    void anOverflowCostsWhatRecomputingItCostsTheFleet() {
        CostTerms t = score(0, 0, 6, 0.25);
        double harm = 2 * 3_500 * harmFactor(6, 0.25); // α_p·m·κ·Ā·(1 − D̄)³ = 7,000·1.0·6·0.421875 = 17,718.75 µs
        assertThat(t.kvOverflowTokens).isEqualTo(3_500);
        assertThat(t.kvOverflowHarm).isCloseTo(harm, within(1e-6));
        assertThat(t.kv).isCloseTo(2 * 3_500 + harm, within(1e-6));
        assertThat(t.total).isCloseTo(t.prefill + t.harm + t.queue + t.ownDecode + t.decode + t.kv + t.tier
                + t.headOfLine - t.workflowBonus - t.toolsBonus, within(1e-6));
        CostBreakdown b = t.toBreakdown();
        assertThat(b.kvUs()).isEqualTo(t.kv);
        // the record that leaves the route call tells which candidate of C_kv priced the worker
        assertThat(b.kvOverflowHarmUs()).isEqualTo(harm);
        assertThat(b.kvWaitUs()).isZero(); // no fitted wait (τ₀ = α = 0)
    }

    @Test
    void rsPrefixHeldInHbmIsNotNewDemand() {
        // 5 blocks (2,500 tokens) of r's prompt in HBM there: 1,000 tokens are missing; the overflow price is whole
        CostTerms t = score(5, 0, 6, 0.25);
        assertThat(t.kvOverflowTokens).isEqualTo(3_500);
        assertThat(t.kvOverflowHarm).isCloseTo(2 * 1_000 * harmFactor(6, 0.25), within(1e-6));
        assertThat(t.kv).isCloseTo(2 * 3_500 + 2 * 1_000 * harmFactor(6, 0.25), within(1e-6));
        // a prefix in the CPU tier must be reloaded into HBM: it is missing there (as a load, below)
        CostTerms cpu = score(0, 5, 6, 0.25);
        assertThat(cpu.kvOverflowHarm).isCloseTo(2 * (2_500 * loadHarmFactor(6, 0.25) + 1_000 * harmFactor(6, 0.25)),
                within(1e-6));
        // everything overflowing held in HBM: the overflow price alone
        assertThat(score(16, 0, 6, 0.25).kvOverflowHarm).isZero();
    }

    @Test
    void aSaturatedFleetFadesARecomputeByTheCubeOfItsSpareShare() {
        assertThat(score(0, 0, 6, 0.0).kvOverflowHarm).isCloseTo(2 * 3_500 * 0.5 * 6, within(1e-6));
        assertThat(score(0, 0, 6, 0.75).kvOverflowHarm).isCloseTo(2 * 3_500 * 2.0 * 6 * 0.015625, within(1e-6));
        assertThat(score(0, 0, 6, 1.0).kvOverflowHarm).isZero();
        assertThat(score(0, 0, 6, 1.0).kv).isEqualTo(2.0 * 3_500);
    }

    @Test
    void whatRMustLoadFadesByTheSquareOfTheSpareShare() {
        // 2,500 tokens of r's prompt in the CPU tier there, all of them missing in HBM: HBM is reserved for the whole
        // load at admission, so that part fades by (1 − D̄)², the 1,000 recomputed tokens by (1 − D̄)³
        double spare = 1 - 0.5;
        double kappaA = (0.5 + 2 * 0.5) * 6;
        CostTerms t = score(0, 5, 6, 0.5);
        assertThat(t.kvOverflowHarm).isCloseTo(2 * kappaA * (2_500 * spare * spare + 1_000 * spare * spare * spare),
                within(1e-6)); // 2·9·(625 + 125) = 13,500 µs, of which 11,250 the load's
        // the same overflow without a CPU-tier prefix is all recomputed: half the load's price per token here
        assertThat(score(0, 0, 6, 0.5).kvOverflowHarm).isCloseTo(2 * kappaA * 3_500 * spare * spare * spare,
                within(1e-6));
        // a CPU-tier prefix longer than what r misses: only the missing tokens are loaded into new HBM
        CostTerms covered = score(2, 10, 6, 0.5); // 1,000 in HBM, 5,000 in CPU; missing 3,500 − 1,000 = 2,500
        assertThat(covered.kvOverflowHarm).isCloseTo(2 * kappaA * 2_500 * spare * spare, within(1e-6));
    }

    @Test
    void aPrefixOnACongestedLinkIsRecomputedNotLoaded() {
        // the same 2,500 CPU-tier tokens behind a link past ρ_thr: a miss (the AIMD cut-off), so r recomputes them and
        // all 3,500 missing tokens take the recompute's (1 − D̄)³
        PrefixMatch m = new PrefixMatch(1);
        m.reset(16);
        for (int t = Tier.CPU.ordinal(); t < Tier.COUNT; t++) {
            m.set(0, t, 5);
        }
        CostTerms out = new CostTerms();
        CostModel.score(RouteContext.of(1, 8000, 500, BLOCK, 512).fleetMeanInFlight(6).prefillDuty(0.5), 0, m, FULL,
                bandwidth, ParameterSet.builder(1).cost(P).rho(0, Tier.CPU, 0.99).build(), out);
        assertThat(out.cutOffTier).isEqualTo(Tier.CPU.ordinal());
        double spare = 1 - 0.5;
        assertThat(out.kvOverflowHarm).isCloseTo(2 * (0.5 + 2 * 0.5) * 6 * 3_500 * spare * spare * spare, within(1e-6));
    }

    @Test
    void nothingInFlightInTheFleetAddsNothing() {
        // DESIGN.md §3's worked example counts nothing in flight: its C_kv stays α_p·overflow
        CostTerms t = score(0, 0, 0, 0.0);
        assertThat(t.kvOverflowHarm).isZero();
        assertThat(t.kv).isEqualTo(2.0 * 3_500);
    }

    @Test
    void noOverflowNoHarm() {
        LoadView roomy = new LoadView(4, 0, 1_000, 0, 20_000, 125_000, 0);
        PrefixMatch m = new PrefixMatch(1);
        m.reset(16);
        CostTerms out = new CostTerms();
        CostModel.score(RouteContext.of(1, 8000, 500, BLOCK, 512).fleetMeanInFlight(6).prefillDuty(0.25), 0, m, roomy,
                bandwidth, ParameterSet.builder(1).cost(P).build(), out);
        assertThat(out.kvOverflowTokens).isZero();
        assertThat(out.kvOverflowHarm).isZero();
        assertThat(out.kv).isZero();
    }
}
