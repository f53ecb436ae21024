package io.tierroute.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code bench routing --seed 1-2,4} as a user runs it: summary.html against summary.csv and the seed directories on
 * disk, and the line per seed on stdout against each seed's results.csv.
 */
class BenchRoutingSummaryHtmlTest {

    @TempDir
    Path dir;

    private static final List<String> POLICIES = List.of("random", "least-loaded", "round-robin");
    private static final List<Long> SEEDS = List.of(1L, 2L, 4L);

    private record Run(int code, String out, String err) {
    }

    /**
     * The command with System.out and System.err captured (the benchmark prints there, as the tables always did) and
     * stderr declared a terminal or not, as {@code bin/tierroute} declares it.
     */
    private static Run bench(Path out, boolean terminal) {
        String[] args = {"bench", "routing", "--workload", "llmd-blog", "--limit", "50", "--workers", "2",
                "--load", "1,2.5", "--policies", String.join(",", POLICIES), "--seed", "1-2,4", "--out", out.toString()};
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        String said = System.getProperty("tierroute.stderrTerminal");
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            System.setProperty("tierroute.stderrTerminal", Boolean.toString(terminal));
            int code = TierrouteCommand.execute(args, new PrintWriter(new StringWriter(), true), new PrintWriter(new StringWriter(), true));
            return new Run(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
            if (said == null) {
                System.clearProperty("tierroute.stderrTerminal");
            } else {
                System.setProperty("tierroute.stderrTerminal", said);
            }
        }
    }

