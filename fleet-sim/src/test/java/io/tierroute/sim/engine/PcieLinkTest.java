package io.tierroute.sim.engine;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PcieLinkTest {

    private static final double BW = 64e9; // 64,000 bytes per µs

    @Test
    void aLoneTransferRunsAtFullBandwidth() {
        PcieLink link = new PcieLink(BW);
        link.start(0, 64e6, "a");
        assertThat(link.nextCompletion(0)).isEqualTo(1000);
        assertThat(link.complete(999)).isEmpty();
        assertThat(link.complete(1000)).extracting(PcieLink.Transfer::owner).containsExactly("a");
        assertThat(link.busyMicros(5000)).isEqualTo(1000);
    }

    @Test
    void twoConcurrentTransfersEachGetHalfTheLink() {
        PcieLink link = new PcieLink(BW);
        link.start(0, 64e6, "a");
        link.start(0, 64e6, "b");
        assertThat(link.nextCompletion(0)).isEqualTo(2000);
        assertThat(link.complete(1999)).isEmpty();
        assertThat(link.complete(2000)).extracting(PcieLink.Transfer::owner).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void aLateSecondTransferSlowsTheFirstFromThenOn() {
        PcieLink link = new PcieLink(BW);
        link.start(0, 64e6, "a");
        long v = link.version();
        link.start(500, 64e6, "b"); // a has 32e6 left, now at half rate: 1000 µs more
        assertThat(link.version()).isNotEqualTo(v);
        assertThat(link.nextCompletion(500)).isEqualTo(1500);
        assertThat(link.complete(1500)).extracting(PcieLink.Transfer::owner).containsExactly("a");
        // b moved 32e6 at half rate, 32e6 left alone at full rate: done at 2000
        assertThat(link.nextCompletion(1500)).isEqualTo(2000);
        assertThat(link.complete(2000)).extracting(PcieLink.Transfer::owner).containsExactly("b");
        assertThat(link.bytesMoved(2000)).isCloseTo(128e6, org.assertj.core.data.Offset.offset(1.0));
    }
}
