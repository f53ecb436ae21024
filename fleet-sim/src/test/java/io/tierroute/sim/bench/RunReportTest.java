package io.tierroute.sim.bench;

import io.tierroute.sim.engine.SimResult;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A run in which every request was rejected has no latency: it must not read as 0 s, the fastest. */
class RunReportTest {

    private static RunReport allRejected(String policy, double load) {
        SimResult r = new SimResult(policy, "baseline", List.of(), 50,
                List.of(new SimResult.WorkerStats(0, 0, 3, 0, 0, 0, 0, 0)), 0, 2);
        return RunReport.of(r, load);
    }

    @Test
    void latenciesOfARunWithNoCompletionAreNotAvailable() {
        RunReport r = allRejected("least-loaded", 1);
        for (String m : List.of("ttft_mean_s", "ttft_p50_s", "ttft_p90_s", "ttft_p99_s", "jct_mean_s", "jct_p99_s")) {
            assertThat(r.get(m)).as(m).isNaN();
        }
        assertThat(r.get("requests")).isZero();
        assertThat(r.get("rejected")).isEqualTo(50);
    }

    @Test
    void reportersShowThemAsNotAvailable() {
        List<RunReport> reports = List.of(allRejected("least-loaded", 1), allRejected("least-loaded", 2));
        String row = CsvReporter.render(reports).lines().skip(1).findFirst().orElseThrow();
        assertThat(row).startsWith("least-loaded,\"baseline\",1.0,0,,,,,,,").doesNotContain("NaN");
        assertThat(TableReporter.render("t", reports)).contains(" n/a ").doesNotContain("NaN");
        String html = HtmlReporter.render("t", reports);
        assertThat(html).contains("<td>n/a</td>").doesNotContain("NaN").doesNotContain("<polyline");
    }

    @Test
    void theTextTableKeepsEveryValueUnderItsHeaderWhateverTheNamesLengths() {
        List<RunReport> reports = List.of(allRejected("sglang-cache-aware-rust-long", 1), allRejected("rr", 1));
        List<String> lines = TableReporter.render("t", reports).lines().filter(l -> !l.isBlank()).skip(2).toList();
        String header = lines.get(0);
        assertThat(lines).allSatisfy(l -> assertThat(l).hasSameSizeAs(header));
        int end = header.indexOf("throughput_tok_s") + "throughput_tok_s".length();
        for (String row : lines.subList(1, lines.size())) {
            assertThat(row.charAt(end)).as("the column after throughput starts where its header does: " + row).isEqualTo(' ');
        }
    }

    /** A request weeks behind: the histograms held an hour and threw once every run had finished, writing nothing. */
    @Test
    void latenciesOfWeeksAreReportedAndANegativeOneIsADefectNotAZero() {
        long weeks = 51L * 24 * 3600 * 1_000_000; // the review's trace: 51 simulated days on a slow link
        RunReport r = RunReport.of(run(completion(0, weeks, weeks + 2_000_000), completion(1_000, 500_000, 900_000)), 1);
        assertThat(r.get("ttft_p99_s")).isCloseTo(weeks / 1e6, org.assertj.core.data.Percentage.withPercentage(0.1));
        assertThat(r.get("jct_mean_s")).isCloseTo((weeks + 2_000_000 + 900_000) / 2e6,
                org.assertj.core.data.Percentage.withPercentage(0.1));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RunReport.of(run(completion(0, -5, 100)), 1))
                .hasMessage("request r0 of policy rr completed with TTFT -5 µs and JCT 100 µs: a defect of the simulator");
    }

    private static SimResult run(io.tierroute.sim.policy.Completion... done) {
        return new SimResult("rr", "baseline", List.of(done), 0,
                List.of(new SimResult.WorkerStats(0, 0, 0, 0, 0, 0, 0, 0)), done[done.length - 1].finishMicros(), 2);
    }

    private static io.tierroute.sim.policy.Completion completion(long arrival, long ttft, long jct) {
        io.tierroute.sim.policy.SimRequest req = new io.tierroute.sim.policy.SimRequest("r" + arrival, arrival, 16,
                new long[0], new long[0], 512, 10, 10, null);
        return new io.tierroute.sim.policy.Completion(req, 0, 0, 0, ttft, jct - ttft, ttft, 10, new int[io.tierroute.selector.protocol.Tier.COUNT], 16,
                0, arrival + jct, 0);
    }

    @Test
    void csvWritesCountsAsIntegers() {
        String csv = CsvReporter.render(List.of(allRejected("random", 1)));
        List<String> header = List.of(csv.lines().findFirst().orElseThrow().split(","));
        String[] row = csv.lines().skip(1).findFirst().orElseThrow().split(",", -1);
        // the version cell is quoted without commas, so the header's indices hold
        assertThat(row[header.indexOf("requests")]).isEqualTo("0");
        assertThat(row[header.indexOf("preemptions")]).isEqualTo("3");
        assertThat(row[header.indexOf("rejected")]).isEqualTo("50");
        assertThat(row[header.indexOf("wall_s")]).isEqualTo("0.00200000");
    }
}
