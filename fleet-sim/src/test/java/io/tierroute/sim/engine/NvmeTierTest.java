package io.tierroute.sim.engine;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.WorkerTelemetry;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.tierroute.sim.engine.StepTimeModelTest.ids;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * DESIGN §6's optional NVMe tier: it receives the CPU tier's evictions; its hits are read over the drive's own link
 * (shared by its reads like the PCIe link) and then copied over the PCIe link, while the prompt's CPU-tier blocks
 * load over PCIe from the start. Two prefixes are pushed out of HBM into a CPU tier that holds only part of them,
 * then hit.
 */
class NvmeTierTest {

    private static final int BS = 16;
    /** 65,536 bytes per µs: a 256 KiB token crosses PCIe in 4 µs. */
    private static final double PCIE = 65.536e9;
    /** 16,384 bytes per µs: 16 µs per token from the drive. */
    private static final double NVME = 16.384e9;
    private static final long TOKEN = 262_144; // bytes: Qwen3-32B, the config's default
    private static final long PREFIX_TOKENS = 160; // 10 full blocks, the whole prompt but its last token

    private static EngineConfig config(int cpuBlocks) {
        return config(cpuBlocks, PCIE);
    }

    private static EngineConfig config(int cpuBlocks, double pcie) {
        return EngineConfig.builder().workers(1).blockSize(BS).hbmCapacityTokens(32 * BS)
                .cpuCapacityTokens((long) cpuBlocks * BS).pcieBytesPerSecond(pcie)
                .nvmeCapacityTokens(100 * BS).nvmeBytesPerSecond(NVME).build();
    }

    /**
     * a1 then b1 compute prefixes A and B (10 blocks each); f then needs all 32 HBM blocks, which evicts A's blocks
     * and then B's (each deepest first) into the CPU tier; what it cannot hold (A's first) goes to the drive.
     */
    private static List<SimRequest> history(EngineConfig cfg, String... hits) {
        RequestFactory f = new RequestFactory(cfg.model(), BS);
        List<SimRequest> rs = new ArrayList<>();
        rs.add(f.request("a1", 0, 161, ids(10, 1000), 1, 1, null));
        rs.add(f.request("b1", 0, 161, ids(10, 2000), 1, 1, null));
        rs.add(f.request("f", 1_000_000, 496, ids(31, 3000), 2, 2, null));
        for (String h : hits) {
            rs.add(f.request(h, 2_000_000, 161, ids(10, h.startsWith("a") ? 1000 : 2000), 1, 1, null));
        }
        return rs;
    }

