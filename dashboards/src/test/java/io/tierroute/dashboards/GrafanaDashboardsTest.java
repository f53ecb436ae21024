package io.tierroute.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboards parse and every panel has a query; every counter of our Flink jobs that
 * {@code flink-jobs.json} queries is registered in streaming-jobs' sources. The selector dashboard's
 * series are checked against a real scrape by {@link SelectorDashboardScrapeTest}.
 */
class GrafanaDashboardsTest {

    private static final Path GRAFANA = Path.of("grafana");
    private static final Pattern OURS = Pattern.compile("\\(\\.\\+_\\)\\?([A-Za-z]+)\"");

    private static List<String> exprs(String file) throws IOException {
        JsonNode d = new ObjectMapper().readTree(GRAFANA.resolve(file).toFile());
        assertThat(d.get("uid").asText()).isNotBlank();
        List<String> out = new ArrayList<>();
        for (JsonNode p : d.get("panels")) {
            assertThat(p.get("targets")).as("panel '" + p.get("title").asText() + "' has a query").isNotEmpty();
            p.get("targets").forEach(t -> out.add(t.get("expr").asText()));
        }
        return out;
    }

    private static String sources(String module) throws IOException {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> files = Files.walk(Path.of("..", module, "src", "main", "java"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                sb.append(Files.readString(f));
            }
        }
        return sb.toString();
    }

    @Test
    void selectorDashboardParses() throws IOException {
        assertThat(exprs("selector.json")).hasSizeGreaterThan(20); // its series: SelectorDashboardScrapeTest
    }

    @Test
    void flinkDashboardQueriesOnlyMetricsTheJobsRegister() throws IOException {
        List<String> exprs = exprs("flink-jobs.json");
        Set<String> ours = new TreeSet<>();
        for (String e : exprs) {
            Matcher m = OURS.matcher(e);
            while (m.find()) {
                ours.add(m.group(1));
            }
        }
        assertThat(ours).contains("snapshotsAccepted", "deadLetters", "joinedRows", "rhoLinkSamplesRefused", "liveScopes");
        String src = sources("streaming-jobs");
        for (String n : ours) {
            assertThat(src.contains("counter(\"" + n + "\")") || src.contains("gauge(\"" + n + "\""))
                .as("counter or gauge " + n + " is registered in streaming-jobs").isTrue();
        }
        assertThat(String.join("\n", exprs)).contains("flink_jobmanager_job_numRestarts");
    }
}
