package io.tierroute.jobs.fit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tierroute.fitter.snapshot.FitResults;
import io.tierroute.jobs.join.JoinedRow;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A joined row the latency regression refuses as impossible reaches neither the admission wait's sample nor the λ fit:
 * a queue wait of 1.7e15 µs (a missing timestamp taken as the epoch) is no truer for them, and one such row drove k to 0.
 */
class ScopeEstimatorsTest {

    /** A row that carries the admission wait's fields and a λ observation (a return hit after 30 s). */
    private static JoinedRow row(double queueWaitUs) {
        JoinedRow r = new JoinedRow();
        r.scope = "s";
        r.worker = "w1";
        r.eventTimeMs = 1_700_000_000_000L;
        r.regressors.pEffTokens = 2_000;
        r.regressors.inflightDecodeTokens = 3_000;
        r.returnIdleSeconds = 30;
        r.cacheHit = true;
        r.outputTokens = 200;
        r.admission.kvUsedTokens = 40_000;
        r.admission.predictedOutputTokens = 128;
        r.admission.missingKvTokens = 0;
        r.admission.inFlight = 3;
        r.admission.predictedPrefillUs = 4_000;
        r.admission.predictedQueueUs = 500;
        r.decodeUs = 600_000;
        r.queueWaitUs = queueWaitUs;
        r.prefillUs = 4_300;
        r.realisedUs = queueWaitUs + r.prefillUs;
        return r;
    }

    @Test
    void aRowTheRegressionRefusesAsImpossibleReachesNoOtherEstimator() {
        ScopeEstimators est = new ScopeEstimators("s", 10_000, 16, 1_000);
        assertThat(est.add(row(1.7e15))).as("refused, so the caller counts it").isFalse();
        FitResults fits = est.fits(1, 1, null);
        assertThat(fits.kvWait()).as("no admission-wait row").isNull();
        assertThat(fits.decay()).as("no λ observation").isNull();

        ScopeEstimators clean = new ScopeEstimators("s", 10_000, 16, 1_000);
        assertThat(clean.add(row(700))).isTrue();
        FitResults cleanFits = clean.fits(1, 1, null);
        assertThat(cleanFits.kvWait()).as("the same row with a real queue wait is a row").isNotNull();
        assertThat(cleanFits.decay().lambda().samples()).isEqualTo(1);
    }

    /**
     * ρ is published against the BW_t its snapshot carries, not the one it was measured against: at the first fitted
     * BW_t (64 GB/s default → a 12.8 GB/s peak, when such a peak still stood for the link's speed) a link at half its
     * speed was published at 10 %, under ρ_thr, and C_tier priced it about 5× too cheap; here 64 → 48 GB/s, 37.5 % →
     * 50 %. Once that BW_t is in use, the EWMA goes on from the rescaled value.
     */
    @Test
    void rhoIsPublishedAgainstTheBandwidthItsSnapshotCarries() {
        ScopeEstimators est = new ScopeEstimators("s", 10_000, 16, 1_000);
        long t = 1_700_000_000_000L;
        est.add(cpuLink(t, 48_000_000_000L)); // the peak second: BW_t (3/4 of the 64 GB/s configured: it speaks)
        for (int i = 1; i <= 60; i++) {
            est.add(cpuLink(t + i * 1_000L, 24_000_000_000L)); // then half of it
        }
        io.tierroute.fitter.snapshot.SnapshotAssembler assembler = new io.tierroute.fitter.snapshot.SnapshotAssembler(
                "test", () -> t, io.tierroute.fitter.snapshot.SnapshotAssembler.DEFAULT_BANDWIDTHS);
        io.tierroute.schemas.avro.ParameterSnapshot candidate = assembler.assemble("s", 0, null, est.fits(1, 1, null));
        assertThat(candidate.getBandwidths()).anySatisfy(b -> {
            assertThat(b.getTier()).isEqualTo(io.tierroute.schemas.avro.Tier.CPU);
            assertThat(b.getBytesPerSecond().getValue()).isEqualTo(48e9);
        });
        assertThat(cpuRho(candidate)).as("measured against the 64 GB/s default").isCloseTo(0.375, within(0.01));
        est.rhoOnTheCarriedBandwidths(candidate);
        assertThat(cpuRho(candidate)).as("against the 48 GB/s it carries").isCloseTo(0.5, within(0.05));

        assertThat(est.useBandwidths(candidate)).as("accepted: its BW_t in use").isTrue();
        for (int i = 61; i <= 65; i++) {
            est.add(cpuLink(t + i * 1_000L, 24_000_000_000L));
        }
        io.tierroute.schemas.avro.ParameterSnapshot next = assembler.assemble("s", 1, candidate, est.fits(1, 1, null));
        est.rhoOnTheCarriedBandwidths(next);
        assertThat(cpuRho(next)).as("the EWMA rescaled with the speed, not a mix of two").isCloseTo(0.5, within(0.01));
    }

