package io.tierroute.cli.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The series dashboards/grafana/flink-jobs.json queries, as name patterns, to hold against what Flink's
 * Prometheus reporter really serves: a plain name ({@code flink_jobmanager_numRunningJobs}) must be
 * served as it is, a {@code __name__=~"…"} selector must match at least one served name.
 */
final class FlinkDashboardSeries {

    static final Path DASHBOARD = Path.of("../dashboards/grafana/flink-jobs.json");
    private static final Pattern NAME_REGEX = Pattern.compile("__name__=~\"([^\"]+)\"");
    private static final Pattern PLAIN_NAME = Pattern.compile("\\bflink_[A-Za-z0-9_]+");
    private static final Pattern SERVED_NAME = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", Pattern.MULTILINE);

    private FlinkDashboardSeries() {}

    /** The alerting rules, whose flink_* expressions are held against the reporter too. */
    static final Path ALERTS = Path.of("../deploy/prometheus/alerts.yml");

    /** Every query's series (the dashboard's and the alert rules') as an anchored pattern over metric names. */
    static Set<Pattern> queried() throws IOException {
        JsonNode d = new ObjectMapper().readTree(DASHBOARD.toFile());
        List<String> exprs = new ArrayList<>();
        for (JsonNode panel : d.get("panels")) {
            for (JsonNode target : panel.get("targets")) {
                exprs.add(target.get("expr").asText());
            }
        }
        for (String line : java.nio.file.Files.readAllLines(ALERTS)) {
            String t = line.strip();
            if (t.startsWith("expr:") && t.contains("flink_")) {
                exprs.add(t.substring("expr:".length()).strip().replace("\\\"", "\""));
            }
        }
        Set<Pattern> out = new LinkedHashSet<>();
        for (String expr : exprs) {
            Matcher regex = NAME_REGEX.matcher(expr);
            while (regex.find()) {
                out.add(Pattern.compile(regex.group(1)));
            }
            Matcher plain = PLAIN_NAME.matcher(NAME_REGEX.matcher(expr).replaceAll(""));
            while (plain.find()) {
                out.add(Pattern.compile(Pattern.quote(plain.group())));
            }
        }
        return out;
    }

    /** The metric names in a Prometheus text exposition. */
    static Set<String> served(String exposition) {
        Set<String> names = new LinkedHashSet<>();
        Matcher m = SERVED_NAME.matcher(exposition);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** The queried patterns no served name matches. */
    static List<String> missing(Set<Pattern> queried, Set<String> served) {
        List<String> missing = new ArrayList<>();
        for (Pattern p : queried) {
            if (served.stream().noneMatch(n -> p.matcher(n).matches())) {
                missing.add(p.pattern());
            }
        }
        return missing;
    }
}
