package io.tierroute.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code bench routing --seed 1-3}: each seed's files are a single-seed run's, and summary.csv is their spread,
 * checked against a naive recomputation from the per-seed results.csv files.
 */
class BenchRoutingSeedsTest {

    @TempDir
    Path dir;

    private static final String[] LATENCIES = {"ttft_mean_s", "ttft_p50_s", "ttft_p90_s", "ttft_p99_s", "jct_mean_s", "jct_p99_s"};

    private int bench(Path out, String seed) {
        String[] args = {"bench", "routing", "--workload", "llmd-blog", "--limit", "50", "--workers", "2",
                "--load", "1,2.5", "--policies", "random,least-loaded,round-robin", "--seed", seed, "--out", out.toString()};
        return TierrouteCommand.execute(args, new PrintWriter(new StringWriter(), true), new PrintWriter(new StringWriter(), true));
    }

    private static List<String> names(Path d) throws IOException {
        try (Stream<Path> s = Files.list(d)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Rows of a CSV as header → cell maps (no quoted commas in these files apart from the version column, dropped). */
    private static List<Map<String, String>> csv(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        String[] header = lines.get(0).split(",");
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.replaceAll("\"[^\"]*\"", "v").split(",", -1);
            assertThat(cells).hasSize(header.length);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < header.length; i++) {
                row.put(header[i], cells[i]);
            }
            rows.add(row);
        }
        return rows;
    }

