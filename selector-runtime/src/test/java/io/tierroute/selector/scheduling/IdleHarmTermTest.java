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
 * C_harm's two fleet inputs, term by term: {@code κ = harmWeight·(0.5 + 2·D̄)}, and on a worker with nothing in
 * flight {@code min(Ā, λ_w·T_pf)} in place of {@code Ā}. The match has one worker, so on a busy worker C_harm also
 * carries C_step for its decoders (AdmissionStepTest's); {@link #step} adds it to the expected values.
 */
class IdleHarmTermTest {

    private static final int BLOCK = 500;
    private static final int ISL = 8000;
    private final double[] bandwidth = {0, 64e9, 0, 0};

    private static LoadView busy(int inFlight, int waiting) {
        return new LoadView(inFlight, waiting, 0, 0, 0, 1_000_000, 0);
    }

    private static final LoadView IDLE = busy(0, 0);

    /** C_step: {@code 16,500 µs·n_dec·(1 − D̄)}. */
    private static double step(int decoding, double duty) {
        return 16_500.0 * decoding * (1 - duty);
    }

    private CostTerms score(CostParameters p, LoadView load, double fleetMean, double duty, double ratePerWorker) {
        PrefixMatch m = new PrefixMatch(1);
        m.reset(16); // nothing held: p_eff = ISL
        CostTerms out = new CostTerms();
        RouteContext ctx = RouteContext.of(1, ISL, 500, BLOCK, 512).fleetMeanInFlight(fleetMean)
                .prefillDuty(duty).arrivalRatePerWorker(ratePerWorker);
        CostModel.score(ctx, 0, m, load, bandwidth, ParameterSet.builder(1).cost(p).build(), out);
        return out;
    }

    private static final CostParameters P = CostParameters.builder().alphaP(20).alphaP2(0).alphaD(0).alphaD2(0)
            .harmWeight(1).build();

    @Test
    void anIdleWorkersHarmCountsTheArrivalsDuringItsPrefillAtMostAbar() {
        double kappa = 1 * (0.5 + 2 * 0.3);
        // T_pf = 20 µs × 8000 = 0.16 s; at 25 requests/s per worker 4 arrive during it, fewer than Ā = 12.5.
        CostTerms few = score(P, IDLE, 12.5, 0.3, 25);
        assertThat(few.prefill).isCloseTo(160_000, within(1e-6));
        assertThat(few.harm).isCloseTo(20.0 * ISL * kappa * 4, within(1e-6));
        // At 200/s, 32 would arrive: capped at Ā, the busy worker's charge.
        CostTerms many = score(P, IDLE, 12.5, 0.3, 200);
        assertThat(many.harm).isCloseTo(20.0 * ISL * kappa * 12.5, within(1e-6));
        // No arrival rate known yet: nothing arrives during the prefill, no harm.
        assertThat(score(P, IDLE, 12.5, 0.3, 0).harm).isZero();
        assertThat(few.toBreakdown().harmUs()).isEqualTo(few.harm);
        assertThat(few.total).isCloseTo(few.prefill + few.harm, within(1e-6));
    }

    @Test
    void theIdleWorkersPrefillTimeIncludesTheAttentionTerm() {
        CostParameters p = P.toBuilder().alphaP2(1e-4).build();
        CostTerms t = score(p, IDLE, 12.5, 0.0, 25);
        // T_pf = C_prefill = 20·8000 + 1e-4·8000²/2 = 163 200 µs
        assertThat(t.prefill).isCloseTo(163_200, within(1e-6));
        double arrivals = 25 * 0.1632;
        assertThat(t.harm).isCloseTo(20.0 * ISL * 0.5 * Math.min(12.5, arrivals), within(1e-6));
    }

    @Test
    void aBusyWorkersHarmKeepsAbarWhateverTheArrivalRate() {
        double kappa = 0.5 + 2 * 0.3;
        for (double rate : new double[] {0, 25, 200}) {
            CostTerms t = score(P, busy(1, 0), 12.5, 0.3, rate);
            assertThat(t.harm).isCloseTo(20.0 * ISL * kappa * 12.5 + step(1, 0.3), within(1e-6));
        }
        // Ā = 0 (an empty fleet): no harm anywhere, idle or not (DESIGN.md §3's worked example).
        assertThat(score(P, IDLE, 0, 0.3, 25).harm).isZero();
        assertThat(score(P, busy(1, 0), 0, 0.3, 25).harm).isCloseTo(step(1, 0.3), within(1e-6)); // C_step only
    }

    @Test
    void kappaIsHalfPlusTwiceThePrefillDuty() {
        double at0 = score(P, busy(3, 0), 2, 0.0, 0).harm - step(3, 0.0);
        double atHalf = score(P, busy(3, 0), 2, 0.5, 0).harm - step(3, 0.5);
        double at1 = score(P, busy(3, 0), 2, 1.0, 0).harm - step(3, 1.0);
        assertThat(at0).isCloseTo(20.0 * ISL * 0.5 * 2, within(1e-6));
        assertThat(atHalf).isCloseTo(20.0 * ISL * 1.5 * 2, within(1e-6)); // 0.5 + 2·0.5
        assertThat(at1).isCloseTo(5 * at0, within(1e-6));                 // 0.5 + 2·1 = 5 × 0.5
        // harmWeight still weighs it.
        assertThat(score(P.toBuilder().harmWeight(2).build(), busy(3, 0), 2, 0.5, 0).harm - step(3, 0.5))
                .isCloseTo(2 * atHalf, within(1e-6));
    }

    @Test
    void theQueuePartIsNotScaledByTheDuty() {
        CostParameters p = P.toBuilder().qSlack(4).queueHarmWeight(1.0).build();
        // 10 waiting, slack 4: 6 wait behind r for its whole prefill, at κ_q = 1 whatever D̄ is.
        for (double duty : new double[] {0, 0.25, 1}) {
            CostTerms t = score(p, busy(12, 10), 3, duty, 0);
            assertThat(t.harm).isCloseTo(20.0 * ISL * ((0.5 + 2 * duty) * 3 + 1.0 * 6) + step(2, duty),
                    within(1e-6));
        }
    }

    @Test
    void theHelpersAreTheFormulas() {
        assertThat(CostModel.harmKappa(P, 0.25)).isEqualTo(1.0);
        assertThat(CostModel.harmKappa(P, 0.0)).isEqualTo(0.5);
        assertThat(CostModel.harmKappa(P.toBuilder().harmWeight(2).build(), 1.0)).isEqualTo(5.0);
        assertThat(CostModel.idleHarmShare(1, 2.0, 1000, 1e6)).isEqualTo(1.0);
        assertThat(CostModel.idleHarmShare(0, 2.0, 1, 1e6)).isCloseTo(0.5, within(1e-12)); // 1 arrival of Ā = 2
        assertThat(CostModel.idleHarmShare(0, 2.0, 10, 1e6)).isEqualTo(1.0);
        assertThat(CostModel.idleHarmShare(0, 0.0, 10, 1e6)).isEqualTo(1.0); // Ā = 0: the harm is 0 anyway
        assertThat(Tier.COUNT).isEqualTo(bandwidth.length);
    }
}
