package io.tierroute.fitter.bandwidth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.tierroute.fitter.Estimate;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PeakBandwidthTest {
    static final RhoConfig CONFIG = new RhoConfig(10_000, 60_000, 600_000, 10_000, 100);

    @Test
    void peakIsTheLargestRateInTheWindowAndAgesOut() {
        PeakBandwidth peak = new PeakBandwidth(CONFIG);
        SplittableRandom rnd = new SplittableRandom(3);
        long t = 0;
        for (int i = 0; i < 1200; i++) { // 20 min of 1 s samples below 7 GB/s, saturating every ~minute
            t += 1000;
            double rate = i % 60 == 0 ? 7e9 : rnd.nextDouble() * 5e9;
            peak.update(t, 1000, (long) rate);
        }
        Estimate e = peak.estimate();
        assertThat(e.value()).isCloseTo(7e9, offset(1.0));
        assertThat(e.quality()).as("repeated ceiling: small spread").isLessThan(1e6);
        assertThat(e.windowStartMs()).isGreaterThan(t - 600_000 - 10_000);
        // a burst, then ten minutes of lower traffic: the burst ages out
        peak.update(t + 1000, 1000, 20_000_000_000L);
        assertThat(peak.peak()).isCloseTo(2e10, offset(1.0));
        long t2 = t + 1000;
        for (int i = 0; i < 700; i++) {
            t2 += 1000;
            peak.update(t2, 1000, 1_000_000_000L);
        }
        assertThat(peak.peak()).isCloseTo(1e9, offset(1.0));
    }

    @Test
    void aSampleAtTheLastInstantHasAWindowThatEndsThere() {
        // its end + 1 wrapped to Long.MIN_VALUE, and the estimate threw (start after end); the job's ingest
        // refuses such times, the fitter need not rely on it
        PeakBandwidth peak = new PeakBandwidth(CONFIG);
        assertThat(peak.update(Long.MAX_VALUE, 1000, 1_000_000_000L)).isTrue();
        Estimate e = peak.estimate();
        assertThat(e.value()).isCloseTo(1e9, offset(1.0));
        assertThat(e.windowEndMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shortIntervalsAreIgnoredAndSpreadFlagsALoneBurst() {
        PeakBandwidth peak = new PeakBandwidth(CONFIG);
        assertThat(peak.update(1000, 10, 1_000_000_000L)).isFalse(); // 10 ms < 100 ms minimum
        assertThat(peak.hasValue()).isFalse();
        assertThat(peak.estimate().samples()).isZero();
        peak.update(20_000, 1000, 1_000_000_000L);
        peak.update(40_000, 1000, 1_000_000_000L);
        peak.update(60_000, 1000, 9_000_000_000L);
        assertThat(peak.estimate().value()).isCloseTo(9e9, offset(1.0));
        assertThat(peak.estimate().quality()).isGreaterThan(1e9);
    }

    @Test
    void trackerKeysLinksAndTakesTheMedianPeakPerTier() {
        RhoTracker tracker = new RhoTracker(CONFIG);
        double[] peaks = {6e9, 7e9, 100e9};
        for (int w = 0; w < 3; w++) {
            LinkKey key = new LinkKey("w" + w, "NVME");
            for (int i = 1; i <= 30; i++) {
                long bytes = (long) (i % 10 == 0 ? peaks[w] : peaks[w] / 4);
                assertThat(tracker.update(key, i * 1000L, 1000, bytes, 7e9).accepted()).isTrue();
            }
        }
        assertThat(tracker.update(new LinkKey("w0", "NVME"), 30_000, 1000, 1, 7e9)).isEqualTo(RhoOutcome.REJECTED_DUPLICATE);
        assertThat(tracker.update(new LinkKey("w0", "NVME"), 31_000, 1000, 1, Double.NaN)).isEqualTo(RhoOutcome.REJECTED_NON_FINITE);
        assertThat(tracker.count(RhoOutcome.REJECTED_DUPLICATE)).isEqualTo(1);
        assertThat(tracker.tierPeak("NVME").orElseThrow().value()).isCloseTo(7e9, offset(1.0));
        assertThat(tracker.tierPeak("CPU")).isEmpty();
        // w2 moves more than BW_t: measured against the fastest rate it was seen at, so nothing saturates (RhoTrackerTest)
        assertThat(tracker.ownReference(new LinkKey("w2", "NVME"))).hasValue(100e9);
        assertThat(tracker.rho(new LinkKey("w2", "NVME")).orElseThrow().value()).isBetween(0.25, 0.5);
        assertThat(tracker.rhoState(new LinkKey("w2", "NVME")).orElseThrow().saturatedSamples()).isZero();
        assertThat(tracker.ownReference(new LinkKey("w1", "NVME"))).as("never faster than BW_t").isEmpty();
        assertThat(tracker.links()).hasSize(3);
    }

    @Test
    void aLinkSilentSinceTheCutoffIsRetiredAndLeavesTheTierMedian() {
        RhoTracker tracker = new RhoTracker(CONFIG);
        double[] peaks = {6e9, 7e9, 100e9, 120e9};
        for (int w = 0; w < 4; w++) {
            for (int i = 1; i <= 30; i++) {
                tracker.update(new LinkKey("w" + w, "NVME"), i * 1000L, 1000, (long) peaks[w], 7e9);
            }
        }
        // w2 and w3 (the fast links) leave at 30 s; w0 and w1 go on reporting
        for (int i = 31; i <= 700; i++) {
            for (int w = 0; w < 2; w++) {
                tracker.update(new LinkKey("w" + w, "NVME"), i * 1000L, 1000, (long) peaks[w], 7e9);
            }
        }
        assertThat(tracker.tierPeak("NVME").orElseThrow().value()).as("the departed links' peaks still count")
            .isCloseTo(100e9, offset(1.0));
        assertThat(tracker.retireSilentBefore(30_000)).as("their last samples ended at the cutoff").isEmpty();
        assertThat(tracker.retireSilentBefore(30_001))
            .containsExactlyInAnyOrder(new LinkKey("w2", "NVME"), new LinkKey("w3", "NVME"));
        assertThat(tracker.links()).containsExactlyInAnyOrder(new LinkKey("w0", "NVME"), new LinkKey("w1", "NVME"));
        assertThat(tracker.rho(new LinkKey("w2", "NVME"))).isEmpty();
        assertThat(tracker.tierPeak("NVME").orElseThrow().value()).as("upper median of 6 and 7 GB/s")
            .isCloseTo(7e9, offset(1.0));
        tracker.update(new LinkKey("w0", "NVME"), 800_000, 1000, 1, 7e9);
        assertThat(tracker.retireSilentBefore(750_000)).as("w1 went silent at 700 s").containsExactly(new LinkKey("w1", "NVME"));

        // back after the silence: a fresh link, not the old EWMA
        assertThat(tracker.update(new LinkKey("w2", "NVME"), 801_000, 1000, (long) 1e9, 7e9)).isEqualTo(RhoOutcome.ACCEPTED);
        assertThat(tracker.rho(new LinkKey("w2", "NVME")).orElseThrow().samples()).isEqualTo(1);
    }
}
