package io.tierroute.sim.policy.oracle;

import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.engine.SimResult;
import io.tierroute.sim.engine.Simulation;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.OracleView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The oracle's forecast against the real engine: at the last arrival (no request arrives after it) the
 * forecast of the worker with the request added must be what {@code engine.Worker} then does: the
 * request's TTFT and JCT, every request's finish, the preemptions.
 */
class WorkerForecastAgainstEngineTest {

    /** One worker; at the last request's arrival, records the oracle's forecast of worker 0 with it. */
    private static final class Probe implements RoutingPolicy {
        final String lastId;
        OraclePolicy.Prediction prediction;
        List<WorkerForecast.Seq> forecast;
        long now;
        long stepRemaining;
        long preemptionsBefore;

        Probe(String lastId) { this.lastId = lastId; }

        @Override public String name() { return "probe"; }
        @Override public String version() { return "test"; }

        @Override
        public int route(SimRequest r, FleetView v, long nowMicros) {
            if (r.id().equals(lastId)) {
                OraclePolicy oracle = new OraclePolicy(v, 1);
                OracleView o = v.oracle();
                prediction = oracle.predict(o, 0, r);
                forecast = oracle.forecastWith(o, 0, r);
                now = nowMicros;
                stepRemaining = o.stepRemainingMicros(0);
                preemptionsBefore = o.preemptionsSoFar(0);
            }
            return 0;
        }
    }

