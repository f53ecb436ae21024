package io.tierroute.sim.bench;

import io.tierroute.sim.policy.PolicyRegistry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run that rejected requests (HBM too small for them) is said as it ends, not only as a count in the tables: with
 * every request rejected a run once printed a table of "n/a" and exited 0 without a word.
 */
class RejectedRequestsWarningTest {

    @Test
    void aRunThatRejectedEveryRequestSaysSoAndWhatToChange() {
        // 512 tokens of HBM (the least allowed): no chat prompt with its output fits.
        BenchSpec tiny = new BenchSpec(null, "chat", 50, 2, List.of(1.0), List.of("round-robin"), 1, 512L, null, null, 0.3);
        List<String> warnings = new ArrayList<>();
        List<RunReport> reports = new BenchRunner(new PolicyRegistry(), null).warnings(warnings::add).run(tiny);

        assertThat(reports.get(0).get("rejected")).isEqualTo(50.0);
        assertThat(warnings).containsExactly("round-robin @ load 1.00, seed 1: 50 of 50 requests rejected (a prompt with "
                + "its output larger than a worker's HBM of 512 tokens, or refused by the policy); they are in no latency "
                + "figure; no request completed: raise --hbm-tokens or use smaller prompts");
    }

    @Test
    void aRunThatRejectedNothingSaysNothing() {
        BenchSpec spec = new BenchSpec(null, "chat", 50, 2, List.of(1.0), List.of("round-robin"), 1, null, null, null, 0.3);
        List<String> warnings = new ArrayList<>();
        List<RunReport> reports = new BenchRunner(new PolicyRegistry(), null).warnings(warnings::add).run(spec);

        assertThat(reports.get(0).get("rejected")).isZero();
        assertThat(warnings).isEmpty();
    }
}
