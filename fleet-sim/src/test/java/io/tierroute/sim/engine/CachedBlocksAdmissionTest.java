package io.tierroute.sim.engine;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.WorkerTelemetry;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.tierroute.sim.engine.StepTimeModelTest.ids;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DESIGN §6 (as vLLM): cached blocks that no request holds count as free HBM. A request whose only obstacle is such
 * blocks is admitted at once, evicting them; the same blocks held by a running request make it wait.
 *
 * <p>8 HBM blocks of 16 tokens, no CPU tier. x computes a 112-token prompt (7 full blocks); y, a different 120-token
 * prompt, needs all 8 blocks ⌈120 / 16⌉.
 */
class CachedBlocksAdmissionTest {

    private static final int BS = 16;
    private static final EngineConfig CFG = EngineConfig.builder().workers(1).blockSize(BS).hbmCapacityTokens(8 * BS)
            .cpuCapacityTokens(0).build();
    private static final RequestFactory F = new RequestFactory(CFG.model(), BS);

    private static long prefillMicros(long t) { // DESIGN §6's published coefficients
        return Math.round((4.209989e-7 * t * t + 1.518344e-2 * t + 16.50142) * 1000);
    }

    private static Completion byId(SimResult r, String id) {
        return r.completions().stream().filter(c -> c.request().id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void aRequestWhoseOnlyObstacleIsUnheldCachedBlocksIsAdmittedAtOnce() {
        SimRequest x = F.request("x", 0, 112, ids(7, 500), 1, 1, null);
        SimRequest y = F.request("y", 1_000_000, 120, ids(7, 900), 1, 1, null);
        WorkerScenarioTest.Recorder rec = new WorkerScenarioTest.Recorder() {
            @Override public long telemetryPeriodMicros() { return 500_000; }
        };
        SimResult r = new Simulation(CFG, List.of(x, y)).run(rec, null);

        // At 0.5 s x has finished: its 7 blocks are resident (1 slot free) but nobody holds them.
        WorkerTelemetry mid = rec.telemetry.stream().filter(t -> t.atMicros() == 500_000).findFirst().orElseThrow();
        assertThat(mid.hbmCachedBlocks()).isEqualTo(7);
        assertThat(mid.kvUsage()).isZero();

        Completion cy = byId(r, "y");
        assertThat(cy.queueWaitMicros()).as("admitted at arrival").isZero();
        assertThat(cy.ttftMicros()).isEqualTo(prefillMicros(120));
        assertThat(cy.hitTokens()[Tier.HBM.ordinal()]).isZero();
        assertThat(cy.computedTokens()).isEqualTo(120);
        // the 7 cached blocks made room, deepest first (no CPU tier: Removed HBM)
        long[] xh = x.blockHashes();
        assertThat(rec.events).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(KvEvent.Removed.class, rm -> {
            assertThat(rm.tier()).isEqualTo(Tier.HBM);
            assertThat(rm.blockHashes()).containsExactly(xh[6], xh[5], xh[4], xh[3], xh[2], xh[1], xh[0]);
        }));
        assertThat(r.workers().get(0).evictions()).isEqualTo(7);
    }

    @Test
    void theSameBlocksHeldByARunningRequestMakeItWait() {
        // x2 decodes one token after its prefill (holding 8 blocks in that step); y arrives during the prefill.
        SimRequest x2 = F.request("x2", 0, 112, ids(7, 500), 2, 2, null);
        SimRequest y = F.request("y", 1, 120, ids(7, 900), 1, 1, null);
        SimResult r = new Simulation(CFG, List.of(x2, y)).run(new WorkerScenarioTest.Recorder(), null);
        long prefill112 = prefillMicros(112);                                    // 18,207 µs
        long decodeFull = Math.round(Math.max(1.0, -25.74 + 54.01 + 5.74) * 1000); // u = 8/8: 34,010 µs
        assertThat(prefill112).isEqualTo(18_207);
        assertThat(decodeFull).isEqualTo(34_010);
        assertThat(byId(r, "x2").finishMicros()).isEqualTo(prefill112 + decodeFull);
        Completion cy = byId(r, "y");
        assertThat(cy.queueWaitMicros()).as("waits until x2 releases its blocks").isEqualTo(prefill112 + decodeFull - 1);
        assertThat(cy.ttftMicros()).isEqualTo(prefill112 + decodeFull - 1 + prefillMicros(120));
    }
}
