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

    /** A tier holds whole blocks: 1023 tokens are 512 of HBM, and the rejection says 512, not 1023. */
    @Test
    void capacitiesThatAreNoWholeNumberOfBlocksAreSaidAsTheBlocksTheyBuy() {
        BenchSpec odd = new BenchSpec(null, "chat", 20, 2, List.of(1.0), List.of("round-robin"), 1, 1023L, 1_000_000L,
                null, 0.3);
        assertThat(BenchRunner.capacityRounding(odd, BenchRunner.engine(odd))).containsExactly(
                "--hbm-tokens 1023 is 1 whole block of 512 tokens: 512 tokens of HBM per worker",
                "--cpu-tokens 1000000 is 1,953 whole blocks of 512 tokens: 999,936 tokens of CPU tier per worker");
        List<String> warnings = new ArrayList<>();
        new BenchRunner(new PolicyRegistry(), null).warnings(warnings::add).run(odd);
        assertThat(warnings).singleElement().asString().contains("larger than a worker's HBM of 512 tokens");
        BenchSpec whole = new BenchSpec(null, "chat", 20, 2, List.of(1.0), List.of("round-robin"), 1, 1024L, 0L, null, 0.3);
        assertThat(BenchRunner.capacityRounding(whole, BenchRunner.engine(whole))).isEmpty();
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
