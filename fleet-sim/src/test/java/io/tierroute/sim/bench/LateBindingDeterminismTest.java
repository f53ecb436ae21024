package io.tierroute.sim.bench;

import io.tierroute.sim.policy.PolicyRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A seed's run is the same at every run with late binding holding requests on several workers, warm-up included (its
 * probes explore, ε = 0.1). The cheapest-worker hold's prototype decided the hold after a drain's dry-run pick, which
 * draws per-thread randomness so as not to disturb the seeded one, and its warm-ups, hence its fits, came out
 * differently at each run (fleet-sim/experiments/ROUNDS.md, "Cheapest-worker hold round").
 */
class LateBindingDeterminismTest {

    @Test
    void aFittedRunUnderLoadGivesTheSameRowsTwice() {
        // Four workers at load 1.25 of the agentic-pcie sessions: requests wait for busy cheapest workers.
        BenchSpec spec = new BenchSpec(null, "agentic-pcie", 1500, 4, List.of(1.25), List.of("tierroute-fitted"), 5,
                null, null, null, 0.5);
        RunReport first = new BenchRunner(new PolicyRegistry(), null).run(spec).get(0);
        RunReport second = new BenchRunner(new PolicyRegistry(), null).run(spec).get(0);
        assertThat(second.version()).as("the warm-up's fit").isEqualTo(first.version());
        for (String metric : RunReport.METRICS) {
            if (!metric.equals("wall_s")) {
                assertThat(second.get(metric)).as(metric).isEqualTo(first.get(metric));
            }
        }
    }
}
