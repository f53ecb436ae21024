package io.tierroute.sim.bench;

import io.tierroute.sim.policy.PolicyRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class SeedSweepTest {

    @TempDir
    Path out;

    private static final List<String> POLICIES = List.of("random", "least-loaded", "round-robin");

    private static BenchSpec spec(long seed, Long hbmTokens) {
        return new BenchSpec(null, "llmd-blog", 60, 2, List.of(1.0, 2.0), POLICIES, seed, hbmTokens, null, null, 0.5);
    }

    /** results.csv without its wall-time column, the one figure that differs between two runs of the same seed. */
    static String withoutWallTime(String csv) {
        int wall = Arrays.asList(csv.lines().findFirst().orElseThrow().split(",")).indexOf("wall_s");
        assertThat(wall).isPositive();
        StringBuilder sb = new StringBuilder();
        csv.lines().forEach(line -> {
            List<String> cells = new ArrayList<>(Arrays.asList(line.split(",", -1)));
            cells.remove(wall);
            sb.append(String.join(",", cells)).append('\n');
        });
        return sb.toString();
    }

    @Test
    void theListenerHearsEachSeedButTheLastWithTheSummarySoFar() throws Exception {
        SeedList seeds = SeedList.parse("1-2,5");
        BenchSpec spec = spec(1, null);
        List<String> heard = new ArrayList<>();
        new SeedSweep(new BenchRunner(new PolicyRegistry(), null), null, false)
                .afterEachSeed((soFar, done, total) -> heard.add(done + "/" + total + " " + soFar.seeds()))
                .run(spec, seeds, BenchRunner.requests(spec, BenchRunner.engine(spec)), "t", out);
        // After the last seed the caller writes the whole summary itself.
        assertThat(heard).containsExactly("1/3 [1]", "2/3 [1, 2]");
    }

    @Test
    void eachSeedWritesWhatASingleSeedRunWritesAndTheSummaryIsItsSpread() throws Exception {
        SeedList seeds = SeedList.parse("1-2,5");
        BenchSpec spec = spec(1, null);
        PolicyRegistry registry = new PolicyRegistry();
        SeedSummary summary = new SeedSweep(new BenchRunner(registry, null), null, false)
                .run(spec, seeds, BenchRunner.requests(spec, BenchRunner.engine(spec)), "t", out);

        Map<Long, List<RunReport>> single = new LinkedHashMap<>();
        for (long seed : seeds.seeds()) {
            List<RunReport> reports = new BenchRunner(registry, null).run(spec(seed, null));
            single.put(seed, reports);
            Path dir = out.resolve("seed-" + seed);
            try (var files = Files.list(dir)) {
                assertThat(files.map(p -> p.getFileName().toString()))
                        .containsExactlyInAnyOrder("results.txt", "results.csv", "report.html", "run.txt");
            }
            assertThat(withoutWallTime(Files.readString(dir.resolve("results.csv"))))
                    .isEqualTo(withoutWallTime(CsvReporter.render(reports)));
            // opened alone, a seed's report says which seed it is (the old code titled every seed's alike)
            assertThat(Files.readString(dir.resolve("results.txt"))).startsWith("t, seed " + seed + "\n");
            assertThat(Files.readString(dir.resolve("report.html")))
                    .contains("<title>t, seed " + seed + "</title>", "<h1>t, seed " + seed + "</h1>");
            // and how it was run: its own seed, not the sweep's first
            assertThat(Files.readString(dir.resolve("run.txt"))).contains("\nseed: " + seed + "\n");
        }
        // the seeds differ (else the spread would test nothing)
        assertThat(withoutWallTime(CsvReporter.render(single.get(1L)))).isNotEqualTo(withoutWallTime(CsvReporter.render(single.get(2L))));

        List<SeedSummary.Row> rows = summary.rows();
        assertThat(rows).hasSize(2 * POLICIES.size() * SeedSummary.METRICS.size());
        assertThat(summary.leftOut()).isEmpty();
        for (SeedSummary.Row row : rows) {
            List<Double> xs = new ArrayList<>();
            List<Double> ratios = new ArrayList<>();
            for (List<RunReport> reports : single.values()) {
                double mine = Double.NaN;
                double best = Double.POSITIVE_INFINITY;
                for (RunReport r : reports) {
                    if (r.load() != row.load()) continue;
                    if (r.policy().equals(row.policy())) mine = r.get(row.metric());
                    else best = Math.min(best, r.get(row.metric()));
                }
                xs.add(mine);
                ratios.add(best / mine);
            }
            String what = row.toString();
            assertThat(row.seeds()).as(what).isEqualTo(3);
            double product = 1;
            for (double x : xs) product *= x;
            assertThat(row.geomean()).as(what).isCloseTo(Math.pow(product, 1.0 / 3), within(1e-12 * row.geomean()));
            assertThat(row.min()).as(what).isEqualTo(xs.stream().mapToDouble(d -> d).min().orElseThrow());
            assertThat(row.max()).as(what).isEqualTo(xs.stream().mapToDouble(d -> d).max().orElseThrow());
            if (row.metric().equals("throughput_tok_s")) {
                assertThat(row.hasRatio()).isFalse();
                continue;
            }
            double rp = 1;
            for (double x : ratios) rp *= x;
            assertThat(row.ratioSeeds()).as(what).isEqualTo(3);
            assertThat(row.ratioGeomean()).as(what).isCloseTo(Math.pow(rp, 1.0 / 3), within(1e-12));
            assertThat(row.ratioMin()).as(what).isEqualTo(ratios.stream().mapToDouble(d -> d).min().orElseThrow());
            assertThat(row.ratioBelow()).as(what).isEqualTo((int) ratios.stream().filter(x -> x < 0.97).count());
        }
        // some policy is behind on some seed, some ahead: the ratios are not all one way
        assertThat(rows.stream().filter(SeedSummary.Row::hasRatio).mapToDouble(SeedSummary.Row::ratioMin).min().orElseThrow()).isLessThan(0.97);
        assertThat(rows.stream().filter(SeedSummary.Row::hasRatio).mapToDouble(SeedSummary.Row::ratioGeomean).max().orElseThrow()).isGreaterThan(1);

        String csv = SummaryCsvReporter.render(summary);
        assertThat(csv.lines().findFirst().orElseThrow()).isEqualTo(SummaryCsvReporter.HEADER);
        assertThat(csv.lines().count()).isEqualTo(rows.size() + 1);
        assertThat(csv).contains("\n1.0,random,ttft_p99_s,3,", "\n2.0,round-robin,throughput_tok_s,3,");
        assertThat(csv.lines().filter(l -> l.contains(",throughput_tok_s,"))).allMatch(l -> l.endsWith(",,,,"));
        String text = SummaryTableReporter.render("t", summary);
        assertThat(text).startsWith("t: 3 seeds (1,2,5)\n").contains("load 1.00", "load 2.00", "ratio geo", "least-loaded")
                .doesNotContain("left out (");
    }

    @Test
    void runsThatRejectedEveryRequestAreLeftOutAndSaidSo() throws Exception {
        // one 512-token block of HBM: no llmd-blog prompt fits a worker, every request is rejected
        BenchSpec spec = spec(1, 512L);
        SeedSummary summary = new SeedSweep(new BenchRunner(new PolicyRegistry(), null), null, false)
                .run(spec, SeedList.parse("1-2"), BenchRunner.requests(spec, BenchRunner.engine(spec)), "t", out);
        assertThat(summary.leftOut()).hasSize(2 * 2 * POLICIES.size()).contains("random @ load 2.00, seed 2");
        for (SeedSummary.Row row : summary.rows()) {
            assertThat(row.seeds()).isZero();
            assertThat(row.geomean()).isNaN();
        }
        String csv = SummaryCsvReporter.render(summary);
        assertThat(csv).contains("\n1.0,random,ttft_p99_s,0,,,,0,,,0\n", "\n1.0,random,throughput_tok_s,0,,,,,,,\n");
        assertThat(SummaryTableReporter.render("t", summary))
                .contains("left out (every request rejected): random @ load 1.00, seed 1;", " n/a ");
    }

    @Test
    void aPolicyAloneHasNoRatio() {
        SeedSummary summary = new SeedSummary();
        BenchSpec spec = new BenchSpec(null, "llmd-blog", 30, 2, List.of(1.0), List.of("random"), 1, null, null, null, 0.5);
        summary.add(1, new BenchRunner(new PolicyRegistry(), null).run(spec));
        SeedSummary.Row p99 = summary.rows().get(3);
        assertThat(p99.metric()).isEqualTo("ttft_p99_s");
        assertThat(p99.seeds()).isEqualTo(1);
        assertThat(p99.ratioSeeds()).isZero();
        assertThat(p99.ratioGeomean()).isNaN();
        assertThat(p99.geomean()).isEqualTo(p99.min()).isEqualTo(p99.max()).isPositive();
    }
}
