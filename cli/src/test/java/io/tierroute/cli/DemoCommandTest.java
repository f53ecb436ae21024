package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.kafka.KafkaServices;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;
import io.tierroute.sim.live.LiveFleet;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code tierroute demo} end to end, twice in the same JVM: the live fleet's requests are routed by
 * the selector, the fitting job publishes an accepted snapshot that the selector applies, the
 * dashboard answers, and the command ends after --duration with a summary.
 */
class DemoCommandTest {

    private static final Path TRACE = Path.of("..", "..", "shared", "traces", "mooncake", "conversation_trace.jsonl");
    private static final String TOKEN = "demo-command-test-token";

    private static Demo.Options options() {
        return new Demo.Options(TRACE, null, 8, 40, 1, 0, 1, "default", 0, 0, 100, 0.3, 50, TOKEN, "TIERROUTE_ADMIN_TOKEN");
    }

    @Test
    void routesFitsAndServesTheFittedSnapshotAndStartsAgain() throws Exception {
        // Run 1, through the parts: the selector ends up serving a fitted snapshot.
        try (Demo demo = Demo.start(options())) {
            // As long as DemoJobRestartTest and DemoProcessTest allow: the other test JVM shares the two cores.
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (demo.store().current().version() == 0 && System.nanoTime() < deadline) {
                assertThat(demo.fleet().failure()).isNull();
                Thread.sleep(200);
            }
            assertThat(demo.fleet().routed()).as("requests routed").isGreaterThan(0);
            assertThat(demo.store().current().version()).as("the selector applied an accepted snapshot: " + demo.statusLine())
                    .isGreaterThan(0);
            assertThat(demo.decisions().acknowledged()).as("decisions published").isGreaterThan(0);
            // The summary reads the gate's verdicts from the demo's dashboard (its Kafka stops with it): the served
            // version is there.
            assertThat(demo.fleetRun().gateReasonsOf(demo.store().current().version())).as("read from the dashboard")
                    .isPresent();
            HttpResponse<String> status = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    demo.dashboardUri().resolve("/api/v1/status")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(status.statusCode()).as(status.body()).isEqualTo(200);
            // The line reads the store, then the loader's status: for a moment after a swap they may disagree.
            long agree = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (!demo.statusLine().contains("default=v") && System.nanoTime() < agree) {
                Thread.sleep(50);
            }
            assertThat(demo.statusLine()).contains("routed").contains("default=v");
            showsTheKafkaPartsAsTheStandaloneSelectorDoes(demo);
            drainingEveryWorkerPausesTheFleetUntilOneIsBack(demo);
        }

        // Run 2, through the command: starts from nothing, stops after --duration, prints the summary.
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = TierrouteCommand.execute(new String[] {"demo", "--trace", TRACE.toString(), "--time-scale", "40",
                "--duration", "8s", "--flink-ui-port", "0", "--dashboard-port", "0", "--selector-port", "0"}, new PrintWriter(out, true),
                new PrintWriter(err, true));
        assertThat(rc).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("Flink web UI:", "dashboard:", "Kafka bootstrap:", "--duration reached",
                "requests: ").doesNotContain("requests: 0 routed");
        assertThat(err.toString()).contains("routed", "TTFT p50");
    }

    /**
     * The demo's /metrics and /v1/params show the Kafka parts as {@code tierroute selector} does: the same
     * {@code kafka} block (keys, to every depth) as a standalone selector's Kafka parts on the same broker.
     */
    private static void showsTheKafkaPartsAsTheStandaloneSelectorDoes(Demo demo) throws Exception {
        JsonNode demoBlock = new DemoSelectorApiAssertions(demo.selectorUri()).assertShowsTheKafkaParts();
        List<WorkerSpec> specs = LiveFleet.workerNames(8).stream().map(w -> WorkerSpec.of(w, 1_000_000)).toList();
        RunPrefixIndex index = RunPrefixIndex.builder().workers(8).build();
        DirectIndexWriter writer = new DirectIndexWriter(index);
        ParameterStore store = new ParameterStore(ParameterSet.defaults(8));
        Selector selector = new Selector(SelectorSettings.builder(specs).build(), index, writer, store, System::nanoTime);
        // As the demo's: params and decisions on, KV events off (the fleet applies its own).
        KafkaSettings ks = KafkaSettings.defaults(demo.bootstrap()).withScope("default")
                .withKvEvents(new KafkaSettings.KvEvents(false, "latest"));
        try (KafkaServices standalone = KafkaServices.start(ks, selector, store, writer, CostParameters.DEFAULTS, 0.5)) {
            JsonNode standaloneBlock = new ObjectMapper().valueToTree(standalone.status());
            assertThat(keys(demoBlock, "")).as(demoBlock.toString()).isEqualTo(keys(standaloneBlock, ""))
                    .contains("params.scopes.*.pinned_version", "params.scopes.*.control_sequence", "params.startup_ms",
                            "params.restarts", "decisions.sent", "decisions.sink_errors");
        }
    }