    private static long[] ids(int n, long base) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) a[i] = base + i;
        return a;
    }

    private static Completion completionOf(SimResult result, String id) {
        return result.completions().stream().filter(x -> x.request().id().equals(id)).findFirst().orElseThrow();
    }

    /** @return the preemptions after the probe (forecast = realised) */
    private static long assertForecastIsRealised(EngineConfig cfg, List<SimRequest> requests) {
        String last = requests.get(requests.size() - 1).id();
        Probe probe = new Probe(last);
        SimResult result = new Simulation(cfg, requests).run(probe, null);
        Completion c = completionOf(result, last);

        assertThat(probe.prediction.ttftMicros()).isCloseTo(c.ttftMicros(), within(0.001 * c.ttftMicros() + 5));
        assertThat(probe.prediction.jctMicros()).isCloseTo(c.jctMicros(), within(0.001 * c.jctMicros() + 5));

        // every request the forecast covers finishes when it said (requests the step in progress ends are not in it)
        List<Double> predicted = new ArrayList<>();
        for (WorkerForecast.Seq s : probe.forecast) predicted.add(probe.now + s.finishedAt);
        List<Double> realised = new ArrayList<>();
        for (Completion x : result.completions()) {
            if (x.finishMicros() > probe.now + probe.stepRemaining) realised.add((double) x.finishMicros());
        }
        predicted.sort(null);
        realised.sort(null);
        assertThat(predicted).hasSameSizeAs(realised);
        for (int i = 0; i < predicted.size(); i++) {
            assertThat(predicted.get(i)).isCloseTo(realised.get(i), within(0.001 * realised.get(i) + 5));
        }
        // the preemptions the forecast makes are exactly those the engine makes after the probe
        long forecastPreemptions = probe.forecast.stream().mapToLong(s -> s.preemptions).sum();
        long realisedAfter = result.workers().get(0).preemptions() - probe.preemptionsBefore;
        assertThat(forecastPreemptions).isEqualTo(realisedAfter);
        return realisedAfter;
    }

    @Test
    void mixedPrefillsAndDecodesOnOneWorker() {
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        List<SimRequest> rs = new ArrayList<>();
        int[] prompts = {12_000, 3_000, 9_500, 700, 20_000, 5_000};
        int[] outputs = {150, 40, 300, 5, 80, 120};
        for (int i = 0; i < prompts.length; i++) {
            rs.add(f.request("r" + i, i * 37_000L, prompts[i], ids(prompts[i] / 16, 1_000_000L * i), 512, outputs[i], null));
        }
        assertForecastIsRealised(cfg, rs);
    }

    @Test
    void kvPressureWithPreemptionsAndRecompute() {
        // 4,096 tokens of HBM: the decoders' growth runs out of blocks and preempts the latest admitted
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).hbmCapacityTokens(4096).cpuCapacityTokens(0).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        List<SimRequest> rs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            rs.add(f.request("p" + i, i * 5_000L, 900, ids(900 / 16, 10_000L * i), 1024, 400 + 50 * i, null));
        }
        SimRequest last = f.request("last", 30_000, 600, ids(600 / 16, 99_000), 1024, 200, null);
        rs.add(last);
        assertThat(assertForecastIsRealised(cfg, rs)).as("preemptions after the probe, forecast and realised").isPositive();
        SimResult again = new Simulation(cfg, rs).run(new Probe("none"), null);
        assertThat(again.completions().stream().mapToInt(Completion::preemptions).sum()).isPositive(); // the scenario does preempt
    }

    @Test
    void sharedPrefixHitsCachedAndHeldBlocks() {
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).hbmCapacityTokens(65_536).cpuCapacityTokens(0).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        List<SimRequest> rs = new ArrayList<>();
        long[] prefix = ids(512, 7);
        for (int i = 0; i < 6; i++) {
            long[] idsI = new long[512 + 64];
            System.arraycopy(prefix, 0, idsI, 0, 512);
            System.arraycopy(ids(64, 50_000L * (i + 1)), 0, idsI, 512, 64);
            // the first finishes before the rest arrive (its prefix cached, unheld); the rest overlap (held)
            rs.add(f.request("s" + i, i == 0 ? 0 : 2_000_000L + i * 20_000L, idsI.length * 16, idsI, 512, 30 + 10 * i, null));
        }
        assertForecastIsRealised(cfg, rs);
    }

    @Test
    void aCpuTierHitLoadsOverTheLinkBeforeItsLastToken() {
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).hbmCapacityTokens(64).cpuCapacityTokens(1600).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        // "other" evicts "first"'s three blocks to the CPU tier; "again" hits them there
        List<SimRequest> rs = List.of(f.request("first", 0, 49, ids(3, 1), 4, 1, null),
                f.request("other", 1_000_000, 49, ids(3, 10), 4, 1, null),
                f.request("again", 2_000_000, 49, ids(3, 1), 4, 3, null));
        assertForecastIsRealised(cfg, rs);
        Probe probe = new Probe("again");
        Completion c = completionOf(new Simulation(cfg, rs).run(probe, null), "again");
        assertThat(c.hitTokens()[io.tierroute.selector.protocol.Tier.CPU.ordinal()]).isEqualTo(48); // the scenario does load
    }

    @Test
    void aLoadWhosePrefixIsInHbmDoesNotSlowTheDecodersItLoadsBeside() {
        // 16 HBM blocks; a 1/1000 link: "last"'s 3 CPU blocks take 192 ms, dozens of d's decode steps. "last" holds its
        // 2 HBM hits (cached, unheld before it) and its 3 reserved blocks while it loads: the engine's u leaves all 5
        // out (no running request holds them), and so must the forecast's
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).hbmCapacityTokens(256).cpuCapacityTokens(1600)
                .pcieBytesPerSecond(65.536e6).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        List<SimRequest> rs = List.of(
                f.request("other", 0, 49, ids(3, 10), 4, 1, null),
                f.request("first", 1_000_000, 81, ids(5, 1), 4, 1, null),            // prefix 1..5, cached after
                f.request("e", 2_000_000, 209, ids(13, 100), 4, 1, null),           // evicts 10–12 and 5, 4, 3 to CPU
                f.request("touch", 3_000_000, 33, ids(2, 1), 4, 1, null),           // 1, 2 used again: not the LRU
                f.request("d", 4_000_000, 17, ids(1, 900), 128, 100, null),          // decodes through the load
                f.request("last", 4_050_000, 81, ids(5, 1), 4, 3, null));            // 1, 2 in HBM, 3–5 in CPU
        assertForecastIsRealised(cfg, rs);
        Completion c = completionOf(new Simulation(cfg, rs).run(new Probe("none"), null), "last");
        assertThat(c.hitTokens()[io.tierroute.selector.protocol.Tier.HBM.ordinal()]).isEqualTo(32);   // the scenario:
        assertThat(c.hitTokens()[io.tierroute.selector.protocol.Tier.CPU.ordinal()]).isEqualTo(48);   // both tiers
        assertThat(c.tierLoadMicros()).isEqualTo(192_000);
    }

    @Test
    void aHitSplitBetweenTheCpuAndNvmeTiersLoadsOverBothLinks() {
        // CPU tier of 2 blocks behind HBM of 4: "other" evicts first's 3 blocks, the deepest of which the CPU tier
        // passes on to the drive; "again" then loads 2 blocks over PCIe and reads 1 from the drive, then copies it
        // over PCIe (its own reservation's evictions pass over the blocks it reads, pinned)
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).hbmCapacityTokens(64).cpuCapacityTokens(32)
                .nvmeCapacityTokens(1600).nvmeBytesPerSecond(1e9).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        List<SimRequest> rs = List.of(f.request("first", 0, 49, ids(3, 1), 4, 1, null),
                f.request("other", 1_000_000, 49, ids(3, 10), 4, 1, null),
                f.request("again", 2_000_000, 49, ids(3, 1), 4, 3, null));
        assertForecastIsRealised(cfg, rs);
        Completion c = completionOf(new Simulation(cfg, rs).run(new Probe("again"), null), "again");
        assertThat(c.hitTokens()[io.tierroute.selector.protocol.Tier.CPU.ordinal()]).isEqualTo(32);
        assertThat(c.hitTokens()[io.tierroute.selector.protocol.Tier.NVME.ordinal()]).isEqualTo(16);
        // the drive's part (16 tokens at 1 GB/s, 4,194.3 µs), then its copy over PCIe (65.5 µs), each completion
        // on the next whole µs; the CPU part's 131 µs over PCIe ran beside the read
        assertThat(c.tierLoadMicros()).isEqualTo((long) Math.ceil(16 * cfg.bytesPerToken() / 1e3)
                + (long) Math.ceil(16 * cfg.bytesPerToken() / 64e3));
    }

    @Test
    void aCpuLoadBesideADriveReadStillInFlightEndsWithItsOwnLink() {
        // y1 reads its prefix from a slow drive (0.1 GB/s) while x1 loads its own from the CPU tier over PCIe; the
        // probe p arrives with both in flight: x1 is ready when the PCIe link's bytes have moved, not the drive's
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).hbmCapacityTokens(256).cpuCapacityTokens(48)
                .nvmeCapacityTokens(1600).nvmeBytesPerSecond(1e8).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        List<SimRequest> rs = List.of(f.request("y0", 0, 49, ids(3, 1), 4, 1, null),
                f.request("x0", 1_000_000, 49, ids(3, 10), 4, 1, null),
                f.request("g", 2_000_000, 17, ids(1, 500), 300, 239, null),
                f.request("y1", 20_000_000, 49, ids(3, 1), 4, 1, null),
                f.request("x1", 20_000_010, 49, ids(3, 10), 4, 1, null),
                f.request("p", 20_000_020, 33, ids(2, 900), 8, 5, null));
        assertForecastIsRealised(cfg, rs);
        SimResult r = new Simulation(cfg, rs).run(new Probe("none"), null);
        assertThat(completionOf(r, "y1").hitTokens()[io.tierroute.selector.protocol.Tier.NVME.ordinal()]).isPositive();
        assertThat(completionOf(r, "x1").hitTokens()[io.tierroute.selector.protocol.Tier.CPU.ordinal()]).isPositive();
        assertThat(completionOf(r, "x1").tierLoadMicros()).isLessThan(completionOf(r, "y1").tierLoadMicros() / 10);
    }

    @Test
    void aRequestStillLoadingWhenTheProbeArrivesKeepsItsLoadedBlocks() {
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).hbmCapacityTokens(8192).cpuCapacityTokens(16_000).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        // "other" evicts most of "first"'s 500 blocks to the CPU tier; "again" loads them back over the link and
        // is still loading when "late" arrives: the forecast must start it from its loaded blocks, not from zero
        List<SimRequest> rs = List.of(f.request("first", 0, 8000, ids(500, 1), 4, 1, null),
                f.request("other", 1_000_000, 8000, ids(500, 100_000), 4, 1, null),
                f.request("again", 2_000_000, 8000, ids(500, 1), 4, 3, null),
                f.request("late", 2_000_100, 32, ids(2, 900_000), 4, 2, null));
        assertForecastIsRealised(cfg, rs);
        Completion again = completionOf(new Simulation(cfg, rs).run(new Probe("late"), null), "again");
        assertThat(again.hitTokens()[io.tierroute.selector.protocol.Tier.CPU.ordinal()]).isGreaterThan(7000); // it did load
        assertThat(again.ttftMicros()).isGreaterThan(100); // and its load outlasted late's arrival 100 µs after it
    }
}