    private static String withoutWallTime(Path resultsCsv) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (String line : Files.readAllLines(resultsCsv)) {
            // wall_s and note are the last columns; these runs have no note (no fitted policy), so no comma inside one
            sb.append(line, 0, line.lastIndexOf(',', line.lastIndexOf(',') - 1)).append('\n');
        }
        assertThat(Files.readAllLines(resultsCsv).get(0)).endsWith(",wall_s,note");
        return sb.toString();
    }

    @Test
    void oneSeedKeepsTheSingleRunLayout() throws Exception {
        Path out = dir.resolve("one");
        assertThat(bench(out, "2")).isZero();
        assertThat(names(out)).containsExactly("report.html", "results.csv", "results.txt", "run.txt");
        assertThat(Files.readString(out.resolve("results.txt"))).startsWith("tierroute bench routing: llmd-blog, 2 workers\n"
                + Files.readString(out.resolve("run.txt")) + "\nload 1.00\n");
    }

    @Test
    void severalSeedsWriteEachSeedsRunAndTheirSpread() throws Exception {
        Path out = dir.resolve("many");
        assertThat(bench(out, "1-2,4")).isZero();
        assertThat(names(out)).containsExactly("run.txt", "seed-1", "seed-2", "seed-4", "summary.csv", "summary.html",
                "summary.txt");
        // how the sweep was run: the first seed's parameters, with every seed named
        List<String> sweepRun = Files.readAllLines(out.resolve("run.txt"));
        List<String> firstRun = Files.readAllLines(out.resolve("seed-1").resolve("run.txt"));
        assertThat(sweepRun).contains("seeds: 1,2,4 (3)", "requests: 50 (--limit 50) at seed 1 (each seed generates its own)")
                .doesNotContain("seed: 1").hasSameSizeAs(firstRun);
        assertThat(sweepRun.stream().filter(l -> !l.startsWith("seed") && !l.startsWith("requests")).toList())
                .isEqualTo(firstRun.stream().filter(l -> !l.startsWith("seed") && !l.startsWith("requests")).toList());
        List<Long> seeds = List.of(1L, 2L, 4L);
        Map<Long, List<Map<String, String>>> perSeed = new LinkedHashMap<>();
        for (long seed : seeds) {
            Path single = dir.resolve("single-" + seed);
            assertThat(bench(single, Long.toString(seed))).isZero();
            Path mine = out.resolve("seed-" + seed);
            assertThat(names(mine)).containsExactly("report.html", "results.csv", "results.txt", "run.txt");
            assertThat(Files.readString(mine.resolve("run.txt"))).as("the seed's own, not the sweep's first")
                    .contains("\nseed: " + seed + "\n").contains("--seed 1-2,4");
            assertThat(withoutWallTime(mine.resolve("results.csv"))).isEqualTo(withoutWallTime(single.resolve("results.csv")));
            // the single run's title, and which seed it is: a seed's report opened alone says so
            assertThat(Files.readString(mine.resolve("results.txt")).lines().findFirst().orElseThrow())
                    .isEqualTo(Files.readString(single.resolve("results.txt")).lines().findFirst().orElseThrow()
                            + ", seed " + seed);
            perSeed.put(seed, csv(mine.resolve("results.csv")));
        }

        // The oracle: per load, policy and metric, straight from the per-seed results.csv files.
        List<Map<String, String>> summary = csv(out.resolve("summary.csv"));
        assertThat(summary).hasSize(2 * 3 * 7);
        Map<String, Map<String, String>> byKey = new HashMap<>();
        summary.forEach(r -> byKey.put(r.get("load") + "|" + r.get("policy") + "|" + r.get("metric"), r));
        int behind = 0;
        for (Map<String, String> r0 : perSeed.get(1L)) {
            String load = r0.get("load");
            String policy = r0.get("policy");
            for (String metric : List.of("ttft_mean_s", "ttft_p50_s", "ttft_p90_s", "ttft_p99_s", "jct_mean_s", "jct_p99_s", "throughput_tok_s")) {
                Map<String, String> row = byKey.get(load + "|" + policy + "|" + metric);
                assertThat(row).as(load + " " + policy + " " + metric).isNotNull();
                double product = 1, min = Double.MAX_VALUE, max = 0, ratioProduct = 1, ratioMin = Double.MAX_VALUE;
                int below = 0;
                for (long seed : seeds) {
                    double mine = 0, best = Double.MAX_VALUE;
                    for (Map<String, String> r : perSeed.get(seed)) {
                        if (!r.get("load").equals(load)) continue;
                        double v = Double.parseDouble(r.get(metric));
                        if (r.get("policy").equals(policy)) mine = v;
                        else best = Math.min(best, v);
                    }
                    product *= mine;
                    min = Math.min(min, mine);
                    max = Math.max(max, mine);
                    ratioProduct *= best / mine;
                    ratioMin = Math.min(ratioMin, best / mine);
                    below += best / mine < 0.97 ? 1 : 0;
                }
                String what = row.toString();
                assertThat(row.get("seeds")).as(what).isEqualTo("3");
                // results.csv and summary.csv both round to 6 significant digits
                assertThat(Double.parseDouble(row.get("geomean"))).as(what).isCloseTo(Math.cbrt(product), within(2e-5 * max));
                assertThat(Double.parseDouble(row.get("min"))).as(what).isCloseTo(min, within(2e-5 * max));
                assertThat(Double.parseDouble(row.get("max"))).as(what).isCloseTo(max, within(2e-5 * max));
                if (metric.equals("throughput_tok_s")) {
                    assertThat(List.of(row.get("ratio_seeds"), row.get("ratio_geomean"), row.get("ratio_min"), row.get("ratio_below_0.97")))
                            .as(what).containsOnly("");
                    continue;
                }
                assertThat(row.get("ratio_seeds")).as(what).isEqualTo("3");
                assertThat(Double.parseDouble(row.get("ratio_geomean"))).as(what).isCloseTo(Math.cbrt(ratioProduct), within(1e-4));
                assertThat(Double.parseDouble(row.get("ratio_min"))).as(what).isCloseTo(ratioMin, within(1e-4));
                assertThat(Integer.parseInt(row.get("ratio_below_0.97"))).as(what).isEqualTo(below);
                behind += below;
            }
        }
        assertThat(behind).as("some policy is more than 3 % behind on some seed").isPositive();
        String text = Files.readString(out.resolve("summary.txt"));
        assertThat(text).startsWith("tierroute bench routing: llmd-blog, 2 workers: 3 seeds (1,2,4)\n"
                        + Files.readString(out.resolve("run.txt")))
                .contains("load 2.50", "ratio geo", "left out of the means");
        assertThat(Files.readString(out.resolve("summary.html")))
                .contains("<h2>Run</h2>", "seeds: 1,2,4 (3)", "workload: llmd-blog");
        assertThat(Arrays.stream(LATENCIES).allMatch(text::contains)).isTrue();
    }
}