    /** Every key path of {@code node}, a scope's name written as {@code *}. */
    private static java.util.SortedSet<String> keys(JsonNode node, String prefix) {
        java.util.SortedSet<String> out = new java.util.TreeSet<>();
        node.fields().forEachRemaining(e -> {
            String path = prefix + (prefix.endsWith("scopes.") ? "*" : e.getKey());
            out.add(path);
            out.addAll(keys(e.getValue(), path + "."));
        });
        return out;
    }

    /**
     * The simulator cannot turn a request away: with every worker drained through the selector's API the
     * fleet holds the arrival (counted once as no_capacity) instead of failing, and goes on after an undrain.
     */
    private static void drainingEveryWorkerPausesTheFleetUntilOneIsBack(Demo demo) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        java.util.List<String> workers = io.tierroute.sim.live.LiveFleet.workerNames(8);
        for (String w : workers) {
            assertThat(admin(http, demo, w, "drain").statusCode()).isEqualTo(200);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (demo.fleet().held() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(demo.fleet().held()).as("an arrival waits for a worker").isEqualTo(1);
        long routed = demo.fleet().routed();
        Thread.sleep(1000);
        assertThat(demo.fleet().routed()).as("nothing routed while every worker is drained").isEqualTo(routed);
        assertThat(demo.fleet().failure()).isNull();
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(demo.selectorUri().resolve("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body()).contains("tierroute_routes_total{outcome=\"no_capacity\"} 1.0");

        assertThat(admin(http, demo, workers.get(3), "undrain").statusCode()).isEqualTo(200);
        deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (demo.fleet().routed() <= routed && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(demo.fleet().routed()).as("routing again after the undrain").isGreaterThan(routed);
        assertThat(demo.fleet().failure()).isNull();
        for (String w : workers) {
            assertThat(admin(http, demo, w, "undrain").statusCode()).isEqualTo(200);
        }
    }

    private static HttpResponse<String> admin(HttpClient http, Demo demo, String worker, String action) throws Exception {
        return http.send(HttpRequest.newBuilder(demo.selectorUri().resolve("/v1/workers/" + worker + "/" + action))
                .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aTakenPortIsRefusedNamingTheFlag() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            for (String flag : new String[] {"--flink-ui-port", "--dashboard-port", "--selector-port"}) {
                java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("demo", "--trace", TRACE.toString(),
                        "--flink-ui-port", "0", "--dashboard-port", "0", "--selector-port", "0"));
                args.set(args.indexOf(flag) + 1, Integer.toString(taken.getLocalPort()));
                StringWriter err = new StringWriter();
                int rc = TierrouteCommand.execute(args.toArray(String[]::new), new PrintWriter(new StringWriter(), true),
                        new PrintWriter(err, true));
                assertThat(rc).as(flag).isEqualTo(1);
                assertThat(err.toString()).contains("port " + taken.getLocalPort() + " (" + flag + ") is taken");
            }
        }
    }

    @Test
    void helpExplainsTheOptions() {
        StringWriter out = new StringWriter();
        int rc = TierrouteCommand.execute(new String[] {"demo", "--help"}, new PrintWriter(out, true),
                new PrintWriter(new StringWriter(), true));
        assertThat(rc).isZero();
        assertThat(out.toString()).contains("--time-scale", "--duration", "--flink-ui-port", "--dashboard-port",
                "--selector-port", "--trace", "--workload");
        assertThat(out.toString().replaceAll("\\s+", " ")).as("said for an operator, not the tests")
                .contains("Kafka listens on a loopback port, printed at the start (any free one; --kafka-port fixes it), "
                        + "and stops with the demo.").doesNotContain("test kit");
    }
}
