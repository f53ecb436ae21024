package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.sequences.LoadView;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@link ParameterSet#withRhoMeasuredBefore}: a ρ measured before the cutoff counts as 0, one measured since or without
 * a fitting window stays; and what that does to {@code C_tier}: a link cut off by an old ρ past ρ_thr serves its hits
 * again, at its whole bandwidth. Fixture as {@link RhoOnConfiguredLinkTest}: ISL 8,000, 4,000 tokens (8 blocks) in the
 * CPU tier, 512 B/token, a 64 GB/s link.
 */
class RhoAgedOutTest {

    private static final int CPU = Tier.CPU.ordinal();
    private static final int NVME = Tier.NVME.ordinal();
    private static final LoadView IDLE = new LoadView(0, 0, 0, 0, 0, 125_000, 0);

    private static CostTerms score(ParameterSet ps) {
        PrefixMatch m = new PrefixMatch(1);
        m.reset(16);
        for (int t = CPU; t < Tier.COUNT; t++) {
            m.set(0, t, 8);
        }
        CostTerms out = new CostTerms();
        CostModel.score(RouteContext.of(1, 8000, 500, 500, 512), 0, m, IDLE, new double[] {0, 64e9, 0, 0}, ps, out);
        return out;
    }

    @Test
    void aCongestedLinkWhoseRhoAgedOutServesItsHitsAgain() {
        ParameterSet measured = ParameterSet.builder(1).rho(0, Tier.CPU, 0.95, Double.NaN, 1_000).build();
        assertThat(score(measured).cutOffTier).as("ρ 0.95 > ρ_thr: a miss").isEqualTo(CPU);

        ParameterSet aged = measured.withRhoMeasuredBefore(1_001);
        CostTerms t = score(aged);
        assertThat(t.cutOffTier).isNotEqualTo(CPU);
        assertThat(t.tierTokens[CPU]).isEqualTo(4_000);
        assertThat(t.tierTransferUs[CPU]).as("the whole link").isCloseTo(4_000 * 512 / 64e9 * 1e6, within(1e-9));
        assertThat(aged.version()).isEqualTo(measured.version());
    }

    @Test
    void onlyRhoMeasuredBeforeTheCutoffAgesAndASetWithNoneIsKept() {
        ParameterSet ps = ParameterSet.builder(3)
                .rho(0, Tier.CPU, 0.5, Double.NaN, 1_000)
                .rho(1, Tier.CPU, 0.3, 20e9, 5_000)
                .rho(2, Tier.NVME, 0.7)                        // no fitting window (a parameter file): never ages
                .rho(0, Tier.NVME, 0.0, Double.NaN, 10)        // 0 already: nothing to age
                .build();
        assertThat(ps.oldestRhoAsOfMs()).isEqualTo(1_000);
        assertThat(ps.withRhoMeasuredBefore(1_000)).as("measured up to the cutoff: kept").isSameAs(ps);

        ParameterSet once = ps.withRhoMeasuredBefore(2_000);
        assertThat(once.rho(0, CPU)).isZero();
        assertThat(once.rho(1, CPU)).isEqualTo(0.3);
        assertThat(once.rhoOn(1, CPU, 40e9)).as("its own reference stays").isEqualTo(0.15);
        assertThat(once.rho(2, NVME)).isEqualTo(0.7);
        assertThat(once.rhoAgedOutLinks()).isEqualTo(1);
        assertThat(once.oldestRhoAsOfMs()).isEqualTo(5_000);
        assertThat(once.withRhoMeasuredBefore(2_000)).as("aged already").isSameAs(once);

        ParameterSet twice = once.withRhoMeasuredBefore(Long.MAX_VALUE);
        assertThat(twice.rho(1, CPU)).isZero();
        assertThat(twice.rho(2, NVME)).isEqualTo(0.7);
        assertThat(twice.rhoAgedOutLinks()).as("counted over the sets it was derived from").isEqualTo(2);
        assertThat(twice.oldestRhoAsOfMs()).isEqualTo(Long.MAX_VALUE);
    }
}