    /**
     * An NVMe link at 14 GB/s among idle ones: the tier's median peak keeps BW_t at the never-fitted 7 GB/s default,
     * against which the link saturated at ρ = 1 from 7 GB/s on, and a selector on the 14 GB/s link read 1·7/14 = 0.5
     * however busy it was. Measured against its own fastest rate, 12 GB/s reads 12/14, past the cut-off ρ_thr 0.85,
     * and the entry says which reference it is on.
     */
    @Test
    void aLinkFasterThanTheNeverFittedBandwidthIsPublishedOnItsOwnReference() {
        ScopeEstimators est = new ScopeEstimators("s", 10_000, 16, 1_000);
        long t = 1_700_000_000_000L;
        for (int i = 0; i <= 120; i++) {
            long fast = i < 5 ? 14_000_000_000L : 12_000_000_000L;
            est.add(link("w1", "NVME", t + i * 1_000L, fast));
            est.add(link("w2", "NVME", t + i * 1_000L, 0));
            est.add(link("w3", "NVME", t + i * 1_000L, 0));
        }
        io.tierroute.schemas.avro.ParameterSnapshot candidate = firstCandidate(est, t);
        assertThat(nvmeBandwidth(candidate)).as("the default, never fitted").isEqualTo(7e9);
        io.tierroute.schemas.avro.WorkerTierRho fast = rhoOf(candidate, "w1");
        assertThat(fast.getReferenceBytesPerSecond()).isEqualTo(14e9);
        assertThat(fast.getRho().getValue()).isCloseTo(12.0 / 14, within(1e-4));
        assertThat(rhoOf(candidate, "w2").getReferenceBytesPerSecond()).as("on the tier's BW_t").isNull();
    }

    /**
     * A candidate that fits a BW_t other than the one in use puts the ρ measured against the one in use on its own
     * (in use / carried); an entry on its own reference is already on the bandwidth it names and is left as measured.
     * Here three NVMe links at 14 GB/s, then 12: BW_t fits at 14 GB/s while 7 is in use, and every link is on its
     * own 14 GB/s reference: halved, it would read 6/14 on a link 86 % busy.
     */
    @Test
    void aCandidatesNewBandwidthLeavesAnEntryOnItsOwnReferenceAsMeasured() {
        ScopeEstimators est = new ScopeEstimators("s", 10_000, 16, 1_000);
        long t = 1_700_000_000_000L;
        for (int i = 0; i <= 120; i++) {
            for (String w : List.of("w1", "w2", "w3")) {
                est.add(link(w, "NVME", t + i * 1_000L, i < 5 ? 14_000_000_000L : 12_000_000_000L));
            }
        }
        io.tierroute.schemas.avro.ParameterSnapshot candidate = firstCandidate(est, t);
        assertThat(nvmeBandwidth(candidate)).as("fitted: the links' peak").isEqualTo(14e9);
        assertThat(rhoOf(candidate, "w1").getReferenceBytesPerSecond()).isEqualTo(14e9);
        est.rhoOnTheCarriedBandwidths(candidate);
        assertThat(rhoOf(candidate, "w1").getRho().getValue()).isCloseTo(12.0 / 14, within(1e-4));
    }

    /** The scope's first candidate snapshot from what {@code est} has seen, assembled at {@code t}. */
    private static io.tierroute.schemas.avro.ParameterSnapshot firstCandidate(ScopeEstimators est, long t) {
        return new io.tierroute.fitter.snapshot.SnapshotAssembler("test", () -> t,
                io.tierroute.fitter.snapshot.SnapshotAssembler.DEFAULT_BANDWIDTHS).assemble("s", 0, null,
                est.fits(1, 1, null));
    }

    private static double nvmeBandwidth(io.tierroute.schemas.avro.ParameterSnapshot s) {
        return s.getBandwidths().stream().filter(b -> b.getTier() == io.tierroute.schemas.avro.Tier.NVME).findFirst()
                .orElseThrow().getBytesPerSecond().getValue();
    }

    private static io.tierroute.schemas.avro.WorkerTierRho rhoOf(io.tierroute.schemas.avro.ParameterSnapshot s,
            String worker) {
        return s.getRho().stream().filter(r -> r.getWorker().equals(worker)).findFirst().orElseThrow();
    }

    private static io.tierroute.jobs.ingest.TelemetrySample cpuLink(long timestampMs, long bytes) {
        return link("w1", "CPU", timestampMs, bytes);
    }

    private static io.tierroute.jobs.ingest.TelemetrySample link(String worker, String tier, long timestampMs,
            long bytes) {
        io.tierroute.jobs.ingest.TelemetrySample s = new io.tierroute.jobs.ingest.TelemetrySample();
        s.scope = "s";
        s.worker = worker;
        s.engineType = "vllm";
        s.hardwarePool = "h100";
        s.timestampMs = timestampMs;
        s.intervalMs = 1_000;
        s.linkTiers = new String[] {tier};
        s.linkBytes = new long[] {bytes};
        s.linkIntervalMs = new long[] {1_000};
        return s;
    }

    private static double cpuRho(io.tierroute.schemas.avro.ParameterSnapshot s) {
        return s.getRho().stream().filter(r -> r.getTier() == io.tierroute.schemas.avro.Tier.CPU).findFirst()
                .orElseThrow().getRho().getValue();
    }
}
