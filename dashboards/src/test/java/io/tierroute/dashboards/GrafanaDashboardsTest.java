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
 * The Grafana dashboards parse, every panel has a query, and every tierroute metric they query is
 * registered somewhere in selector-runtime's sources (no invented metrics); every counter of our
 * Flink jobs they query is registered in streaming-jobs' sources.
 */
class GrafanaDashboardsTest {

    private static final Path GRAFANA = Path.of("grafana");
    private static final Pattern TIERROUTE = Pattern.compile("tierroute_[a-z0-9_]+");
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
    void selectorDashboardQueriesOnlyRegisteredMetrics() throws IOException {
        String src = sources("selector-runtime");
        Set<String> names = new TreeSet<>();
        for (String e : exprs("selector.json")) {
            Matcher m = TIERROUTE.matcher(e);
            while (m.find()) {
                names.add(m.group().replaceAll("_(bucket|count|sum)$", ""));
            }
        }
        assertThat(names).hasSizeGreaterThan(20);
        for (String n : names) {
            String registered = n.endsWith("_total") && !src.contains("\"" + n + "\"") ? n.substring(0, n.length() - 6) : n;
            assertThat(src).as("metric " + n + " is registered in selector-runtime").contains("\"" + registered);
        }
    }

    @Test
    void flinkDashboardQueriesOnlyCountersTheJobsRegister() throws IOException {
        List<String> exprs = exprs("flink-jobs.json");
        Set<String> ours = new TreeSet<>();
        for (String e : exprs) {
            Matcher m = OURS.matcher(e);
            while (m.find()) {
                ours.add(m.group(1));
            }
        }
        assertThat(ours).contains("snapshotsAccepted", "deadLetters", "joinedRows");
        String src = sources("streaming-jobs");
        for (String n : ours) {
            assertThat(src).as("counter " + n + " is registered in streaming-jobs").contains("counter(\"" + n + "\")");
        }
        assertThat(String.join("\n", exprs)).contains("flink_jobmanager_job_numRestarts");
    }
}
