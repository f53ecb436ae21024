package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code tierroute demo} as its own JVM on fixed ports (every port flag set to a port picked free
 * first), twice in a row on the SAME ports: the first run on the Mooncake trace is stopped with Ctrl-C
 * (SIGINT) once it routes and serves a fitted snapshot, the second on the agentic workload ends by
 * --duration. While the first runs, the Flink web UI answers, the status line shows TTFT p99 and the α's
 * of the snapshot the selector serves (as the dashboard reports that version), the fleet's telemetry and
 * KV events are on their topics, and the selector's API serves that selector's metrics and workers, with
 * admin calls behind the operator token ({@link DemoSelectorApiAssertions}). After each run: the summary,
 * a bounded exit, every port free, no process and no temporary file left.
 */
class DemoProcessTest {

    private static final Path TRACE = Path.of("..", "..", "shared", "traces", "mooncake", "conversation_trace.jsonl")
            .toAbsolutePath().normalize();
    /** Demo.statusLine(); p99 must be a figure, the snapshot a fitted version (v0 = the defaults). */
    private static final Pattern STATUS = Pattern.compile("routed (\\d+), done \\d+ \\| TTFT p50 \\S+ p99 (\\d+\\.\\d{3})s "
            + "\\| snapshots (\\S+) \\(serving v(\\d+)\\) \\| α_p (\\S+) α_d (\\S+)");
    private static final Pattern ROUTED = Pattern.compile("requests: (\\d+) routed, (\\d+) completed");
    private static final Pattern DECISIONS = Pattern.compile(
            "decisions published: (\\d+) acknowledged of (\\d+) offered \\((\\d+) dropped or failed, (\\d+) still in flight\\)");
    private static final Pattern FLEET = Pattern.compile(
            "fleet records: \\d+ acknowledged of \\d+ sent \\([^)]*\\): (\\d+) telemetry, (\\d+) KV batches, (\\d+) completions");
    /** The demo's shutdown hook waits up to 60 s for it to close; the broker's own stop is bounded by 30 s. */
    private static final Duration EXIT_BOUND = Duration.ofSeconds(60);
    /** Names the operator token of run 1 (--token-env); the test sets it in the demo's environment. */
    private static final String TOKEN_ENV = "TIERROUTE_DEMO_TEST_TOKEN";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    @Test
    void ctrlCStopsItCleanlyAndASecondRunOnTheSamePortsWorks() throws Exception {
        Map<String, Integer> ports = freePorts("--flink-ui-port", "--dashboard-port", "--kafka-port", "--selector-port");
        List<String> portArgs = new ArrayList<>();
        ports.forEach((flag, port) -> portArgs.addAll(List.of(flag, port.toString())));

        // Run 1: the trace, until Ctrl-C.
        // Made up here and given to the child only, so the test runs the same from Maven or an IDE.
        String token = "demo-process-test-" + UUID.randomUUID();
        List<String> run1 = new ArrayList<>(List.of("--trace", TRACE.toString(), "--time-scale", "40",
                "--status-interval", "250ms", "--token-env", TOKEN_ENV));
        run1.addAll(portArgs);
        try (DemoChild demo = DemoChild.start(dir.resolve("run-1"), run1, Map.of(TOKEN_ENV, token))) {
            long t0 = System.nanoTime();
            // The line reads the store and the loader's status one after the other: a swap between the two reads shows
            // the new version served under the old status for one line; the next line agrees.
            Matcher status = demo.awaitLast(STATUS, m -> Long.parseLong(m.group(1)) > 0 && Long.parseLong(m.group(4)) > 0
                            && m.group(3).startsWith("default=v"),
                    Duration.ofSeconds(150), "routing with a fitted snapshot");
            System.out.printf("demo run 1 served a fitted snapshot after %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            String log = demo.log();
            assertThat(log).contains("Flink web UI:     http://127.0.0.1:" + ports.get("--flink-ui-port"),
                    "dashboard:        http://127.0.0.1:" + ports.get("--dashboard-port"),
                    "Kafka bootstrap:  127.0.0.1:" + ports.get("--kafka-port"),
                    "selector API:     http://127.0.0.1:" + ports.get("--selector-port"));

            JsonNode overview = getJson(URI.create("http://127.0.0.1:" + ports.get("--flink-ui-port") + "/overview"));
            assertThat(overview.path("taskmanagers").asInt()).as(overview.toString()).isEqualTo(1);
            assertThat(overview.path("jobs-running").asInt()).as("the fitting job: " + overview).isEqualTo(1);

            assertStatusShowsTheServedAlphas(status, ports.get("--dashboard-port"));
            assertFleetPublished("127.0.0.1:" + ports.get("--kafka-port"));
            long t3 = System.nanoTime();
            new DemoSelectorApiAssertions(URI.create("http://127.0.0.1:" + ports.get("--selector-port")))
                    .assertServesTheLiveSelector(8, token);
            System.out.printf("demo run 1's selector API checked in %d ms%n", (System.nanoTime() - t3) / 1_000_000);

            long t1 = System.nanoTime();
            DemoChild.Signal sent = demo.ctrlC();
            OptionalInt rc = demo.awaitExit(EXIT_BOUND);
            Duration took = Duration.ofNanos(System.nanoTime() - t1);
            assertThat(rc).as("exited within " + EXIT_BOUND.toSeconds() + " s of " + sent + "; log:\n" + demo.tail(4000))
                    .isPresent();
            assertThat(rc.getAsInt()).as("ended by " + sent).isEqualTo(128 + sent.number);
            System.out.printf("demo run 1 stopped by %s in %d ms%n", sent, took.toMillis());
            assertThat(demo.log()).contains("tierroute demo: stopping (Ctrl-C or SIGTERM)");
            assertSummary(demo);
            assertNothingLeft(demo, ports);
        }

        // Run 2: the agentic workload on the same ports, until --duration.
        List<String> run2 = new ArrayList<>(List.of("--workload", "agentic", "--time-scale", "40", "--duration", "5s"));
        run2.addAll(portArgs);
        try (DemoChild demo = DemoChild.start(dir.resolve("run-2"), run2)) {
            long t2 = System.nanoTime();
            OptionalInt rc = demo.awaitExit(Duration.ofSeconds(240));
            System.out.printf("demo run 2 (agentic, --duration 5s) took %d ms%n", (System.nanoTime() - t2) / 1_000_000);
            assertThat(rc).as("log:\n" + demo.tail(4000)).hasValue(0);
            assertThat(demo.log()).contains("workload agentic", "tierroute demo: stopping (--duration reached)");
            assertSummary(demo);
            assertNothingLeft(demo, ports);
        }
    }

    @Test
    void ctrlCDuringStartUpStopsWhatHadStarted() throws Exception {
        Map<String, Integer> ports = freePorts("--flink-ui-port", "--dashboard-port", "--kafka-port", "--selector-port");
        // a --min-samples the fleet cannot reach soon keeps the demo in its start-up (it submits the job after them)
        List<String> args = new ArrayList<>(List.of("--trace", TRACE.toString(), "--min-samples", "1000000"));
        ports.forEach((flag, port) -> args.addAll(List.of(flag, port.toString())));
        try (DemoChild demo = DemoChild.start(dir.resolve("early"), args)) {
            long t0 = System.nanoTime();
            demo.awaitLast(Pattern.compile("starting Kafka"), m -> LoopbackPorts.listening(ports.get("--kafka-port"))
                    && LoopbackPorts.listening(ports.get("--dashboard-port")), Duration.ofSeconds(120),
                    "its Kafka broker and dashboard listening");
            assertThat(demo.log()).as("still starting").doesNotContain("Flink web UI:");
            assertThat(demo.startedProcessesAlive()).as("the broker process").isNotEmpty();
            System.out.printf("demo start-up reached the dashboard after %d ms%n", (System.nanoTime() - t0) / 1_000_000);

            long t1 = System.nanoTime();
            DemoChild.Signal sent = demo.ctrlC();
            OptionalInt rc = demo.awaitExit(EXIT_BOUND);
            assertThat(rc).as("exited within " + EXIT_BOUND.toSeconds() + " s of " + sent + "; log:\n" + demo.tail(4000))
                    .isPresent();
            System.out.printf("demo stopped during start-up by %s in %d ms%n", sent, (System.nanoTime() - t1) / 1_000_000);
            assertThat(rc.getAsInt()).as("ended by " + sent).isEqualTo(128 + sent.number);
            assertNothingLeft(demo, ports);
            assertThat(demo.log()).contains("tierroute demo: stopped during start-up");
        }
    }

    /** One free loopback port per flag, all different. */
    private static Map<String, Integer> freePorts(String... flags) {
        Map<String, Integer> ports = new TreeMap<>();
        for (String f : flags) {
            int p;
            do {
                p = LoopbackPorts.free();
            } while (ports.containsValue(p));
            ports.put(f, p);
        }
        return ports;
    }

    private JsonNode getJson(URI uri) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(uri + ": " + r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).as(uri.toString()).contains("application/json");
        return new ObjectMapper().readTree(r.body());
    }

