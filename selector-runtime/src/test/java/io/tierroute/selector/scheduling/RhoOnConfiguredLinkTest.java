package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.sequences.LoadView;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code C_tier} on a worker's configured link when the snapshot's ρ was measured against another BW_t (a never-fitted
 * default the selector does not apply): ρ is rescaled to the link in use before the ρ_thr cut-off and the free
 * bandwidth {@code BW·(1 − ρ)}. Fixture: ISL 8,000 of which 4,000 tokens (8 blocks) sit in the CPU tier, 512 B/token,
 * ρ_CPU 0.25 of the 64 GB/s default = 16 GB/s moving.
 */
class RhoOnConfiguredLinkTest {

    private static final int CPU = Tier.CPU.ordinal();
    private static final LoadView IDLE = new LoadView(0, 0, 0, 0, 0, 125_000, 0);

    private static CostTerms score(double configuredCpuBytesPerSecond) {
        PrefixMatch m = new PrefixMatch(1);
        m.reset(16);
        for (int t = CPU; t < Tier.COUNT; t++) {
            m.set(0, t, 8); // cumulative: nothing in HBM, 8 blocks up to the CPU tier
        }
        ParameterSet ps = ParameterSet.builder(1).rho(0, Tier.CPU, 0.25).rhoReference(Tier.CPU, 64e9).build();
        CostTerms out = new CostTerms();
        CostModel.score(RouteContext.of(1, 8000, 500, 500, 512), 0, m, IDLE,
                new double[] {0, configuredCpuBytesPerSecond, 0, 0}, ps, out);
        return out;
    }

    @Test
    void onTheLinkItWasMeasuredOnRhoIsAsPublished() {
        CostTerms t = score(64e9);
        assertThat(t.cutOffTier).isNotEqualTo(CPU);
        assertThat(t.tierTokens[CPU]).isEqualTo(4_000);
        assertThat(t.tierTransferUs[CPU]).isCloseTo(4_000 * 512 / (64e9 * 0.75) * 1e6, within(1e-9));
    }

    @Test
    void onAFasterConfiguredLinkTheSameBytesAreASmallerShare() {
        CostTerms t = score(128e9); // 16 GB/s of 128: ρ 0.125
        assertThat(t.tierTransferUs[CPU]).isCloseTo(4_000 * 512 / (128e9 * 0.875) * 1e6, within(1e-9));
    }

    /** A link too slow to time the load on (its transfer overflows to infinity) is a miss, not a worker unpriced. */
    @Test
    void aLinkSoSlowTheLoadNeverEndsIsAMissAndTheWorkerStaysPriced() {
        PrefixMatch m = new PrefixMatch(1);
        m.reset(16);
        for (int t = CPU; t < Tier.COUNT; t++) {
            m.set(0, t, 8);
        }
        CostTerms out = new CostTerms();
        CostModel.score(RouteContext.of(1, 8000, 500, 500, 512), 0, m, IDLE, new double[] {0, 1e-300, 0, 0},
                ParameterSet.builder(1).build(), out); // no ρ measured: nothing rescales it past ρ_thr
        assertThat(out.cutOffTier).isEqualTo(CPU);
        assertThat(out.tierTokens[CPU]).isZero();
        assertThat(out.tierTransferUs[CPU]).isZero();
        assertThat(out.pEffTokens).isEqualTo(8_000);
        assertThat(out.total).isFinite();
    }

    @Test
    void onASlowerConfiguredLinkTheSameBytesSaturateItAndTheTierIsAMiss() {
        CostTerms t = score(16e9); // 16 GB/s of 16: ρ 1 > ρ_thr 0.85
        assertThat(t.cutOffTier).isEqualTo(CPU);
        assertThat(t.tierTokens[CPU]).isZero();
        assertThat(t.pEffTokens).isEqualTo(8_000);
    }
}
