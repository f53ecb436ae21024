package io.tierroute.sim.bench;

import io.tierroute.sim.policy.PolicyRegistry;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** Every registered policy is drawn in a style of its own, on report.html and summary.html alike. */
class PolicyStylesTest {

    private static final Pattern POLYLINE = Pattern.compile("<polyline [^>]*?(stroke=\"[^\"]*\"(?: stroke-dasharray=\"[^\"]*\")?)");
    private static final Pattern STROKE = Pattern.compile("stroke=\"([^\"]*)\"");

    /** On the old code 12 colours went round: the 13th policy was drawn as the first. */
    @Test
    void allRegisteredPoliciesGetPairwiseDistinctStyles() throws Exception {
        List<String> names = new PolicyRegistry().names();
        assertThat(names).hasSizeGreaterThanOrEqualTo(17);
        BenchSpec spec = new BenchSpec(null, "llmd-blog", 30, 2, List.of(1.0), names, 1, null, null, null, 0.5);
        List<RunReport> reports = new BenchRunner(new PolicyRegistry(), null).run(spec);

        String html = HtmlReporter.render("t", reports);
        int chart = html.indexOf("<svg", html.indexOf("<h2>TTFT CDF</h2>"));
        String cdf = html.substring(chart, html.indexOf("</svg>", chart));
        List<String> styles = new ArrayList<>();
        List<String> colours = new ArrayList<>();
        Matcher m = POLYLINE.matcher(cdf);
        while (m.find()) {
            styles.add(m.group(1));
            Matcher c = STROKE.matcher(m.group(1));
            assertThat(c.find()).isTrue();
            colours.add(c.group(1));
        }
        assertThat(styles).as("one line per policy").hasSize(names.size()).doesNotHaveDuplicates();
        assertThat(colours).as("and a colour of its own, for the legend's and the summary's colour marks")
                .doesNotHaveDuplicates();
        for (int i = 0; i < names.size(); i++) {
            assertThat(html).as("legend of %s", names.get(i)).contains(SeriesStyle.of(i).swatch() + names.get(i) + "</span>");
        }

        SeedSummary summary = new SeedSummary().add(1, reports);
        NodeList spans = SummaryHtmlReporterTest.parse(SummaryHtmlReporter.render("t", summary)).getElementsByTagName("span");
        List<String> marks = new ArrayList<>();
        for (int i = 0; i < spans.getLength(); i++) {
            marks.add(((Element) spans.item(i)).getAttribute("style"));
        }
        assertThat(marks).as("the summary's colour mark of each policy").hasSize(names.size()).doesNotHaveDuplicates();
    }

    @Test
    void stylesStayDistinctWellPastTheRegistry() {
        HashSet<SeriesStyle> seen = new HashSet<>();
        for (int i = 0; i < 60; i++) {
            assertThat(seen.add(SeriesStyle.of(i))).as("style %d", i).isTrue();
        }
        assertThat(SeriesStyle.of(0).stroke()).as("the first ten solid, as before").isEqualTo("stroke=\"#1f77b4\"");
        assertThat(SeriesStyle.of(11).stroke()).isEqualTo("stroke=\"#aec7e8\" stroke-dasharray=\"6,3\"");
    }
}
