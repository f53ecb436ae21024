package io.tierroute.sim.bench;

import io.tierroute.sim.policy.PolicyRegistry;
import io.tierroute.sim.policy.WarmUpShortfall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fitted policy whose warm-up is too short to fit on routes with the defaults, as before, but no longer silently:
 * a warning as the run starts, and a marked row with a note under its table in results.txt, report.html and the
 * several-seed summary.
 */
class WarmUpShortfallReportTest {

    @TempDir
    Path out;

    private static final List<String> FITTED = List.of("tierroute-fitted", "tierroute-gated", "tierroute-claims");
    /** chat's first 200 requests: a warm-up of 30 %, 60 completions, under the 64 a fit needs. */
    private static final BenchSpec SHORT = new BenchSpec(null, "chat", 200, 8, List.of(1.0),
            List.of("tierroute-default", "tierroute-fitted", "tierroute-gated", "tierroute-claims"), 1, null, null, null, 0.3);
    private static final String NOTE = "not fitted, ran on its default parameters: its warm-up gave 60 completions, "
            + "fewer than the 64 a fit needs; use a larger --limit or --warm-up";

    @Test
    void eachFittedPolicyWarnsNamingItsLoadTheCountTheMinimumAndTheRemedy() {
        List<String> warnings = new ArrayList<>();
        List<RunReport> reports = new BenchRunner(new PolicyRegistry(), null).warnings(warnings::add).run(SHORT);

        assertThat(warnings).containsExactly(
                "tierroute-fitted @ load 1.00, seed 1: " + NOTE,
                "tierroute-gated @ load 1.00, seed 1: " + NOTE,
                "tierroute-claims @ load 1.00, seed 1: " + NOTE);
        RunReport defaults = reports.get(0);
        assertThat(defaults.note()).isNull();
        for (RunReport r : reports.subList(1, 4)) {
            assertThat(r.note()).as(r.policy()).isEqualTo(NOTE);
            // only said: it routes with the defaults as before, so its figures are tierroute-default's
            for (String m : List.of("ttft_mean_s", "ttft_p99_s", "jct_mean_s", "hit_hbm")) {
                assertThat(r.get(m)).as(r.policy() + " " + m).isEqualTo(defaults.get(m));
            }
        }
    }

    @Test
    void theTextAndHtmlReportsMarkTheRowAndSayWhyUnderTheTable() {
        List<RunReport> reports = new BenchRunner(new PolicyRegistry(), null).run(SHORT);

        String text = TableReporter.render("t", reports);
        assertThat(text.lines()).anyMatch(l -> l.startsWith("tierroute-default ")).anyMatch(l -> l.startsWith("tierroute-fitted* "));
        List<String> lines = text.lines().toList();
        assertThat(lines.subList(lines.size() - 3, lines.size())).containsExactly(
                "* tierroute-fitted: " + NOTE, "* tierroute-gated: " + NOTE, "* tierroute-claims: " + NOTE);
        String html = HtmlReporter.render("t", reports);
        assertThat(html).contains("<td style=\"text-align:left\">tierroute-fitted*</td>",
                "</table><p class=\"note\">* tierroute-fitted: " + NOTE + "</p>");
    }

    /** The scripts of the routing rounds read results.csv: its last column carries the note, empty for a fitted run. */
    @Test
    void theCsvCarriesTheNoteInItsLastColumn() {
        List<RunReport> reports = new BenchRunner(new PolicyRegistry(), null).run(SHORT);

        List<String> lines = CsvReporter.render(reports).lines().toList();
        assertThat(lines.get(0)).endsWith(",wall_s,note");
        assertThat(lines.get(1)).startsWith("tierroute-default,").endsWith(",");
        for (int i = 2; i <= 4; i++) {
            assertThat(lines.get(i)).endsWith(",\"" + NOTE + "\"");
        }
    }

    @Test
    void theSummaryOfASweepListsTheRunsThatWereNotFittedBeforeItsTables() throws Exception {
        BenchSpec spec = new BenchSpec(null, "chat", 200, 8, List.of(1.0), List.of("tierroute-fitted", "random"), 1,
                null, null, null, 0.3);
        SeedSummary summary = new SeedSweep(new BenchRunner(new PolicyRegistry(), null), null, false)
                .run(spec, SeedList.parse("1-2"), BenchRunner.requests(spec, BenchRunner.engine(spec)), "t", out);

        assertThat(summary.notes()).hasSize(2).allMatch(n -> n.matches("tierroute-fitted @ load 1\\.00, seed [12]: not fitted, "
                + "ran on its default parameters: its warm-up gave \\d+ completions, fewer than the 64 a fit needs; .*"));
        String text = SummaryTableReporter.render("t", summary);
        assertThat(text).contains("* " + summary.notes().get(0) + "\n");
        assertThat(text.indexOf("* tierroute-fitted @ load 1.00, seed 1")).isLessThan(text.indexOf("load 1.00\n"));
        assertThat(SummaryHtmlReporter.render("t", summary)).contains("<p class=\"warn\">* " + summary.notes().get(1) + "</p>");
    }

    @Test
    void aWarmUpLongEnoughHasNoNote() {
        BenchSpec spec = new BenchSpec(null, "chat", 400, 8, List.of(1.0), FITTED, 1, null, null, null, 0.5);
        List<String> warnings = new ArrayList<>();
        List<RunReport> reports = new BenchRunner(new PolicyRegistry(), null).warnings(warnings::add).run(spec);
        assertThat(warnings).isEmpty();
        assertThat(reports).allSatisfy(r -> assertThat(r.note()).isNull());
        assertThat(TableReporter.render("t", reports)).doesNotContain("*");
    }

    @Test
    void aShortfallAfterAnEarlierRoundsFitSaysWhatItRoutesWith() {
        assertThat(new WarmUpShortfall(12, 64, false).describe()).isEqualTo("not fitted on its last warm-up round, ran "
                + "on the round before's fit: that round gave 12 completions, fewer than the 64 a fit needs");
    }
}
