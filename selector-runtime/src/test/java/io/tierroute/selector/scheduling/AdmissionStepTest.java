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
 * C_harm's part for w's decoders, {@code C_step = τ_pf·n_dec(w)·(1 − D̄)} with τ_pf = {@code prefillStepUs}
 * (default 16,500 µs, DESIGN.md §6's step), charged only when
 * r's prefix hits differ by at most one block over the workers.
 */
class AdmissionStepTest {

    private static final double TAU = 16_500.0;
    private static final int BLOCK = 500;
    private static final int ISL = 8000;
    private final double[] bandwidth = {0, 64e9, 0, 0};
    private static final CostParameters P = CostParameters.builder().alphaP(20).alphaP2(0).alphaD(50).alphaD2(0)
            .harmWeight(1).build();

    /** r's prefix held as {@code held[w]} blocks on HBM per worker; scores worker {@code w} with {@code load}. */
    private CostTerms score(int[] held, int w, LoadView load, double duty) {
        return score(held, w, load, duty, P);
    }

    private CostTerms score(int[] held, int w, LoadView load, double duty, CostParameters p) {
        PrefixMatch m = new PrefixMatch(held.length);
        m.reset(ISL / BLOCK);
        for (int i = 0; i < held.length; i++) {
            for (int t = 0; t < Tier.COUNT; t++) {
                m.set(i, t, held[i]);
            }
        }
        CostTerms out = new CostTerms();
        RouteContext ctx = RouteContext.of(held.length, ISL, 500, BLOCK, 512).fleetMeanInFlight(2.0).prefillDuty(duty);
        CostModel.score(ctx, w, m, load, bandwidth, ParameterSet.builder(held.length).cost(p).build(), out);
        return out;
    }

    private static LoadView decoding(int decoders, long decodeTokens) {
        return new LoadView(decoders, 0, decodeTokens, 0, 0, 1_000_000, 0);
    }

    @Test
    void theFormula() {
        assertThat(CostModel.admissionStep(TAU, 4, 0.25, false)).isCloseTo(16_500.0 * 4 * 0.75, within(1e-9));
        assertThat(CostModel.admissionStep(8_000.0, 4, 0.25, false)).as("another engine's step")
                .isCloseTo(8_000.0 * 4 * 0.75, within(1e-9));
        assertThat(CostParameters.DEFAULTS.prefillStepUs()).isEqualTo(TAU);
        assertThat(CostModel.admissionStep(TAU, 4, 1.0, false)).isZero();          // no spare capacity anywhere
        assertThat(CostModel.admissionStep(TAU, 4, 0.25, true)).isZero();          // r's prefix picks a worker
        assertThat(CostModel.admissionStep(TAU, 0, 0.25, false)).isZero();         // nobody decodes on w
        assertThat(CostModel.admissionStep(TAU, -2, 0.0, false)).isZero();         // more waiting than counted in flight
    }

    @Test
    void theHitSpreadIsTheBestHoldersExtraBlocks() {
        PrefixMatch m = new PrefixMatch(3);
        m.reset(16);
        m.set(0, Tier.HBM.ordinal(), 2);
        m.set(1, Tier.COUNT - 1, 7);   // held on a slower tier counts too
        assertThat(CostModel.hitSpreadBlocks(m)).isEqualTo(7);
        assertThat(CostModel.hitSpreadBlocks(new PrefixMatch(0))).isZero();
    }

    @Test
    void cStepIsAddedToTheHarmOfAWorkerWithDecodersWhenThePrefixPicksNone() {
        double recompute = 20.0 * ISL * (0.5 + 2 * 0.2) * 2.0; // α_p·p_eff·κ·Ā (κ at D̄ = 0.2), as before
        // Neither worker holds anything: 3 decoders on worker 0 pay 3 steps at the spare share 1 − 0.2.
        CostTerms t = score(new int[] {0, 0}, 0, decoding(3, 0), 0.2);
        assertThat(t.harm).isCloseTo(recompute + 16_500.0 * 3 * 0.8, within(1e-6));
        assertThat(t.total).isCloseTo(t.prefill + t.harm, within(1e-6));
        // One block apart (Mooncake's shared first block on a cold worker): still charged.
        assertThat(score(new int[] {1, 0}, 1, decoding(3, 0), 0.2).harm).isCloseTo(recompute + 16_500.0 * 3 * 0.8, within(1e-6));
        // Two blocks apart: r's prefix picks a worker, no step part on any of them.
        CostTerms picked = score(new int[] {0, 2}, 0, decoding(3, 0), 0.2);
        assertThat(picked.harm).isCloseTo(recompute, within(1e-6));
        // Requests still waiting for their first token are not decoding.
        CostTerms waiting = score(new int[] {0, 0}, 0, new LoadView(3, 2, 0, 0, 0, 1_000_000, 0), 0.2);
        assertThat(waiting.harm).isCloseTo(recompute + 16_500.0 * 1 * 0.8, within(1e-6));
        // τ_pf is the parameter set's: an engine whose prefill steps cost 4 ms.
        CostTerms shortSteps = score(new int[] {0, 0}, 0, decoding(3, 0), 0.2, P.toBuilder().prefillStepUs(4_000).build());
        assertThat(shortSteps.harm).isCloseTo(recompute + 4_000.0 * 3 * 0.8, within(1e-6));
    }

    @Test
    void theSpreadTheSelectorSetOncePerRouteIsTheOneUsed() {
        PrefixMatch m = new PrefixMatch(2);
        m.reset(ISL / BLOCK); // nobody holds anything: spread 0
        RouteContext ctx = RouteContext.of(2, ISL, 500, BLOCK, 512).fleetMeanInFlight(2.0).prefillDuty(0.2);
        CostTerms computed = new CostTerms();
        CostModel.score(ctx, 0, m, decoding(3, 0), bandwidth, ParameterSet.builder(2).cost(P).build(), computed);
        CostTerms given = new CostTerms();
        CostModel.score(ctx.hitSpreadBlocks(4), 0, m, decoding(3, 0), bandwidth, ParameterSet.builder(2).cost(P).build(), given);
        assertThat(computed.harm - given.harm).as("C_step, charged only where the spread is ≤ 1 block")
                .isCloseTo(16_500.0 * 3 * 0.8, within(1e-6));
        assertThat(ctx.reset(ISL, 500, BLOCK, 512).hitSpreadBlocks()).as("a new route computes it again").isEqualTo(-1);
    }

    @Test
    void withNoPrefixToLoseTheWorkerWithFewerDecodersWins() {
        // Worker 0: 4 decoders with 400 predicted tokens left (C_decode 20 ms); worker 1: one decoder with 1000 left
        // (50 ms). Without C_step worker 0 is cheaper by 30 ms; its 3 extra decoders each wait 16.5 ms × (1 − 0.1)
        // for r's prefill step, 44.55 ms, so worker 1 wins.
        CostTerms four = score(new int[] {0, 0}, 0, decoding(4, 400), 0.1);
        CostTerms one = score(new int[] {0, 0}, 1, decoding(1, 1000), 0.1);
        assertThat(four.decode).isCloseTo(20_000, within(1e-6));
        assertThat(one.decode).isCloseTo(50_000, within(1e-6));
        assertThat(one.total).isLessThan(four.total);
        assertThat(four.total - one.total).isCloseTo(-30_000 + 3 * 16_500.0 * 0.9, within(1e-6));
        // With r's prefix on worker 0 the cache decides as before: no C_step, worker 0 is cheaper.
        CostTerms fourHit = score(new int[] {8, 0}, 0, decoding(4, 400), 0.1);
        CostTerms oneMiss = score(new int[] {8, 0}, 1, decoding(1, 1000), 0.1);
        assertThat(fourHit.total).isLessThan(oneMiss.total);
    }
}
