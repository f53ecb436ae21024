package io.tierroute.sim.engine;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.tierroute.sim.engine.StepTimeModelTest.ids;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DESIGN §6: CPU-tier hits load over the worker's one PCIe link, whose bandwidth is split among the loads in flight.
 * Two prefixes are pushed to the CPU tier, then hit: alone, together, and one halfway through the other's load;
 * the completion logs' tier-load times show the sharing.
 */
class ConcurrentCpuLoadsTest {

    private static final int BS = 16;
    /** 65,536 bytes per µs: a 256 KiB token (Qwen3-32B, the config's default) crosses the link in exactly 4 µs. */
    private static final double LINK_BYTES_PER_SECOND = 65.536e9;
    private static final long PREFIX_TOKENS = 160; // 10 full blocks, the whole prompt but its last token

    private static final EngineConfig CFG = EngineConfig.builder().workers(1).blockSize(BS)
            .hbmCapacityTokens(32 * BS).cpuCapacityTokens(100 * BS).pcieBytesPerSecond(LINK_BYTES_PER_SECOND).build();
    private static final RequestFactory F = new RequestFactory(CFG.model(), BS);

    /**
     * a1 and b1 compute prefixes A and B (10 blocks each, cached once they finish); f then needs all 32 HBM blocks,
     * which evicts A and B to the CPU tier. Then {@code late} arrives: hits of A (at 2 s) and B (at 2 s + bLag µs).
     */
    private static List<SimRequest> history(boolean withB, long bLag) {
        List<SimRequest> rs = new ArrayList<>();
        rs.add(F.request("a1", 0, 161, ids(10, 1000), 1, 1, null));
        rs.add(F.request("b1", 0, 161, ids(10, 2000), 1, 1, null));
        rs.add(F.request("f", 1_000_000, 496, ids(31, 3000), 2, 2, null));
        rs.add(F.request("a2", 2_000_000, 161, ids(10, 1000), 1, 1, null));
        if (withB) {
            rs.add(F.request("b2", 2_000_000 + bLag, 161, ids(10, 2000), 1, 1, null));
        }
        return rs;
    }

    private static Completion byId(SimResult r, String id) {
        return r.completions().stream().filter(c -> c.request().id().equals(id)).findFirst().orElseThrow();
    }

    private static void assertWholePrefixCameFromCpu(Completion c) {
        assertThat(c.hitTokens()[Tier.CPU.ordinal()]).as(c.request().id() + " CPU hit").isEqualTo(PREFIX_TOKENS);
        assertThat(c.hitTokens()[Tier.HBM.ordinal()]).as(c.request().id() + " HBM hit").isZero();
        assertThat(c.queueWaitMicros()).as(c.request().id() + " started loading at arrival").isZero();
    }

    @Test
    void twoLoadsStartedTogetherEachTakeTwiceALoneLoad() {
        // 160 tokens × 262,144 B = 41,943,040 B at 65,536 B/µs = 640 µs alone; sharing the link, 1,280 µs each.
        long alone = Math.round(PREFIX_TOKENS * CFG.bytesPerToken() / (LINK_BYTES_PER_SECOND / 1e6));
        assertThat(alone).isEqualTo(640);

        SimResult single = new Simulation(CFG, history(false, 0)).run(new WorkerScenarioTest.Recorder(), null);
        Completion a = byId(single, "a2");
        assertWholePrefixCameFromCpu(a);
        assertThat(a.tierLoadMicros()).isEqualTo(alone);

        SimResult both = new Simulation(CFG, history(true, 0)).run(new WorkerScenarioTest.Recorder(), null);
        Completion a2 = byId(both, "a2");
        Completion b2 = byId(both, "b2");
        assertWholePrefixCameFromCpu(a2);
        assertWholePrefixCameFromCpu(b2);
        assertThat(a2.tierLoadMicros()).isEqualTo(2 * alone);
        assertThat(b2.tierLoadMicros()).isEqualTo(2 * alone);
        // the link was busy 1,280 µs for the two loads, not 2 × 640 one after the other or 640 side by side
        assertThat(both.workers().get(0).linkBusyMicros()).isEqualTo(2 * alone);
        assertThat(both.workers().get(0).linkBytes()).isEqualTo(2 * PREFIX_TOKENS * CFG.bytesPerToken());
        // the link is the only difference: the first token follows the load by the same 2-token prefill step
        assertThat(a2.ttftMicros() - a2.tierLoadMicros()).isEqualTo(b2.ttftMicros() - b2.tierLoadMicros());
    }

    @Test
    void aLoadStartedHalfwayThroughAnotherSlowsItFromThenOn() {
        // a2 moves half its bytes alone (320 µs), then shares: the other half at half rate (640 µs) → 960 µs.
        // b2 moves half at half rate alongside a2 (640 µs), then the rest alone (320 µs) → 960 µs.
        SimResult r = new Simulation(CFG, history(true, 320)).run(new WorkerScenarioTest.Recorder(), null);
        Completion a2 = byId(r, "a2");
        Completion b2 = byId(r, "b2");
        assertWholePrefixCameFromCpu(a2);
        assertWholePrefixCameFromCpu(b2);
        assertThat(a2.tierLoadMicros()).isEqualTo(960);
        assertThat(b2.tierLoadMicros()).isEqualTo(960);
        assertThat(r.workers().get(0).linkBusyMicros()).isEqualTo(320 + 960);
    }
}
