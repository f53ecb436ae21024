package io.tierroute.sim.engine;

import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.baseline.RoundRobinPolicy;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A completion log's phases partition the time to the first token: queue wait + tier load + prefill = TTFT. The fitter
 * and the streaming job read them as such (the job's realised TTFT is their sum). A request preempted after its first
 * token reloads its blocks from the CPU tier; that reload is decode time, not tier load: counting it there inflated the
 * tier-load phase past the TTFT and clamped prefill to 0.
 */
class CompletionPhasesTest {

    @Test
    void aReloadAfterTheFirstTokenIsNotTierLoadTime() {
        int bs = 512;
        // 8 HBM blocks for two requests that grow to 7 and 8 blocks: the later admitted is preempted, its blocks
        // offloaded to the CPU tier, and reloaded over a slow link when it runs again.
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(bs).hbmCapacityTokens(8 * bs)
                .pcieBytesPerSecond(1e9).build();
        RequestFactory f = new RequestFactory(cfg.model(), bs);
        SimRequest a = f.request("a", 0, 1536, new long[] {1, 2, 3}, 2000, 2000, null);
        SimRequest b = f.request("b", 0, 2048, new long[] {11, 12, 13, 14}, 2000, 2000, null);
        SimResult result = new Simulation(cfg, List.of(a, b)).run(new RoundRobinPolicy(), null);

        assertThat(result.completions()).hasSize(2);
        assertThat(result.completions()).anySatisfy(c -> assertThat(c.preemptions()).as("the scenario preempts")
                .isPositive());
        for (Completion c : result.completions()) {
            assertThat(c.queueWaitMicros() + c.tierLoadMicros() + c.prefillMicros()).as(c.request().id())
                    .isEqualTo(c.ttftMicros());
        }
    }
}