    /** Rows of a CSV as header → cell maps, the quoted version column (the only one with commas) dropped. */
    private static List<Map<String, String>> csv(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        String[] header = lines.get(0).split(",");
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.replaceAll("\"[^\"]*\"", "v").split(",", -1);
            Map<String, String> row = new HashMap<>();
            for (int i = 0; i < header.length; i++) {
                row.put(header[i], cells[i]);
            }
            rows.add(row);
        }
        return rows;
    }

    private static List<Element> elements(Document doc, String tag) {
        NodeList nodes = doc.getElementsByTagName(tag);
        List<Element> list = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            list.add((Element) nodes.item(i));
        }
        return list;
    }

    @Test
    void summaryHtmlHoldsEveryPolicyAndLoadWithSummaryCsvsGeomeansAndLinksEverySeedReport() throws Exception {
        Path out = dir.resolve("many");
        assertThat(bench(out, false).code()).isZero();
        Path page = out.resolve("summary.html");
        assertThat(page).isRegularFile();
        String html = Files.readString(page);
        // XML's parser: throws if a tag is left open, misnested, or an entity is HTML-only
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(page.toFile());

        assertThat(elements(doc, "h1").get(0).getTextContent()).isEqualTo("tierroute bench routing: llmd-blog, 2 workers");
        String caption = elements(doc, "p").stream().filter(p -> p.getAttribute("class").equals("caption"))
                .findFirst().orElseThrow().getTextContent();
        assertThat(caption).contains("3 seeds (1,2,4)", "loads 1.00, 2.50", String.join(", ", POLICIES));
        assertThat(elements(doc, "h2").stream().map(Element::getTextContent)).contains("load 1.00", "load 2.50");

        // self-contained: no script, no stylesheet or image fetched, no address but the two namespaces
        assertThat(html).doesNotContain("<script", "<link", "src=");
        assertThat(html.replace("xmlns=\"http://www.w3.org/1999/xhtml\"", "").replace("xmlns=\"http://www.w3.org/2000/svg\"", ""))
                .doesNotContain("http");

        // every geomean cell holds summary.csv's figure (data-geomean) and shows it rounded
        Map<String, String> csvGeomean = new HashMap<>();
        Map<String, List<Double>> column = new HashMap<>();
        for (Map<String, String> r : csv(out.resolve("summary.csv"))) {
            csvGeomean.put(r.get("load") + "|" + r.get("policy") + "|" + r.get("metric"), r.get("geomean"));
            column.computeIfAbsent(r.get("load") + "|" + r.get("metric"), k -> new ArrayList<>()).add(Double.parseDouble(r.get("geomean")));
        }
        assertThat(csvGeomean).hasSize(2 * POLICIES.size() * 7);
        Map<String, String> htmlGeomean = new HashMap<>();
        Set<String> policyCells = new HashSet<>();
        Set<String> columnsWithBest = new HashSet<>();
        for (Element td : elements(doc, "td")) {
            if (td.getAttribute("class").equals("policy")) {
                policyCells.add(td.getTextContent().substring(2)); // after the colour square
                continue;
            }
            String key = td.getAttribute("data-load") + "|" + td.getAttribute("data-policy") + "|" + td.getAttribute("data-metric");
            assertThat(htmlGeomean.put(key, td.getAttribute("data-geomean"))).as(key + " once").isNull();
            double geomean = Double.parseDouble(td.getAttribute("data-geomean"));
            double shown = Double.parseDouble(td.getTextContent().split(" ")[0]);
            assertThat(shown).as(key).isCloseTo(geomean, within(geomean >= 100 ? 0.05 : 0.0005));
            assertThat(td.getTextContent()).as(key).matches("\\S+ \\[\\S+–\\S+]");
            if (td.getAttribute("class").equals("best")) {
                columnsWithBest.add(td.getAttribute("data-load") + "|" + td.getAttribute("data-metric"));
                List<Double> others = column.get(td.getAttribute("data-load") + "|" + td.getAttribute("data-metric"));
                double want = td.getAttribute("data-metric").equals("throughput_tok_s")
                        ? others.stream().mapToDouble(d -> d).max().orElseThrow() : others.stream().mapToDouble(d -> d).min().orElseThrow();
                assertThat(geomean).as("best of " + key).isEqualTo(want);
            }
        }
        assertThat(htmlGeomean).isEqualTo(csvGeomean);
        assertThat(policyCells).containsExactlyInAnyOrderElementsOf(POLICIES);
        assertThat(columnsWithBest).as("a best in every load × metric column").isEqualTo(column.keySet());

        // a chart per load × latency, a dot per policy × seed in each
        List<Element> svgs = elements(doc, "svg");
        assertThat(svgs).hasSize(2 * 6);
        for (Element svg : svgs) {
            assertThat(svg.getElementsByTagName("circle").getLength()).isEqualTo(POLICIES.size() * SEEDS.size());
        }

        // links: exactly the seed reports on disk, and every link resolves
        Set<String> onDisk = new HashSet<>();
        try (Stream<Path> s = Files.list(out)) {
            s.filter(p -> p.getFileName().toString().startsWith("seed-") && Files.isRegularFile(p.resolve("report.html")))
                    .forEach(p -> onDisk.add(p.getFileName() + "/report.html"));
        }
        assertThat(onDisk).hasSize(SEEDS.size());
        List<String> hrefs = elements(doc, "a").stream().map(a -> a.getAttribute("href")).toList();
        assertThat(hrefs.stream().filter(h -> h.endsWith("/report.html"))).containsExactlyInAnyOrderElementsOf(onDisk);
        assertThat(hrefs).hasSize(3 * SEEDS.size()).allSatisfy(h -> assertThat(out.resolve(h)).isRegularFile());
    }

    private static final Pattern SEED_LINE = Pattern.compile(
            "seed (\\d+) \\((\\d+)/3\\) done in \\d+\\.\\d s; best TTFT mean: load 1\\.00 (\\S+) (\\S+) s, load 2\\.50 (\\S+) (\\S+) s");

    @Test
    void withoutATerminalEachSeedPrintsOneLineOnStdoutAsItFinishesThenTheSummary() throws Exception {
        Path out = dir.resolve("plain");
        Run run = bench(out, false);
        assertThat(run.code()).isZero();
        List<String> lines = run.out().lines().toList();
        int summary = lines.indexOf("tierroute bench routing: llmd-blog, 2 workers: 3 seeds (1,2,4)");
        assertThat(summary).as(run.out()).isEqualTo(SEEDS.size()); // the seed lines, then the summary, nothing else
        for (int i = 0; i < SEEDS.size(); i++) {
            Matcher m = SEED_LINE.matcher(lines.get(i));
            assertThat(m.matches()).as(lines.get(i)).isTrue();
            long seed = SEEDS.get(i);
            assertThat(m.group(1)).isEqualTo(Long.toString(seed));
            assertThat(m.group(2)).isEqualTo(Integer.toString(i + 1));
            // the best mean TTFT per load: the lowest of that seed's results.csv
            List<Map<String, String>> results = csv(out.resolve("seed-" + seed).resolve("results.csv"));
            String[][] said = {{"1.0", m.group(3), m.group(4)}, {"2.5", m.group(5), m.group(6)}};
            for (String[] s : said) {
                Map<String, String> lowest = results.stream().filter(r -> r.get("load").equals(s[0]))
                        .min((a, b) -> Double.compare(Double.parseDouble(a.get("ttft_mean_s")), Double.parseDouble(b.get("ttft_mean_s"))))
                        .orElseThrow();
                assertThat(s[1]).as(lines.get(i)).isEqualTo(lowest.get("policy"));
                assertThat(Double.parseDouble(s[2])).as(lines.get(i)).isCloseTo(Double.parseDouble(lowest.get("ttft_mean_s")), within(0.0005));
            }
        }
        // stderr keeps its plain progress lines, counted over every seed
        assertThat(run.err()).doesNotContain("\r").contains("[1/18] seed 1: random @ load 1.00", "[18/18] seed 4: round-robin @ load 2.50");
    }

    @Test
    void onATerminalTheBarIsStillRedrawnOnStderrAndTheSeedLinesGoToStdout() {
        Run run = bench(dir.resolve("terminal"), true);
        assertThat(run.code()).isZero();
        assertThat(run.err()).contains("\r[");
        assertThat(run.out().lines().filter(l -> SEED_LINE.matcher(l).matches())).hasSize(SEEDS.size());
        assertThat(run.out()).doesNotContain("\r");
    }
}
