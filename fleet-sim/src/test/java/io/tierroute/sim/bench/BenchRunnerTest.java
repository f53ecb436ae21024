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
        new HtmlReporter().write("t", reports, out);
        String csv = Files.readString(out.resolve("results.csv"));
        assertThat(csv.lines().count()).isEqualTo(7);
        assertThat(csv.lines().findFirst().orElseThrow()).startsWith("policy,version,load,requests,ttft_mean_s");
        String html = Files.readString(out.resolve("report.html"));
        assertThat(html).contains("<svg", "<polyline", "TTFT p99 (s) vs load", "tierroute-fitted");
        assertThat(html).doesNotContain("<script", "https://");
        assertThat(TableReporter.render("t", reports)).contains("load 3.00", "tierroute-default");
    }
}
