package io.tierroute.sim.bench;

import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.PolicyRegistry;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.baseline.RandomPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class SummaryHtmlReporterTest {

    @TempDir
    Path out;

    /** A name with every character HTML gives a meaning to. */
    private static final String ODD = "<b>odd & \"quoted\"</b>";

    static Document parse(String xhtml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(xhtml.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void escapesTheFourCharactersThatEndTextOrAQuotedAttribute() {
        assertThat(Html.escape(ODD)).isEqualTo("&lt;b&gt;odd &amp; &quot;quoted&quot;&lt;/b&gt;");
        assertThat(Html.escape("&lt;")).as("an entity already there is text, escaped again").isEqualTo("&amp;lt;");
        assertThat(Html.escape("least-loaded @ 1.00")).isEqualTo("least-loaded @ 1.00");
    }

    /** Random routing under another name: the name is what the reports print. */
    private static RoutingPolicy renamed(RoutingPolicy inner, String name) {
        return new RoutingPolicy() {
            @Override public String name() { return name; }
            @Override public String version() { return inner.version(); }
            @Override public int route(SimRequest request, FleetView view, long nowMicros) {
                return inner.route(request, view, nowMicros);
            }
        };
    }

    @Test
    void aPolicyNameAndATitleWithHtmlCharactersAreEscapedAndThePageParses() throws Exception {
        PolicyRegistry registry = new PolicyRegistry();
        registry.register(ODD, setup -> renamed(new RandomPolicy(setup.seed()), ODD));
        BenchSpec spec = new BenchSpec(null, "llmd-blog", 40, 2, List.of(1.0, 2.0), List.of(ODD, "least-loaded"), 1,
                null, null, null, 0.5);
        SeedList seeds = SeedList.parse("1-3");
        SeedSummary summary = new SeedSweep(new BenchRunner(registry, null), null, false)
                .run(spec, seeds, BenchRunner.requests(spec, BenchRunner.engine(spec)), "t", out);
        String title = "bench <script>alert(1)</script> & co";

        String html = SummaryHtmlReporter.render(title, summary);

        assertThat(html).doesNotContain("<b>", "<script", ODD).contains(Html.escape(ODD), Html.escape(title));
        Document doc = parse(html); // throws if a tag is left open or an entity is not XML's
        assertThat(doc.getElementsByTagName("title").item(0).getTextContent()).isEqualTo(title + ": 3 seeds (1-3)");
        assertThat(doc.getElementsByTagName("h1").item(0).getTextContent()).isEqualTo(title);
        List<String> names = new ArrayList<>();
        NodeList tds = doc.getElementsByTagName("td");
        for (int i = 0; i < tds.getLength(); i++) {
            Element td = (Element) tds.item(i);
            if (td.getAttribute("class").equals("policy")) {
                names.add(td.getTextContent().substring(2)); // after the colour square and a space
            } else if (td.hasAttribute("data-policy")) {
                assertThat(td.getAttribute("data-policy")).isIn(ODD, "least-loaded");
            }
        }
        assertThat(names).containsExactly(ODD, "least-loaded", ODD, "least-loaded");
        // the chart rows are labelled with the raw name too (SVG text, parsed back)
        NodeList texts = doc.getElementsByTagName("text");
        int labels = 0;
        for (int i = 0; i < texts.getLength(); i++) {
            labels += texts.item(i).getTextContent().equals(ODD) ? 1 : 0;
        }
        assertThat(labels).as("one row label per chart: 2 loads × 6 latencies").isEqualTo(2 * SeedSummary.RATIO_METRICS.size());
    }

    @Test
    void eachChartHasADotPerSeedAtItsRatioAndTheGeomeanMarked() throws Exception {
        BenchSpec spec = new BenchSpec(null, "llmd-blog", 40, 2, List.of(1.5), List.of("random", "round-robin", "least-loaded"),
                1, null, null, null, 0.5);
        SeedSummary summary = new SeedSweep(new BenchRunner(new PolicyRegistry(), null), null, false)
                .run(spec, SeedList.parse("2,5,9"), BenchRunner.requests(spec, BenchRunner.engine(spec)), "t", out);
        Document doc = parse(SummaryHtmlReporter.render("t", summary));

        NodeList svgs = doc.getElementsByTagName("svg");
        assertThat(svgs.getLength()).isEqualTo(SeedSummary.RATIO_METRICS.size());
        for (int s = 0; s < svgs.getLength(); s++) {
            Element svg = (Element) svgs.item(s);
            String metric = SeedSummary.RATIO_METRICS.get(s);
            assertThat(svg.getElementsByTagName("text").item(0).getTextContent()).contains(metric);
            List<String> dots = new ArrayList<>();
            NodeList circles = svg.getElementsByTagName("circle");
            for (int i = 0; i < circles.getLength(); i++) {
                dots.add(circles.item(i).getTextContent());
            }
            List<String> expected = new ArrayList<>();
            List<String> geomeans = new ArrayList<>();
            for (String policy : summary.policies()) {
                for (Map.Entry<Long, Double> e : summary.ratios(1.5, policy, metric).entrySet()) {
                    expected.add(String.format(Locale.ROOT, "seed %d: %.3f", e.getKey(), e.getValue()));
                }
                SeedSummary.Row row = summary.rows().stream()
                        .filter(r -> r.policy().equals(policy) && r.metric().equals(metric)).findFirst().orElseThrow();
                geomeans.add(String.format(Locale.ROOT, "geomean %.3f", row.ratioGeomean()));
            }
            assertThat(expected).hasSize(3 * 3);
            assertThat(dots).isEqualTo(expected);
            List<String> marks = new ArrayList<>();
            NodeList lines = svg.getElementsByTagName("line");
            for (int i = 0; i < lines.getLength(); i++) {
                if (!lines.item(i).getTextContent().isEmpty()) {
                    marks.add(lines.item(i).getTextContent());
                }
            }
            assertThat(marks).isEqualTo(geomeans);
            dotsSitAtTheirRatioOnALogAxisGrowingRightwards(svg, summary, metric);
        }
    }

    /**
     * Each dot's {@code cx} is a + b·log10(ratio) with b > 0 (one axis for every dot, ahead to the right), and the
     * solid line at 1 and the dashed one at 0.97 sit on that axis, 1 right of 0.97.
     */
    private static void dotsSitAtTheirRatioOnALogAxisGrowingRightwards(Element svg, SeedSummary summary, String metric) {
        List<Double> logs = new ArrayList<>();
        for (String policy : summary.policies()) {
            summary.ratios(1.5, policy, metric).values().forEach(r -> logs.add(Math.log10(r)));
        }
        NodeList circles = svg.getElementsByTagName("circle");
        List<Double> cx = new ArrayList<>();
        for (int i = 0; i < circles.getLength(); i++) {
            cx.add(Double.parseDouble(((Element) circles.item(i)).getAttribute("cx")));
        }
        int lo = logs.indexOf(java.util.Collections.min(logs));
        int hi = logs.indexOf(java.util.Collections.max(logs));
        assertThat(logs.get(hi) - logs.get(lo)).as("the ratios of %s spread", metric).isGreaterThan(0.01);
        double b = (cx.get(hi) - cx.get(lo)) / (logs.get(hi) - logs.get(lo));
        double a = cx.get(lo) - b * logs.get(lo);
        assertThat(b).as("pixels per decade of %s: a higher ratio lies further right", metric).isGreaterThan(100);
        for (int i = 0; i < cx.size(); i++) {
            assertThat(cx.get(i)).as("dot %d of %s", i, metric).isCloseTo(a + b * logs.get(i), org.assertj.core.data.Offset.offset(0.11));
        }
        double one = Double.NaN;
        double behind = Double.NaN;
        NodeList lines = svg.getElementsByTagName("line");
        for (int i = 0; i < lines.getLength(); i++) {
            Element line = (Element) lines.item(i);
            if (line.getAttribute("stroke").equals("#444")) {
                one = Double.parseDouble(line.getAttribute("x1"));
            } else if (line.getAttribute("stroke-dasharray").length() > 0) {
                behind = Double.parseDouble(line.getAttribute("x1"));
            }
        }
        assertThat(one).as("the line at 1").isCloseTo(a, org.assertj.core.data.Offset.offset(0.11));
        assertThat(behind).as("the line at 0.97").isCloseTo(a + b * Math.log10(SeedSummary.BEHIND),
                org.assertj.core.data.Offset.offset(0.11));
        assertThat(one).as("1 lies right of 0.97").isGreaterThan(behind);
    }

    /**
     * A policy that rejected everything on some seeds has a mean over the seeds it coped with; it does not
     * compete for the highlight with the policies measured on every seed, and its cell says how many seeds it has.
     */
    @Test
    void onlyPoliciesWithEverySeedInCompeteForTheBestCell() throws Exception {
        SeedSummary summary = new SeedSummary();
        summary.add(1, List.of(run("steady", 2_000_000), run("partial", 1_000_000)));
        summary.add(2, List.of(run("steady", 2_000_000), rejectedAll("partial")));
        summary.add(3, List.of(run("steady", 2_000_000), rejectedAll("partial")));
        Document doc = parse(SummaryHtmlReporter.render("t", summary));

        List<String> best = new ArrayList<>();
        Element partialP99 = null;
        NodeList tds = doc.getElementsByTagName("td");
        for (int i = 0; i < tds.getLength(); i++) {
            Element td = (Element) tds.item(i);
            if (td.getAttribute("class").equals("best")) {
                best.add(td.getAttribute("data-policy") + " " + td.getAttribute("data-metric"));
            }
            if (td.getAttribute("data-policy").equals("partial") && td.getAttribute("data-metric").equals("ttft_p99_s")) {
                partialP99 = td;
            }
        }
        assertThat(best).contains("steady ttft_p99_s", "steady ttft_mean_s").allMatch(c -> c.startsWith("steady "));
        assertThat(partialP99).isNotNull();
        assertThat(Double.parseDouble(partialP99.getAttribute("data-geomean"))).as("partial's lower mean, over 1 seed")
                .isLessThan(2);
        assertThat(partialP99.getTextContent()).contains("(1/3 seeds)");
    }

    /** One completed request with this TTFT (and twice it as JCT), at load 1. */
    private static RunReport run(String policy, long ttftMicros) {
        io.tierroute.sim.engine.EngineConfig cfg = io.tierroute.sim.engine.EngineConfig.builder().workers(1).build();
        SimRequest r = new io.tierroute.sim.workload.RequestFactory(cfg.model(), cfg.blockSize())
                .request(policy + "-r", 0, 64, new long[] {1, 2, 3, 4}, 10, 10, null);
        io.tierroute.sim.policy.Completion c = new io.tierroute.sim.policy.Completion(r, 0, 0, 0, ttftMicros, ttftMicros,
                ttftMicros, 10, new int[io.tierroute.selector.protocol.Tier.COUNT], 64, 0, 2 * ttftMicros, 0);
        return RunReport.of(new io.tierroute.sim.engine.SimResult(policy, "v", List.of(c), 0,
                List.of(new io.tierroute.sim.engine.SimResult.WorkerStats(1, 1, 0, 64, 10, 0, 0, 0)), 2 * ttftMicros, 1), 1);
    }

    /** A run in which the policy rejected all 50 requests, at load 1. */
    private static RunReport rejectedAll(String policy) {
        return RunReport.of(new io.tierroute.sim.engine.SimResult(policy, "v", List.of(), 50,
                List.of(new io.tierroute.sim.engine.SimResult.WorkerStats(0, 0, 0, 0, 0, 0, 0, 0)), 0, 1), 1);
    }
}
