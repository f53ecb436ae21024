package io.tierroute.fitter.bandwidth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import org.junit.jupiter.api.Test;

/** What each link's ρ is measured against: the tier's BW_t, or the link's own fastest rate where that is higher. */
class RhoTrackerTest {
    static final RhoConfig CONFIG = RhoConfig.defaults();
    static final double DEFAULT_NVME = 7e9;
    static final LinkKey FAST = new LinkKey("w0", "NVME");

    /** 1 s samples at {@code bytesPerSecond} from second {@code from} to {@code to}, inclusive. */
    private static void steady(RhoTracker tracker, LinkKey link, int from, int to, double bytesPerSecond, double tierBw) {
        for (int i = from; i <= to; i++) {
            assertThat(tracker.update(link, i * 1000L, 1000, (long) bytesPerSecond, tierBw).accepted()).isTrue();
        }
    }

    @Test
    void aLinkFasterThanTheTiersBandwidthIsMeasuredAgainstItsFastestRateAndDoesNotSaturate() {
        RhoTracker tracker = new RhoTracker(CONFIG);
        steady(tracker, FAST, 1, 5, 14e9, DEFAULT_NVME); // a 14 GB/s link, once driven at full speed
        steady(tracker, FAST, 6, 200, 12e9, DEFAULT_NVME); // then 12 GB/s for minutes: 86 % busy
        assertThat(tracker.ownReference(FAST)).hasValue(14e9);
        double rho = tracker.rho(FAST).orElseThrow().value();
        assertThat(rho).as("12 of 14 GB/s, past the cut-off ρ_thr 0.85; against 7 GB/s it was 1")
                .isCloseTo(12.0 / 14, offset(1e-6));
        assertThat(tracker.rhoState(FAST).orElseThrow().saturatedSamples()).isZero();
    }

    @Test
    void aRisingReferencePutsWhatTheEwmaHoldsOnIt() {
        RhoTracker tracker = new RhoTracker(CONFIG);
        steady(tracker, FAST, 1, 200, 3.5e9, DEFAULT_NVME); // half of BW_t for minutes
        assertThat(tracker.rho(FAST).orElseThrow().value()).isCloseTo(0.5, offset(1e-6));
        assertThat(tracker.ownReference(FAST)).isEmpty();
        // one interval of 50 ms at 70 GB/s, too short to speak for the link: clamped against the reference in use
        assertThat(tracker.update(FAST, 200_050, 50, 3_500_000_000L, DEFAULT_NVME).accepted()).isTrue();
        assertThat(tracker.ownReference(FAST)).as("a short interval's rate is no speed").isEmpty();
        // a full second at 14 GB/s: the reference doubles and the byte rate the EWMA held is kept (ρ·reference)
        double bytesRateBefore = tracker.rho(FAST).orElseThrow().value() * DEFAULT_NVME;
        tracker.update(FAST, 201_050, 1000, 14_000_000_000L, DEFAULT_NVME);
        double rho = tracker.rho(FAST).orElseThrow().value();
        double beta = Math.exp(-1000.0 / CONFIG.tauMs());
        assertThat(rho * 14e9).as("EWMA of byte rates, no sample lost to the clamp")
                .isCloseTo(beta * bytesRateBefore + (1 - beta) * 14e9, offset(1.0));
    }

    @Test
    void aNewTierBandwidthLeavesALinkSeenFasterOnItsOwnRate() {
        RhoTracker tracker = new RhoTracker(CONFIG);
        LinkKey slow = new LinkKey("w1", "NVME");
        steady(tracker, FAST, 1, 100, 14e9, DEFAULT_NVME);
        steady(tracker, slow, 1, 100, 3.5e9, DEFAULT_NVME);
        tracker.measureTierAgainst("NVME", 10e9); // BW_t fitted at 10 GB/s
        assertThat(tracker.ownReference(FAST)).hasValue(14e9);
        assertThat(tracker.rho(FAST).orElseThrow().value()).isCloseTo(1.0, offset(1e-9));
        assertThat(tracker.ownReference(slow)).isEmpty();
        assertThat(tracker.rho(slow).orElseThrow().value()).as("3.5 of 10 GB/s").isCloseTo(0.35, offset(1e-9));
        tracker.measureTierAgainst("NVME", 20e9); // now faster than the link was ever seen: the tier's BW_t again
        assertThat(tracker.ownReference(FAST)).isEmpty();
        assertThat(tracker.rho(FAST).orElseThrow().value()).isCloseTo(0.7, offset(1e-9));
    }

    @Test
    void aRefusedSampleDoesNotRaiseTheReference() {
        RhoTracker tracker = new RhoTracker(CONFIG);
        steady(tracker, FAST, 1, 10, 3.5e9, DEFAULT_NVME);
        assertThat(tracker.update(FAST, 10_000, 1000, 70_000_000_000L, DEFAULT_NVME))
                .isEqualTo(RhoOutcome.REJECTED_DUPLICATE);
        assertThat(tracker.update(FAST, 9_000, 1000, 70_000_000_000L, DEFAULT_NVME))
                .isEqualTo(RhoOutcome.REJECTED_OUT_OF_ORDER);
        assertThat(tracker.ownReference(FAST)).isEmpty();
        assertThat(tracker.rho(FAST).orElseThrow().value()).isCloseTo(0.5, offset(1e-9));
    }

    @Test
    void aRateBeyondBandwidthsUpperBoundIsCappedThere() {
        RhoTracker tracker = new RhoTracker(CONFIG);
        assertThat(tracker.update(FAST, 1000, 1000, Long.MAX_VALUE, DEFAULT_NVME).accepted()).isTrue();
        assertThat(tracker.ownReference(FAST)).hasValue(RhoTracker.MAX_REFERENCE);
        assertThat(tracker.rho(FAST).orElseThrow().value()).isEqualTo(1.0);
    }

    /**
     * Beyond a cap the links least recently heard from are dropped, whatever the owner's event time: while that stalls,
     * workers that come and go (a pod name per restart) would otherwise pile up for ever. "Least recently" by arrival:
     * the live workers of a lagging input partition send the oldest samples, and stay.
     */
    @Test
    void beyondACapTheLinksLeastRecentlyHeardFromAreDropped() {
        RhoTracker tracker = new RhoTracker(CONFIG);
        LinkKey lagging = new LinkKey("behind-a-lagging-partition", "CPU");
        for (int pod = 0; pod < 10; pod++) {
            steady(tracker, new LinkKey("pod-" + pod, "CPU"), 1000 + pod * 10 + 1, 1000 + pod * 10 + 3, 1e9,
                    DEFAULT_NVME);
            steady(tracker, lagging, pod + 1, pod + 1, 1e9, DEFAULT_NVME); // an hour behind the others, still sending
        }
        assertThat(tracker.retireOldestBeyond(11)).as("at the cap: nothing").isEmpty();

        assertThat(tracker.retireOldestBeyond(7)).containsExactly(new LinkKey("pod-0", "CPU"),
                new LinkKey("pod-1", "CPU"), new LinkKey("pod-2", "CPU"), new LinkKey("pod-3", "CPU"));
        assertThat(tracker.links()).hasSize(7).contains(lagging, new LinkKey("pod-9", "CPU"));
    }
}
