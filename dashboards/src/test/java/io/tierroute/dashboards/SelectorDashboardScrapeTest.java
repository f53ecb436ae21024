package io.tierroute.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import io.tierroute.selector.server.SelectorServer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code grafana/selector.json} against a real scrape: a real {@link SelectorServer} with its Kafka
 * services (parameter loader, KV event consumer, decision publisher, replica sync) on the test broker routes a few
 * requests, and every series name a query of the dashboard names (suffixes {@code _total},
 * {@code _bucket} as written) is in its {@code /metrics}, with every label the query filters on or
 * groups by ({@code instance} and {@code job} are Prometheus's target labels, not the selector's).
 */
class SelectorDashboardScrapeTest {

    private static final Pattern SELECTOR = Pattern.compile("(tierroute_[a-z0-9_]+)(?:\\{([^}]*)})?");
    private static final Pattern MATCHER_LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(?:=~|!~|!=|=)");
    private static final Pattern BY = Pattern.compile("\\bby\\s*\\(([^)]*)\\)");
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((tierroute_[a-z0-9_]+),\\s*([a-z_]+)\\)");
    private static final Set<String> TARGET_LABELS = Set.of("instance", "job");

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void everySeriesTheSelectorDashboardQueriesIsInARealScrape() throws Exception {
        Broker.resetTopics();
        try (KafkaProducer<byte[], byte[]> p = Broker.producer()) {
            Broker.publish(p, Snapshots.accepted("default", 1).build());
        }
        SelectorConfig c = ConfigLoader.parse("workers: [{name: w0}, {name: w1}, {name: w2}]\nkafka: {bootstrapServers: \""
                + Broker.bootstrap() + "\", params: {requireOnStart: true, startupTimeout: 30s}, replicaSync: {enabled: true, "
                + "direct: {listen: \"127.0.0.1:" + freeUdpPort() + "\", peers: [\"127.0.0.1:9\"]}}}\n", Path.of("."));
        Map<String, String> env = Map.of("TIERROUTE_REPLICA_KEY", "a replica key of at least 32 characters");
        Map<String, Set<String>> scraped;
        try (SelectorServer s = SelectorServer.startWith(c.withServer(c.server().withPort(0)), env::get, false)) {
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(s.uri().resolve("/v1/route"))
                        .POST(HttpRequest.BodyPublishers.ofString("{\"request_id\":\"g-" + i + "\",\"text\":\"hello " + i + "\"}"))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }
            Broker.await(Duration.ofSeconds(20), () -> s.kafka().decisions().acknowledged() == 5, "decisions acknowledged");
            scraped = series(http.send(HttpRequest.newBuilder(s.uri().resolve("/metrics")).timeout(Duration.ofSeconds(10))
                    .build(), HttpResponse.BodyHandlers.ofString()).body());
        }

        List<String> queries = new ArrayList<>();
        collectText(new ObjectMapper().readTree(Path.of("grafana", "selector.json").toFile()), queries);
        int alerts = 0; // the alerting rules' expressions too (deploy/prometheus/alerts.yml): a rule on a missing series never fires
        for (String line : java.nio.file.Files.readAllLines(Path.of("..", "deploy", "prometheus", "alerts.yml"))) {
            String t = line.strip();
            if (t.startsWith("expr:") && t.contains("tierroute_")) {
                queries.add(t.substring("expr:".length()).strip());
                alerts++;
            }
        }
        assertThat(alerts).as("selector alert rules").isGreaterThanOrEqualTo(5);
        Set<String> checked = new TreeSet<>();
        for (String q : queries) {
            Matcher m = SELECTOR.matcher(q);
            Set<String> inQuery = new TreeSet<>();
            while (m.find()) {
                String name = m.group(1);
                inQuery.add(name);
                assertThat(scraped).as("'" + name + "' (queried by " + q + ") in the selector's /metrics").containsKey(name);
                if (m.group(2) != null) {
                    Matcher l = MATCHER_LABEL.matcher(m.group(2));
                    while (l.find()) {
                        assertLabel(scraped, name, l.group(1), q);
                    }
                }
            }
            if (inQuery.isEmpty()) {
                continue;
            }
            checked.addAll(inQuery);
            Matcher by = BY.matcher(q);
            while (by.find()) {
                // one series per query on this dashboard, so the grouping labels are that series' labels
                assertThat(inQuery).as("grouping in a query over one series: " + q).hasSize(1);
                for (String label : by.group(1).split(",")) {
                    assertLabel(scraped, inQuery.iterator().next(), label.trim(), q);
                }
            }
            Matcher lv = LABEL_VALUES.matcher(q);
            while (lv.find()) {
                assertLabel(scraped, lv.group(1), lv.group(2), q);
            }
        }
        assertThat(checked).as("series the dashboard queries").hasSizeGreaterThan(40);
    }

    private static void assertLabel(Map<String, Set<String>> scraped, String series, String label, String query) {
        if (!TARGET_LABELS.contains(label)) {
            assertThat(scraped.get(series)).as("label '" + label + "' of " + series + " (used by " + query + ")").contains(label);
        }
    }

    /** A UDP port free a moment ago: a config file may not ask for port 0, which no peer could know. */
    private static int freeUdpPort() throws java.net.SocketException {
        try (java.net.DatagramSocket socket = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Sample name → the label names its samples carry, from the Prometheus text format. */
    static Map<String, Set<String>> series(String exposition) {
        Map<String, Set<String>> out = new TreeMap<>();
        for (String line : exposition.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.indexOf(' ');
            int end = brace >= 0 && brace < space ? brace : space;
            Set<String> labels = out.computeIfAbsent(line.substring(0, end), k -> new TreeSet<>());
            if (end == brace) {
                Matcher l = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"").matcher(line.substring(brace, line.lastIndexOf('}')));
                while (l.find()) {
                    labels.add(l.group(1));
                }
            }
        }
        return out;
    }

    private static void collectText(JsonNode n, List<String> out) {
        if (n.isTextual()) {
            out.add(n.asText());
        }
        n.forEach(child -> collectText(child, out));
    }
}
