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

    /**
     * The fitted BW_t is the median of the links' peaks (7 GB/s); this NVMe link was seen moving 14 GB/s, and its ρ,
     * 0.45, is measured against that. Before: priced at the tier's 7 GB/s, its ρ put on it read 0.9 and the tier was
     * cut off at 45 % real utilisation (and, below ρ_thr, its loads were priced twice too slowly).
     */
    @Test
    void aLinkSeenFasterThanTheFittedTierBandwidthIsPricedAtItsOwnRate() {
        int nvme = Tier.NVME.ordinal();
        PrefixMatch m = new PrefixMatch(1);
        m.reset(16);
        m.set(0, nvme, 8); // cumulative: nothing in HBM or CPU, 8 blocks up to NVMe
        ParameterSet ps = ParameterSet.builder(1).bandwidth(Tier.NVME, 7e9).rhoReference(Tier.NVME, 7e9)
                .rho(0, Tier.NVME, 0.45, 14e9).build();
        CostTerms out = new CostTerms();
        CostModel.score(RouteContext.of(1, 8000, 500, 500, 512), 0, m, IDLE, new double[] {0, 0, 7e9, 0}, ps, out);

        assertThat(out.cutOffTier).as("45 % busy is no congestion").isNotEqualTo(nvme);
        assertThat(out.tierTokens[nvme]).isEqualTo(4_000);
        assertThat(out.tierTransferUs[nvme]).isCloseTo(4_000 * 512 / (14e9 * 0.55) * 1e6, within(1e-9));
        assertThat(ps.linkBandwidth(0, nvme, 7e9)).isEqualTo(14e9);
        assertThat(ParameterSet.builder(1).bandwidth(Tier.NVME, 7e9).rho(0, Tier.NVME, 0.45, 5e9).build()
                .linkBandwidth(0, nvme, 7e9)).as("a reference below the tier's is no faster link").isEqualTo(7e9);
    }

    @Test
    void onASlowerConfiguredLinkTheSameBytesSaturateItAndTheTierIsAMiss() {
        CostTerms t = score(16e9); // 16 GB/s of 16: ρ 1 > ρ_thr 0.85
        assertThat(t.cutOffTier).isEqualTo(CPU);
        assertThat(t.tierTokens[CPU]).isZero();
        assertThat(t.pEffTokens).isEqualTo(8_000);
    }
}
