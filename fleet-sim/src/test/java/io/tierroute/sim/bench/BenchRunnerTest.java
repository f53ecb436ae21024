package io.tierroute.sim.bench;

import io.tierroute.sim.policy.PolicyRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class BenchRunnerTest {

    @TempDir
    Path out;

    @Test
    void theGatedPolicyRoutesWithWhatTheGateLetThrough() throws Exception {
        // 1,000 requests: a warm-up of 500 completions, over the gate's 200, so a fit is accepted.
        BenchSpec spec = new BenchSpec(null, "llmd-blog", 1_000, 4, List.of(2.0), List.of("tierroute-gated"), 5, null,
                null, null, 0.5);
        List<RunReport> reports = new BenchRunner(new PolicyRegistry(), null).run(spec);
        assertThat(reports).singleElement().satisfies(r -> {
            assertThat(r.get("requests")).isEqualTo(1_000);
            assertThat(r.version()).as("a fit went through the gate and is routed with").contains("through the gate: alphaP=");
        });
    }

    @Test
    void runsEveryPolicyAtEveryLoadAndWritesTheReports() throws Exception {
        BenchSpec spec = new BenchSpec(null, "llmd-blog", 400, 4, List.of(1.0, 3.0),
                List.of("random", "tierroute-default", "tierroute-fitted"), 5, null, null, null, 0.5);
        List<RunReport> reports = new BenchRunner(new PolicyRegistry(), null).run(spec);
        assertThat(reports).hasSize(6);
        for (RunReport r : reports) {
            assertThat(r.get("requests")).isEqualTo(400);
            assertThat(r.get("ttft_p99_s")).isGreaterThanOrEqualTo(r.get("ttft_p50_s"));
            assertThat(r.get("ttft_p50_s")).isPositive();
        }
        RunReport random = reports.get(3);
        RunReport tierroute = reports.get(4);
        assertThat(random.policy()).isEqualTo("random");
        assertThat(tierroute.get("hit_hbm")).isGreaterThan(random.get("hit_hbm"));
        assertThat(reports.get(5).version()).contains("fitted on");

        new CsvReporter().write("t", reports, out);
        new HtmlReporter(RunParameters.of(null, spec, BenchRunner.engine(spec), 400, List.of())).write("t", reports, out);
        String csv = Files.readString(out.resolve("results.csv"));
        assertThat(csv.lines().count()).isEqualTo(7);
        assertThat(csv.lines().findFirst().orElseThrow()).startsWith("policy,version,load,requests,ttft_mean_s");
        String html = Files.readString(out.resolve("report.html"));
        assertThat(html).contains("<svg", "<polyline", "TTFT p99 (s) vs load", "tierroute-fitted");
        assertThat(html).doesNotContain("<script", "https://");
        assertThat(TableReporter.render("t", reports)).contains("load 3.00", "tierroute-default");
    }

    @Test
    void writesOneRequestLogPerRunWhosePhasesAddUp() throws Exception {
        BenchSpec spec = new BenchSpec(null, "llmd-blog", 300, 4, List.of(2.0), List.of("random", "least-loaded"), 3,
                null, null, null, 0.5);
        assertThat(RequestLog.fileName("tierroute-fitted", 1.1)).isEqualTo("requests-tierroute-fitted-load1.1.csv");
        assertThat(RequestLog.fileName("a/b", 2.75)).isEqualTo("requests-a_b-load2.75.csv");
        List<RunReport> reports = new BenchRunner(new PolicyRegistry(), null).requestLogs(out).run(spec);
        for (String policy : List.of("random", "least-loaded")) {
            Path file = out.resolve(RequestLog.fileName(policy, 2.0));
            assertThat(file.getFileName().toString()).isEqualTo("requests-" + policy + "-load2.csv");
            List<String> lines = Files.readAllLines(file);
            assertThat(lines.get(0)).isEqualTo(RequestLog.HEADER);
            assertThat(lines).hasSize(301);
            long prevArrival = Long.MIN_VALUE;
            double ttftSum = 0;
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.split(",");
                long arrival = Long.parseLong(f[1]);
                assertThat(arrival).isGreaterThanOrEqualTo(prevArrival);
                prevArrival = arrival;
                assertThat(Integer.parseInt(f[2])).isBetween(0, 3);
                long queue = Long.parseLong(f[5]), load = Long.parseLong(f[6]), prefill = Long.parseLong(f[7]);
                long decode = Long.parseLong(f[8]), ttft = Long.parseLong(f[9]), jct = Long.parseLong(f[10]);
                assertThat(queue + load + prefill).isEqualTo(ttft);
                assertThat(ttft + decode).isEqualTo(jct);
                assertThat(Long.parseLong(f[11]) + Long.parseLong(f[12])).isLessThan(Long.parseLong(f[3]));
                ttftSum += ttft;
            }
            RunReport r = reports.stream().filter(x -> x.policy().equals(policy)).findFirst().orElseThrow();
            // The report's mean comes from an HdrHistogram (3 significant digits): equal to within 0.1 %.
            assertThat(ttftSum / 300 / 1e6).isCloseTo(r.get("ttft_mean_s"), org.assertj.core.data.Percentage.withPercentage(0.1));
        }
    }
}
