package io.tierroute.cli.manifests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code deploy/prometheus/alerts.yml} against the case its rules on the fitting job's own series cannot see: the job
 * gone (FAILED, cancelled, never submitted). Its series ({@code flink_jobmanager_job_*},
 * {@code flink_taskmanager_job_*}) vanish with it, and {@code increase()} of a missing series is empty, not 0, so no
 * such rule fires. That every series named is really served is checked against real scrapes elsewhere
 * (dashboards' {@code SelectorDashboardScrapeTest}, cli's {@code SessionClusterJobTest}).
 */
class AlertRulesTest {

    /** A series that exists only while a job does. */
    private static final Pattern JOB_SERIES = Pattern.compile("flink_(jobmanager|taskmanager)_job_");
    private static final Pattern FLINK_JOB_MATCHER = Pattern.compile("\\{job=~\"([^\"]+)\"}");

    static Map<String, Map<String, JsonNode>> groups;

    @BeforeAll
    static void load() throws IOException {
        JsonNode alerts = Manifests.yaml(Files.readString(Manifests.root().resolve("deploy/prometheus/alerts.yml")));
        groups = new LinkedHashMap<>();
        for (JsonNode g : alerts.path("groups")) {
            Map<String, JsonNode> rules = new LinkedHashMap<>();
            g.path("rules").forEach(r -> rules.put(r.path("alert").asText(), r));
            groups.put(g.path("name").asText(), rules);
        }
    }

    @Test
    void aFittingJobThatIsNotRunningIsAlertedOnFromTheJobManagersOwnSeries() {
        Map<String, JsonNode> rules = groups.get("tierroute-fitting-job");
        String flinkScrapeJob = scrapeJob(rules.get("TierrouteFlinkDown").path("expr").asText(), "up");
        List<String> stillReadable = new ArrayList<>();
        rules.forEach((name, r) -> {
            String expr = r.path("expr").asText();
            if (!name.equals("TierrouteFlinkDown") && !JOB_SERIES.matcher(expr).find()) {
                stillReadable.add(name);
            }
        });
        assertThat(stillReadable).as("fitting-job rules, other than Flink down, whose series are there with no job")
            .containsExactly("TierrouteFittingJobNotRunning");
        JsonNode notRunning = rules.get("TierrouteFittingJobNotRunning");
        String expr = notRunning.path("expr").asText();
        assertThat(expr).startsWith("flink_jobmanager_numRunningJobs{").endsWith(" == 0");
        assertThat(scrapeJob(expr, "flink_jobmanager_numRunningJobs")).as("the Flink scrape job, as TierrouteFlinkDown selects it")
            .isEqualTo(flinkScrapeJob);
        assertThat(notRunning.path("for").asText()).isEqualTo("5m");
        assertThat(notRunning.path("labels").path("severity").asText()).isEqualTo("critical");
    }

    /**
     * The selectors' side: a counter every selector with Kafka serves whatever the job does, so it also fires where Flink
     * is not scraped at all (TierrouteFlinkDown reads {@code up}, which a missing scrape target does not have either).
     */
    @Test
    void selectorsThatSwapInNoParametersForLongAreAlertedOnUnlessTheirScopeIsPinned() {
        JsonNode r = groups.get("tierroute-selector").get("TierrouteParamsNotUpdated");
        assertThat(r).as("TierrouteParamsNotUpdated").isNotNull();
        String expr = r.path("expr").asText();
        Matcher m = Pattern.compile("^increase\\(tierroute_params_swaps_total\\[(\\d+)([mh])]\\) == 0 unless on \\(instance, job\\) "
            + "tierroute_params_served_scope_pinned == 1$").matcher(expr);
        assertThat(m.matches()).as(expr).isTrue();
        long minutes = Long.parseLong(m.group(1)) * (m.group(2).equals("h") ? 60 : 1);
        assertThat(minutes).as("longer than the gate's own 30 min (TierrouteNoSnapshotAccepted)").isGreaterThanOrEqualTo(30);
        assertThat(r.path("for").asText()).isNotBlank();
    }

    /**
     * A selector part stopped for good answers /healthz 503, and the liveness probe restarts the pod about a minute
     * later, which resets the stop gauges: a rule on the gauges' current value could miss the stop between scrapes, and
     * a {@code for:} clause would outlast the pod. Each gauge is read through {@code max_over_time} of some minutes.
     */
    @Test
    void aSelectorPartThatStoppedIsAlertedOnAfterTheRestartThatClearsItsGauge() {
        Map<String, String> gauges = Map.of("TierrouteSelectorKafkaPartStopped", "tierroute_kafka_part_stopped",
            "TierrouteSelectorIndexWriterStopped", "tierroute_index_writer_stopped");
        gauges.forEach((alert, gauge) -> {
            JsonNode r = groups.get("tierroute-selector").get(alert);
            assertThat(r).as(alert).isNotNull();
            String expr = r.path("expr").asText();
            Matcher m = Pattern.compile("max_over_time\\(" + gauge + "\\[(\\d+)m]\\)").matcher(expr);
            assertThat(m.find()).as("%s over a window in %s", gauge, expr).isTrue();
            assertThat(Integer.parseInt(m.group(1))).as("minutes past the restart").isGreaterThanOrEqualTo(5);
            assertThat(r.has("for")).as("no for: the stopped pod is restarted within a minute or two").isFalse();
            assertThat(r.path("labels").path("severity").asText()).isEqualTo("critical");
        });
    }

    /** The {@code job=~} matcher of {@code series} in {@code expr}. */
    private static String scrapeJob(String expr, String series) {
        Matcher m = FLINK_JOB_MATCHER.matcher(expr.substring(expr.indexOf(series) + series.length()));
        assertThat(m.lookingAt()).as("%s{job=~...} in %s", series, expr).isTrue();
        return m.group(1);
    }
}