    private static Completion byId(SimResult r, String id) {
        return r.completions().stream().filter(c -> c.request().id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void aPrefixTheCpuTierCouldNotKeepLoadsFromTheDriveAtItsBandwidth() {
        EngineConfig cfg = config(10); // the CPU tier keeps B; A, evicted first, moves on to the drive
        WorkerScenarioTest.Recorder recorder = new WorkerScenarioTest.Recorder();
        SimResult r = new Simulation(cfg, history(cfg, "a2")).run(recorder, null);

        Completion a2 = byId(r, "a2");
        assertThat(a2.hitTokens()[Tier.NVME.ordinal()]).isEqualTo(PREFIX_TOKENS);
        assertThat(a2.hitTokens()[Tier.CPU.ordinal()]).isZero();
        // 160 tokens × 262,144 B read at 16,384 B/µs (2,560 µs), then copied over PCIe at 65,536 B/µs (640 µs)
        assertThat(a2.tierLoadMicros()).isEqualTo(160 * 16 + 160 * 4);

        SimResult.WorkerStats w = r.workers().get(0);
        assertThat(w.nvmeBytes()).isEqualTo(PREFIX_TOKENS * cfg.bytesPerToken());
        assertThat(w.nvmeBusyMicros()).isEqualTo(160 * 16);
        assertThat(w.linkBytes()).as("the drive's blocks crossed PCIe too").isEqualTo(PREFIX_TOKENS * cfg.bytesPerToken());

        // the engine announced each move to the drive: A's 10 blocks when f evicted them, then B's 10 when a2's
        // load reserved HBM and f's evicted blocks pushed B (not pinned: a2 does not read it) out of the CPU tier
        List<KvEvent.Moved> toDrive = recorder.events.stream().filter(e -> e instanceof KvEvent.Moved m && m.to() == Tier.NVME)
                .map(e -> (KvEvent.Moved) e).toList();
        assertThat(toDrive).allMatch(m -> m.from() == Tier.CPU);
        assertThat(toDrive.stream().mapToInt(m -> m.blockHashes().length).sum()).isEqualTo(20);
        // and its telemetry reports the bytes each tier's link moved
        long nvmeMoved = recorder.telemetry.stream().mapToLong(t -> t.tierBytesMoved()[Tier.NVME.ordinal()]).sum();
        assertThat(nvmeMoved).isEqualTo(Math.round(PREFIX_TOKENS * cfg.bytesPerToken()));
        assertThat(recorder.telemetry.stream().mapToDouble(t -> t.tierLinkUtilisation()[Tier.NVME.ordinal()]).max().orElse(0))
                .isPositive();
    }

    @Test
    void aPrefixSplitBetweenTheTiersLoadsOverBothLinksAtOnce() {
        EngineConfig cfg = config(15); // the CPU tier keeps B and A's first five blocks; A's last five go to the drive
        SimResult r = new Simulation(cfg, history(cfg, "a2")).run(new WorkerScenarioTest.Recorder(), null);
        Completion a2 = byId(r, "a2");
        assertThat(a2.hitTokens()[Tier.CPU.ordinal()]).isEqualTo(80);
        assertThat(a2.hitTokens()[Tier.NVME.ordinal()]).isEqualTo(80);
        // 80 tokens over PCIe (0–320 µs) beside 80 read from the drive (0–1,280 µs) and then copied over PCIe
        // (1,280–1,600 µs): ready at 1,600 µs, not after the three one after another (1,920)
        assertThat(a2.tierLoadMicros()).isEqualTo(80 * 16 + 80 * 4);
        assertThat(a2.queueWaitMicros()).isZero();
    }

    @Test
    void aDriveReadEndingWithTheCpuPartsLoadGoesOnOverPcie() {
        // PCIe as slow as the drive: the CPU part's load and the drive read both end at 1,280 µs, the same instant
        EngineConfig cfg = config(15, NVME);
        SimResult r = new Simulation(cfg, history(cfg, "a2")).run(new WorkerScenarioTest.Recorder(), null);
        Completion a2 = byId(r, "a2");
        assertThat(a2.hitTokens()[Tier.CPU.ordinal()]).isEqualTo(80);
        assertThat(a2.hitTokens()[Tier.NVME.ordinal()]).isEqualTo(80);
        assertThat(a2.tierLoadMicros()).isEqualTo(80 * 16 + 80 * 16);
        assertThat(r.workers().get(0).linkBytes()).isEqualTo(160.0 * TOKEN);
        assertThat(r.workers().get(0).nvmeBytes()).isEqualTo(80.0 * TOKEN);
    }

    @Test
    void withoutAnNvmeTierTheCpuTiersOverflowIsRemovedAsBefore() {
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(BS).hbmCapacityTokens(32 * BS)
                .cpuCapacityTokens(10 * BS).pcieBytesPerSecond(PCIE).build();
        WorkerScenarioTest.Recorder recorder = new WorkerScenarioTest.Recorder();
        SimResult r = new Simulation(cfg, history(cfg, "a2")).run(recorder, null);
        Completion a2 = byId(r, "a2");
        assertThat(a2.hitTokens()[Tier.NVME.ordinal()]).isZero();
        assertThat(a2.hitTokens()[Tier.CPU.ordinal()]).isZero(); // A left the CPU tier for good: recomputed
        assertThat(recorder.events).noneMatch(e -> e instanceof KvEvent.Moved m && m.to() == Tier.NVME);
        assertThat(recorder.telemetry).allMatch(t -> t.tierBytesMoved()[Tier.NVME.ordinal()] == 0);
        assertThat(r.workers().get(0).nvmeBusyMicros()).isZero();
    }

    @Test
    void anNvmeTierNeedsACpuTierToFillIt() {
        assertThatThrownBy(() -> EngineConfig.builder().cpuCapacityTokens(0).nvmeCapacityTokens(1_000_000).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs a CPU tier");
        assertThatThrownBy(() -> EngineConfig.builder().nvmeBytesPerSecond(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nvmeBytesPerSecond");
        assertThat(EngineConfig.builder().build().hasNvmeTier()).as("none by default").isFalse();
    }

    /** Telemetry's NVMe entries are the drive link's own (never the PCIe link's), in every sample. */
    @Test
    void telemetryKeepsTheTwoLinksApart() {
        EngineConfig cfg = config(10);
        WorkerScenarioTest.Recorder recorder = new WorkerScenarioTest.Recorder();
        List<SimRequest> rs = history(cfg, "b2");
        SimResult r = new Simulation(cfg, rs).run(recorder, null);
        // b2 finds B in the CPU tier and loads it from there: its own reservation evicts f's blocks into the CPU
        // tier, whose overflow passes over B (pinned while b2 reads it) and moves f's blocks on to the drive
        Completion b2 = byId(r, "b2");
        assertThat(b2.hitTokens()[Tier.CPU.ordinal()]).isEqualTo(PREFIX_TOKENS);
        assertThat(b2.tierLoadMicros()).isEqualTo(160 * 4);
        java.util.Set<Long> bBlocks = new java.util.HashSet<>();
        for (long h : rs.get(rs.size() - 1).blockHashes()) bBlocks.add(h);
        List<Long> toDrive = recorder.events.stream().filter(e -> e instanceof KvEvent.Moved m && m.to() == Tier.NVME)
                .flatMap(e -> java.util.Arrays.stream(((KvEvent.Moved) e).blockHashes()).boxed()).toList();
        // A's 10 (f's admission), then 9 of f's (b2's reservation for its load), then one of B's once the load is
        // done and b2's prefill takes one more HBM block: pinned no longer, B's first block is the CPU tier's LRU
        assertThat(toDrive).hasSize(20);
        assertThat(toDrive.subList(0, 19)).noneMatch(bBlocks::contains);
        assertThat(bBlocks).contains(toDrive.get(19));
        long cpuMoved = recorder.telemetry.stream().mapToLong(t -> t.tierBytesMoved()[Tier.CPU.ordinal()]).sum();
        assertThat(cpuMoved).isEqualTo(Math.round(PREFIX_TOKENS * cfg.bytesPerToken()));
        assertThat(recorder.telemetry).allMatch((WorkerTelemetry t) -> t.tierBytesMoved()[Tier.NVME.ordinal()] == 0);
    }
}
