package io.tierroute.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.sim.bench.BenchRunner;
import io.tierroute.sim.bench.BenchSpec;
import io.tierroute.sim.bench.RunReport;
import io.tierroute.sim.policy.PolicyRegistry;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.Workloads;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A link so slow that each CPU-tier load takes simulated hours: at the time its completion event was set for, rounding
 * left a transfer a hair short, nothing finished, and the link's event was not set again. The simulation stalled
 * ("nothing left to run") with loads in flight; now the event is set again and every request finishes.
 */
class SlowLinkTest {
    @Test
    void loadsOnAVerySlowLinkAllFinish() {
        BenchSpec spec = new BenchSpec(null, "cpu-overflow", 200, 8, List.of(1.0), List.of("llmd-tiered-cpu"), 1, null,
                null, null, 0.3);
        // 1 MB/s, a tenth of what the CLI accepts (--pcie-gbps ≥ 0.01): the engine itself takes any positive rate
        EngineConfig tuned = Workloads.named("cpu-overflow").tune(EngineConfig.builder().workers(8))
                .pcieBytesPerSecond(1e6).build();
        List<SimRequest> requests = BenchRunner.requests(spec, tuned);
        RunReport r = new BenchRunner(new PolicyRegistry(), null).runOne(tuned, requests, requests.subList(0, 60),
                "llmd-tiered-cpu", 1, 1.0);
        assertThat(r.get("requests")).isEqualTo(200.0);
        assertThat(r.get("hit_cpu")).as("CPU-tier loads happened, over the slow link").isPositive();
    }
}
