package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an operator gets from a running demo's selector API ({@code --selector-port}): the live selector's
 * metrics and workers, admin calls behind the operator token, and the data plane refused (the fleet is
 * simulated) except a dry run. Over real HTTP against a real demo.
 */
final class DemoSelectorApiAssertions {

    private static final Pattern ROUTED = Pattern.compile("(?m)^tierroute_routes_total\\{outcome=\"routed\"} (\\S+)$");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;

    DemoSelectorApiAssertions(URI base) {
        this.base = base;
    }

    /** Every check, on a demo with {@code workers} workers and operator token {@code token}. */
    void assertServesTheLiveSelector(int workers, String token) throws Exception {
        assertMetricsCountTheFleetsRoutes();
        assertWorkersShowTheFleet(workers);
        assertAdminNeedsTheToken(token);
        assertDataPlaneRefusedButDryRun();
        HttpResponse<String> health = send(get("/healthz"));
        assertThat(health.statusCode()).isEqualTo(200);
        assertShowsTheKafkaParts();
    }

    /**
     * The Kafka parts as {@code tierroute selector} shows them: the loader's and the decision publisher's
     * metrics (which dashboards/grafana/selector.json charts) and their {@code kafka} block in /v1/params.
     * Returns that block.
     */
    JsonNode assertShowsTheKafkaParts() throws Exception {
        HttpResponse<String> metrics = send(get("/metrics"));
        assertThat(metrics.body()).contains("tierroute_params_swaps_total ", "tierroute_params_ready 1.0",
                "tierroute_params_records_read_total{topic=", "tierroute_params_pinned{scope=",
                "tierroute_decisions_sent_total ", "tierroute_decisions_acknowledged_total ",
                "tierroute_decisions_dropped_total{reason=\"buffer_full\"}", "tierroute_decisions_backlog ");
        JsonNode params = json(send(get("/v1/params")), 200);
        JsonNode kafka = params.path("kafka");
        assertThat(kafka.path("params").path("ready").asBoolean()).as(params.toString()).isTrue();
        assertThat(kafka.path("decisions").path("sent").asLong()).as(params.toString()).isPositive();
        return kafka;
    }

    /** tierroute_routes_total{outcome="routed"} is above 0 and grows while the fleet runs. */
    void assertMetricsCountTheFleetsRoutes() throws Exception {
        double first = routedCount();
        assertThat(first).as("routed routes on /metrics").isPositive();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        double later = first;
        while (later <= first && System.nanoTime() < deadline) {
            Thread.sleep(200);
            later = routedCount();
        }
        assertThat(later).as("routed routes on /metrics, later").isGreaterThan(first);
    }

    double routedCount() throws Exception {
        HttpResponse<String> r = send(get("/metrics"));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
        Matcher m = ROUTED.matcher(r.body());
        assertThat(m.find()).as("the route counter on /metrics:\n" + r.body()).isTrue();
        return Double.parseDouble(m.group(1));
    }

    /** w0 … w{n-1}, healthy, with their load; some request in flight within a few seconds. */
    void assertWorkersShowTheFleet(int workers) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        long inFlight = 0;
        JsonNode body;
        do {
            body = json(send(get("/v1/workers")), 200);
            List<String> names = new ArrayList<>();
            inFlight = 0;
            for (JsonNode w : body.path("workers")) {
                names.add(w.path("name").asText());
                assertThat(w.path("healthy").asBoolean()).as(w.toString()).isTrue();
                assertThat(w.path("load").has("kv_capacity_tokens")).as(w.toString()).isTrue();
                assertThat(w.path("load").path("kv_capacity_tokens").asLong()).as(w.toString()).isPositive();
                inFlight += w.path("load").path("in_flight").asLong();
            }
            assertThat(names).isEqualTo(io.tierroute.sim.live.LiveFleet.workerNames(workers));
        } while (inFlight == 0 && System.nanoTime() < deadline && sleep());
        assertThat(inFlight).as("requests in flight on the workers: " + body).isPositive();
    }

    /** Without the token 401, with it drain and undrain w0, as /v1/workers then shows. */
    void assertAdminNeedsTheToken(String token) throws Exception {
        HttpResponse<String> anonymous = send(post("/v1/workers/w0/drain", "").build());
        assertThat(anonymous.statusCode()).as(anonymous.body()).isEqualTo(401);
        assertThat(JSON.readTree(anonymous.body()).path("error").asText()).contains("Bearer");
        HttpResponse<String> wrong = send(post("/v1/workers/w0/drain", "").header("Authorization", "Bearer nope").build());
        assertThat(wrong.statusCode()).as(wrong.body()).isEqualTo(401);
        assertThat(worker0().path("draining").asBoolean()).as("w0 after refused drains").isFalse();

        JsonNode drained = json(send(post("/v1/workers/w0/drain", "").header("Authorization", "Bearer " + token).build()), 200);
        assertThat(drained.path("draining").asBoolean()).as(drained.toString()).isTrue();
        assertThat(worker0().path("draining").asBoolean()).as("w0 on /v1/workers after the drain").isTrue();
        JsonNode undrained = json(send(post("/v1/workers/w0/undrain", "").header("Authorization", "Bearer " + token)
                .build()), 200);
        assertThat(undrained.path("draining").asBoolean()).as(undrained.toString()).isFalse();
        assertThat(worker0().path("draining").asBoolean()).as("w0 on /v1/workers after the undrain").isFalse();
    }

    /** A route and a KV event batch get 409 naming the simulated fleet; a dry run answers a worker. */
    void assertDataPlaneRefusedButDryRun() throws Exception {
        String route = "{\"text\": \"You are a helpful assistant. Tell me about tiers.\", \"max_tokens\": 16}";
        HttpResponse<String> refused = send(post("/v1/route", route).build());
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
        assertThat(JSON.readTree(refused.body()).path("error").asText()).contains("simulated fleet", "?dry_run=true");
        HttpResponse<String> kv = send(post("/v1/kv-events", "{\"worker\": \"w0\", \"events\": []}").build());
        assertThat(kv.statusCode()).as(kv.body()).isEqualTo(409);
        assertThat(JSON.readTree(kv.body()).path("error").asText()).contains("simulated fleet", "/v1/kv-events");

        JsonNode dry = json(send(post("/v1/route?dry_run=true", route).build()), 200);
        assertThat(dry.path("worker").asText()).as(dry.toString()).matches("w\\d+");
    }

    private JsonNode worker0() throws Exception {
        return json(send(get("/v1/workers")), 200).path("workers").get(0);
    }

    private static boolean sleep() throws InterruptedException {
        Thread.sleep(200);
        return true;
    }

    private HttpRequest get(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).build();
    }

    private HttpRequest.Builder post(String path, String body) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private HttpResponse<String> send(HttpRequest r) throws Exception {
        return http.send(r, HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> r, int status) throws Exception {
        assertThat(r.statusCode()).as(r.uri() + ": " + r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).contains("application/json");
        return JSON.readTree(r.body());
    }
}
