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
 * {@code C_queue}, {@code C_harm} and {@code C_own}, term by term, computed here from their formulas. The match has
 * one worker, so r's prefix never picks a worker and C_harm carries C_step for w's decoders (AdmissionStepTest's):
 * {@link #step} adds it to every expected C_harm.
 */
class QueueAndHarmTermsTest {

    /** κ per unit of harmWeight at this fixture's D̄ = 0.5: 0.5 + 2·0.5. */
    private static final double K = 1.5;

    private static final int BLOCK = 500;
    private final double[] bandwidth = {0, 64e9, 0, 0};

    private CostTerms score(CostParameters p, int heldBlocks, LoadView load) {
        return score(p, heldBlocks, load, 0.0);
    }

    private CostTerms score(CostParameters p, int heldBlocks, LoadView load, double fleetMeanInFlight) {
        PrefixMatch m = new PrefixMatch(1);
        m.reset(16);
        for (int t = 0; t < Tier.COUNT; t++) {
            m.set(0, t, heldBlocks);
        }
        CostTerms out = new CostTerms();
        // D̄ = 0.5: κ = harmWeight·(0.5 + 2·D̄) = 1.5·harmWeight (K below)
        // (the duty and the idle-worker charge are IdleHarmTermTest's).
        CostModel.score(RouteContext.of(1, 8000, 500, BLOCK, 512).fleetMeanInFlight(fleetMeanInFlight).prefillDuty(0.5),
                0, m, load, bandwidth,
                ParameterSet.builder(1).cost(p).build(), out);
        return out;
    }

    /** C_step at this fixture's D̄ = 0.5: {@code 16,500 µs·n_dec·(1 − 0.5)}, n_dec = in flight − waiting. */
    private static double step(LoadView load) {
        return 16_500.0 * (load.inFlight() - load.waiting()) * (1 - 0.5);
    }

    @Test
    void queuedPrefillIsPricedAtAlphaP() {
        CostParameters p = CostParameters.builder().alphaP(20).alphaD(0).alphaD2(0).harmWeight(0).build();
        // 30 000 prompt tokens queued ahead; 7500 of the 8000 held → p_eff 500
        CostTerms t = score(p, 15, new LoadView(3, 2, 0, 0, 0, 1_000_000, 30_000));
        assertThat(t.queuedPrefillTokens).isEqualTo(30_000);
        assertThat(t.queue).isCloseTo(20.0 * 30_000, within(0.1));
        assertThat(t.prefill).isCloseTo(20.0 * 500, within(0.1));
        assertThat(t.total).isCloseTo(t.prefill + t.queue + t.harm + t.headOfLine, within(0.1));
        assertThat(t.toBreakdown().queueUs()).isEqualTo(t.queue);
    }

    @Test
    void harmScalesWithRecomputedTokensAndTheFleetsRequestsInFlight() {
        CostParameters p = CostParameters.builder().alphaP(20).alphaD(0).alphaD2(0).harmWeight(1).build();
        // Ā = 12.5 in flight per worker fleet-wide; this worker has 40 of its own, which the recompute part does
        // not read (only C_step, its decoders' part, does).
        LoadView forty = new LoadView(40, 0, 0, 0, 0, 1_000_000, 0);
        LoadView two = new LoadView(2, 0, 0, 0, 0, 1_000_000, 0);
        CostTerms cached = score(p, 15, forty, 12.5);
        CostTerms cold = score(p, 0, forty, 12.5);
        assertThat(cached.harm).isCloseTo(20 * 500 * K * 12.5 + step(forty), within(0.1));
        assertThat(cold.harm).isCloseTo(20 * 8000 * K * 12.5 + step(forty), within(0.1));
        assertThat(score(p, 0, two, 12.5).harm - step(two)).isCloseTo(cold.harm - step(forty), within(0.1));
        assertThat(cold.inFlight).isEqualTo(40);
        assertThat(cold.fleetInFlight).isEqualTo(12.5);
        assertThat(cold.toBreakdown().harmUs()).isEqualTo(cold.harm);
        assertThat(cold.toBreakdown().fleetInFlight()).isEqualTo(12.5);
        // κ weighs it: at κ = 0.5 half of it.
        assertThat(score(p.toBuilder().harmWeight(0.5).build(), 0, forty, 12.5).harm - step(forty))
                .isCloseTo(0.5 * (cold.harm - step(forty)), within(0.1));
        // Nothing in flight: no harm (DESIGN.md §3's worked example counts none, so its golden values hold).
        assertThat(score(p, 0, new LoadView(0, 0, 0, 0, 0, 1_000_000)).harm).isZero();
        assertThat(CostParameters.DEFAULTS.harmWeight()).isEqualTo(1.0);
    }

    @Test
    void ownDecodeIsPredictedOutputTimesResidentKv() {
        CostParameters p = CostParameters.builder().alphaP(20).alphaD(0).alphaD2(0).harmWeight(0).alphaOwn(0.2).build();
        // d̂(r) = 500 decode steps, each reading 100 000 resident KV tokens at 0.2 µs per token
        LoadView three = new LoadView(3, 0, 0, 0, 100_000, 1_000_000, 0);
        CostTerms busy = score(p, 15, three);
        assertThat(busy.kvUsedTokens).isEqualTo(100_000);
        assertThat(busy.ownDecodeKvTokenSteps).isCloseTo(500.0 * 100_000, within(1e-6));
        assertThat(busy.ownDecode).isCloseTo(0.2 * 500 * 100_000, within(0.1));
        assertThat(busy.harm).isCloseTo(step(three), within(0.1)); // harmWeight 0: only C_step
        assertThat(busy.total).isCloseTo(busy.prefill + busy.harm + busy.ownDecode + busy.headOfLine, within(0.1));
        assertThat(busy.toBreakdown().ownDecodeUs()).isEqualTo(busy.ownDecode);
        // An idle worker decodes r faster: with the cache 7500 tokens ahead on `busy`, recomputing on an idle
        // worker (8000·20 = 160 000 µs) beats 10 s of slower decode steps.
        CostTerms idleCold = score(p, 0, new LoadView(0, 0, 0, 0, 0, 1_000_000, 0));
        assertThat(idleCold.total).isLessThan(busy.total);
        // The default α_own is 0: DESIGN.md §3's defaults and worked example are unchanged.
        assertThat(CostParameters.DEFAULTS.alphaOwn()).isZero();
        assertThat(score(CostParameters.DEFAULTS, 15, new LoadView(3, 0, 0, 0, 100_000, 1_000_000, 0)).ownDecode).isZero();
    }

    @Test
    void harmCountsRequestsThatWillQueueBehindBeyondTheSlack() {
        CostParameters p = CostParameters.builder().alphaP(20).alphaD(0).alphaD2(0).harmWeight(0.03)
                .queueHarmWeight(1.0).qSlack(4).build();
        // 10 waiting, slack 4 → 6 requests will wait behind r for its whole prefill (p_eff 500).
        LoadView tenWaiting = new LoadView(12, 10, 0, 0, 0, 1_000_000, 0);
        CostTerms queued = score(p, 15, tenWaiting, 12);
        assertThat(queued.harm).isCloseTo(20.0 * 500 * (0.03 * K * 12 + 1.0 * 6) + step(tenWaiting), within(0.1));
        // Within the slack (DESIGN.md §3's worked example has Q ≤ 2): only the in-flight part.
        LoadView fourWaiting = new LoadView(12, 4, 0, 0, 0, 1_000_000, 0);
        CostTerms short_ = score(p, 15, fourWaiting, 12);
        assertThat(short_.harm).isCloseTo(20.0 * 500 * 0.03 * K * 12 + step(fourWaiting), within(0.1));
        assertThat(CostParameters.DEFAULTS.queueHarmWeight()).isEqualTo(1.0);
    }
}