    /** The α's on the status line are those of the version the selector serves, as the dashboard reads it. */
    private void assertStatusShowsTheServedAlphas(Matcher status, int dashboardPort) throws Exception {
        assertThat(Double.parseDouble(status.group(2))).as("TTFT p99 in s: " + status.group()).isPositive();
        assertThat(status.group(3)).as("active snapshot per scope").startsWith("default=v");
        long serving = Long.parseLong(status.group(4));
        JsonNode version = getJson(URI.create("http://127.0.0.1:" + dashboardPort + "/api/v1/scopes/default/versions/"
                + serving));
        assertThat(version.path("status").asText()).isEqualTo("ACCEPTED");
        for (String[] p : new String[][] {{"alphaP", status.group(5)}, {"alphaD", status.group(6)}}) {
            double fitted = version.path("params").path(p[0]).path("value").asDouble(Double.NaN);
            // the status line prints 3 significant digits
            assertThat(Double.parseDouble(p[1])).as(p[0] + " of v" + serving + " on the status line: " + status.group())
                    .isCloseTo(fitted, Percentage.withPercentage(0.5));
        }
    }

    /** Telemetry and KV event batches reached their topics, and they decode. */
    private static void assertFleetPublished(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            for (String topic : List.of(Topics.TELEMETRY, Topics.KV_EVENTS)) {
                List<TopicPartition> parts = c.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                        .map(i -> new TopicPartition(topic, i.partition())).toList();
                long records = c.endOffsets(parts, Duration.ofSeconds(10)).values().stream().mapToLong(Long::longValue).sum();
                assertThat(records).as("records on " + topic).isPositive();
                c.assign(parts);
                c.seekToBeginning(parts);
                ConsumerRecord<byte[], byte[]> first = null;
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (first == null && System.nanoTime() < deadline) {
                    var batch = c.poll(Duration.ofMillis(200));
                    first = batch.isEmpty() ? null : batch.iterator().next();
                }
                assertThat(first).as("a record read from " + topic).isNotNull();
                Object decoded = topic.equals(Topics.TELEMETRY) ? Codecs.ENGINE_TELEMETRY.decode(first.value())
                        : Codecs.KV_EVENT_BATCH.decode(first.value());
                assertThat(decoded.toString()).contains("\"worker\": \"w");
            }
        }
    }

    private static void assertSummary(DemoChild demo) {
        String log = demo.log();
        Matcher routed = ROUTED.matcher(log);
        assertThat(routed.find()).as("summary printed:\n" + demo.tail(4000)).isTrue();
        assertThat(Long.parseLong(routed.group(1))).as(routed.group()).isPositive();
        Matcher fleet = FLEET.matcher(log);
        assertThat(fleet.find()).as("summary names the fleet's records:\n" + demo.tail(4000)).isTrue();
        assertThat(Long.parseLong(fleet.group(1))).as(fleet.group()).isPositive();
        assertThat(Long.parseLong(fleet.group(2))).as(fleet.group()).isPositive();
        assertThat(log).contains("TTFT: p50 ").contains("snapshots: ");
        // the summary waits for the last decisions' acknowledgements: every decision offered reached the broker
        Matcher decisions = DECISIONS.matcher(log);
        assertThat(decisions.find()).as("summary counts the decisions:\n" + demo.tail(4000)).isTrue();
        assertThat(decisions.group(1)).as(decisions.group()).isEqualTo(decisions.group(2));
        assertThat(Long.parseLong(decisions.group(2))).as(decisions.group()).isEqualTo(Long.parseLong(routed.group(1)));
        assertThat(decisions.group(4)).as(decisions.group()).isEqualTo("0");
    }

    private static void assertNothingLeft(DemoChild demo, Map<String, Integer> ports) throws Exception {
        assertThat(demo.startedProcessesAlive()).as("processes the demo started and left running").isEmpty();
        for (Map.Entry<String, Integer> e : ports.entrySet()) {
            assertThat(LoopbackPorts.listening(e.getValue())).as(e.getKey() + " " + e.getValue() + " still answers").isFalse();
            PortFlags.requireFree(e.getValue(), e.getKey());
        }
        assertThat(demo.leftoverFiles()).as("left in the demo's java.io.tmpdir").isEmpty();
    }
}
