package io.tierroute.sim.engine;

import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.baseline.RoundRobinPolicy;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class StepTimeModelTest {

    @Test
    void prefillAndDecodeFollowThePublishedFormulas() {
        assertThat(StepTimeModel.prefillMillis(8192))
                .isCloseTo(4.209989e-7 * 8192 * 8192 + 1.518344e-2 * 8192 + 16.50142, within(1e-9));
        assertThat(StepTimeModel.prefillMillis(8192)).isCloseTo(169.137, within(0.001));
        assertThat(StepTimeModel.decodeMillis(0.5)).isCloseTo(-25.74 * 0.25 + 54.01 * 0.5 + 5.74, within(1e-9));
        assertThat(StepTimeModel.decodeMillis(0)).isEqualTo(5.74);
        assertThat(StepTimeModel.decodeMillis(2.5)).isEqualTo(1.0); // the floor
    }

    @Test
    void mixedStepAddsBothPartsAndEmptyStepIsFree() {
        long mixed = StepTimeModel.stepMicros(1000, 3, 0.25);
        assertThat(mixed).isEqualTo(Math.round((StepTimeModel.prefillMillis(1000) + StepTimeModel.decodeMillis(0.25)) * 1000));
        assertThat(StepTimeModel.stepMicros(0, 0, 0.3)).isZero();
        assertThat(StepTimeModel.stepMicros(0, 5, 0)).isEqualTo(5740);
    }

    @Test
    void firstTokenComesFromTheStepThatFinishesPrefillInBudgetedChunks() {
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).cpuCapacityTokens(0).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        // 10,000 prompt tokens > 8,192 budget: two chunks, 8,192 then 1,808; one output token.
        SimRequest r = f.request("r", 1_000, 10_000, ids(10_000 / 16, 0), 1, 1, null);
        Simulation sim = new Simulation(cfg, List.of(r));
        Completion c = sim.run(new RoundRobinPolicy(), null).completions().get(0);
        long expected = StepTimeModel.stepMicros(8192, 0, 0) + StepTimeModel.stepMicros(1808, 0, 0);
        assertThat(c.ttftMicros()).isEqualTo(expected);
        assertThat(c.outputTokens()).isEqualTo(1);
        assertThat(c.jctMicros()).isEqualTo(expected);
    }

    static long[] ids(int n, long base) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = base + i;
        }
        return a;
    }
}
