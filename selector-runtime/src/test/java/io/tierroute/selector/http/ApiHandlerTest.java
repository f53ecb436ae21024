package io.tierroute.selector.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static io.tierroute.selector.http.ApiTestServer.chain;
import static io.tierroute.selector.http.ApiTestServer.list;
import static org.assertj.core.api.Assertions.assertThat;

/** The HTTP API against a real server on loopback: happy paths, every 4xx kind, admin, metrics, reload. */
class ApiHandlerTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    static ApiTestServer api;

    @BeforeAll
    static void start() throws Exception {
        api = ApiTestServer.fourWorkers(dir);
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    private static void awaitIndex() throws InterruptedException {
        assertThat(api.server.pipeline().awaitIdle(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void routesToTheWorkerThatHoldsThePrefixAndExplains() throws Exception {
        long[] held = chain(1000, 40);
        HttpResponse<String> kv = api.post("/v1/kv-events", "{\"worker\":\"w2\",\"events\":[{\"type\":\"stored\",\"tier\":\"hbm\","
                + "\"block_hashes\":" + list(held) + "}]}");
        assertThat(kv.statusCode()).as(kv.body()).isEqualTo(202);
        awaitIndex();

        String ids = list(LongStream.range(1000, 1040).toArray());
        HttpResponse<String> r = api.post("/v1/route", "{\"request_id\":\"r-prefix\",\"block_hashes\":" + ids
                + ",\"input_tokens\":640,\"max_tokens\":100,\"explain\":true}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode d = json(r);
        assertThat(d.get("request_id").asText()).isEqualTo("r-prefix");
        assertThat(d.get("worker").asText()).isEqualTo("w2");
        assertThat(d.get("snapshot_version").asLong()).isEqualTo(1);
        assertThat(d.get("scope").asText()).isEqualTo("default");
        assertThat(d.get("predicted_output_tokens").asInt()).isEqualTo(50);
        assertThat(d.get("prediction_source").asText()).isEqualTo("max_tokens_half");
        JsonNode cost = d.get("cost");
        assertThat(cost.get("hit_tokens").asLong()).as("held whole: the engine recomputes the last block").isEqualTo(624);
        assertThat(cost.get("p_eff_tokens").asLong()).isEqualTo(16);
        assertThat(cost.get("tier_tokens").get("hbm").asLong()).isEqualTo(624);
        for (String f : new String[] {"prefill_us", "decode_us", "kv_us", "tier_us", "head_of_line_us",
                "workflow_bonus_us", "tools_bonus_us", "total_us", "harm_us", "queue_us", "own_decode_us", "in_flight",
                "kv_overflow_harm_us", "kv_wait_us",
                "queued_prefill_tokens", "kv_used_tokens", "own_decode_kv_token_steps"}) {
            assertThat(cost.has(f)).as(f).isTrue();
        }
        assertThat(d.get("candidates")).hasSize(4);
        JsonNode other = d.get("candidates").get(0);
        assertThat(other.get("worker").asText()).isEqualTo("w0");
        assertThat(other.get("cost").get("prefill_us").asDouble()).isEqualTo(640.0); // α_p · 640 uncached tokens
        finish("r-prefix");
    }

    private static void finish(String id) throws Exception {
        HttpResponse<String> r = api.post("/v1/requests/events", "{\"request_id\":\"" + id + "\",\"type\":\"finished\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    @Test
    void agentContextFromHeadersAndGeneratedId() throws Exception {
        HttpResponse<String> r = api.post("/v1/route", "{\"token_ids\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17],"
                        + "\"expected_output_tokens\":7}",
                "x-agent-workflow-id", "wf-1", "x-agent-step-id", "s1", "x-agent-expected-tools", "search, fetch");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode d = json(r);
        assertThat(d.get("request_id").asText()).isNotBlank();
        assertThat(d.get("prediction_source").asText()).isEqualTo("hint");
        assertThat(d.get("predicted_output_tokens").asInt()).isEqualTo(7);
        assertThat(d.has("candidates")).isFalse();
        String worker = d.get("worker").asText();
        finish(d.get("request_id").asText());

        // The next step of the same workflow gets the affinity bonus on the same worker.
        HttpResponse<String> next = api.post("/v1/route", "{\"text\":\"hello\",\"explain\":true}",
                "x-agent-workflow-id", "wf-1", "x-agent-expected-tools", "search");
        JsonNode n = json(next);
        assertThat(next.statusCode()).as(next.body()).isEqualTo(200);
        assertThat(n.get("worker").asText()).isEqualTo(worker);
        assertThat(n.get("cost").get("workflow_bonus_us").asDouble()).isPositive();
        finish(n.get("request_id").asText());
    }

    @Test
    void aClientCannotClaimTheIdOfARouteStillToCome() throws Exception {
        String given = json(api.post("/v1/route", "{\"text\":\"first\"}")).get("request_id").asText();
        // Whatever the counter reads, claim the next few ids a counter after the prefix would give.
        String prefix = given.substring(0, given.indexOf('-') + 1);
        String counter = given.substring(prefix.length()).split("-")[0];
        long n = Long.parseLong(counter, 36);
        java.util.List<String> claimed = new java.util.ArrayList<>();
        for (long next = n + 1; next <= n + 3; next++) {
            String id = prefix + Long.toString(next, 36);
            assertThat(api.post("/v1/route", "{\"request_id\":\"" + id + "\",\"text\":\"claim\"}").statusCode())
                    .isEqualTo(200);
            claimed.add(id);
        }
        HttpResponse<String> unnamed = api.post("/v1/route", "{\"text\":\"second\"}");
        assertThat(unnamed.statusCode()).as(unnamed.body()).isEqualTo(200);
        assertThat(json(unnamed).get("request_id").asText()).startsWith(prefix).isNotIn(claimed);
        finish(given);
        finish(json(unnamed).get("request_id").asText());
        for (String id : claimed) {
            finish(id);
        }
    }

    @Test
    void duplicateInFlightIdIs409AndUnknownEventIs404() throws Exception {
        String body = "{\"request_id\":\"dup\",\"text\":\"abc\"}";
        assertThat(api.post("/v1/route", body).statusCode()).isEqualTo(200);
        HttpResponse<String> again = api.post("/v1/route", body);
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(json(again).get("error").asText()).contains("dup").contains("already in flight");

        HttpResponse<String> ev = api.post("/v1/requests/events",
                "[{\"request_id\":\"dup\",\"type\":\"first_token\"},{\"request_id\":\"ghost\",\"type\":\"finished\"}]");
        assertThat(ev.statusCode()).isEqualTo(404);
        assertThat(json(ev).get("error").asText()).contains("ghost");
        assertThat(json(ev).get("applied").asInt()).isEqualTo(1);
        finish("dup");
    }

    private static void assert4xx(HttpResponse<String> r, int status, String... fragments) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        String error = json(r).get("error").asText();
        for (String f : fragments) {
            assertThat(error).contains(f);
        }
    }

    @Test
    void badRouteInputIs400NamingTheField() throws Exception {
        assert4xx(api.post("/v1/route", "{\"text\":\"x\""), 400, "malformed JSON");
        assert4xx(api.post("/v1/route", ""), 400, "empty");
        assert4xx(api.post("/v1/route", "{\"text\":\"x\",\"max_tokns\":5}"), 400, "unknown field 'max_tokns'", "max_tokens");
        assert4xx(api.post("/v1/route", "{\"text\":\"x\",\"max_tokens\":\"many\"}"), 400, "max_tokens", "integer");
        assert4xx(api.post("/v1/route", "{\"text\":\"x\",\"max_tokens\":1.5}"), 400, "max_tokens");
        assert4xx(api.post("/v1/route", "{\"text\":\"x\",\"max_tokens\":0}"), 400, "max_tokens", "got 0");
        assert4xx(api.post("/v1/route", "{\"text\":\"x\",\"max_tokens\":20000000}"), 400, "max_tokens");
        assert4xx(api.post("/v1/route", "{\"text\":\"x\",\"input_tokens\":-1}"), 400, "input_tokens");
        assert4xx(api.post("/v1/route", "{\"text\":\"x\",\"input_tokens\":400000}"), 400,
                "prompt's 400000 tokens do not fit the KV cache of any worker", "largest holds 400000");
        assert4xx(api.post("/v1/route", "{\"text\":\"x\",\"max_tokens\":99999999999}"), 400, "max_tokens", "range");
        assert4xx(api.post("/v1/route", "{\"block_hashes\":[1,2]}"), 400, "input_tokens is required");
        assert4xx(api.post("/v1/route", "{\"block_hashes\":[1,2,3,4,5,6,7,8,9,10],\"input_tokens\":1}"), 400,
                "input_tokens (1) disagrees with the 10 block_hashes", "145..175 tokens");
        assert4xx(api.post("/v1/route", "{\"block_hashes\":[1,2],\"input_tokens\":48}"), 400, "disagrees");
        assert4xx(api.post("/v1/route", "{\"block_hashes\":[1,\"zz\"],\"input_tokens\":32}"), 400, "block_hashes", "[1]");
        assert4xx(api.post("/v1/route", "{\"text\":\"a\",\"token_ids\":[1]}"), 400, "exactly one form");
        assert4xx(api.post("/v1/route", "{}"), 400, "exactly one form");
        assert4xx(api.post("/v1/route", "[1,2]"), 400, "object");
        assert4xx(api.post("/v1/route", "{\"text\":\"x\",\"agent\":{\"workflow\":\"a\"}}"), 400, "agent.workflow");
        assert4xx(api.post("/v1/route", "{\"token_ids\":[1,-2]}"), 400, "token_ids[1]");
        assert4xx(api.post("/v1/route", "{\"text\":\"x\",\"text\":\"y\"}"), 400, "text", "twice");
        // Strings are as strict as numbers: no quiet 42 → "42".
        assert4xx(api.post("/v1/route", "{\"text\":42}"), 400, "field 'text'", "string");
        assert4xx(api.post("/v1/route", "{\"text\":\"x\",\"model\":true}"), 400, "field 'model'", "string");
        assert4xx(api.post("/v1/route", "{\"request_id\":1.5,\"text\":\"x\"}"), 400, "field 'request_id'", "string");
    }

    /**
     * A body that is not JSON is answered with the parser's positions, never its input source or switches (Jackson's
     * "[Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); …]"); schemas' JsonWire words it,
     * for the dashboard too.
     */
    @Test
    void malformedJsonIsSaidWithoutTheParsersInternals() throws Exception {
        String[][] cases = {
            {"{\"text\":\"x\"", "malformed JSON at line 1, column 12: Unexpected end-of-input: expected close marker for "
                    + "Object (start marker at line 1, column 1)"},
            {"{\"token_ids\":[1,2}", "malformed JSON at line 1, column 18: Unexpected close marker '}': expected ']' (for "
                    + "Array starting at line 1, column 14)"},
            {"{\"text\":\"x\",\"max_tokens\":NaN}", "malformed JSON at line 1, column 29: Non-standard token 'NaN' (not valid JSON)"},
        };
        for (String[] c : cases) {
            HttpResponse<String> r = api.post("/v1/route", c[0]);
            assertThat(r.statusCode()).as(c[0] + " -> " + r.body()).isEqualTo(400);
            assertThat(json(r).get("error").asText()).as(c[0]).isEqualTo(c[1]);
        }
        // a read limit (a number of 1,001 digits) at the top or inside a list: the same words, not Jackson's getter name
        String digits = "1".repeat(1_001);
        for (String body : new String[] {"{\"text\":\"x\",\"max_tokens\":" + digits + "}", "{\"token_ids\":[1," + digits + "]}"}) {
            HttpResponse<String> r = api.post("/v1/route", body);
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(json(r).get("error").asText()).as(body.substring(0, 20))
                    .isEqualTo("malformed JSON: Number value length (1001) exceeds the maximum allowed (1000)"); // the dashboard's too
        }
    }

    /** Jackson would read UTF-16 and UTF-32 bodies; the API takes UTF-8 only, as it says. */
    @Test
    void aBodyInAnotherUnicodeEncodingIsRefused() throws Exception {
        String telemetry = "{\"worker\":\"w2\",\"waiting\":7,\"running\":1,\"kv_used_tokens\":1234}";
        for (java.nio.charset.Charset cs : List.of(java.nio.charset.StandardCharsets.UTF_16BE,
                java.nio.charset.StandardCharsets.UTF_16LE, java.nio.charset.StandardCharsets.UTF_16,
                java.nio.charset.Charset.forName("UTF-32LE"))) {
            HttpResponse<String> r = api.client.send(HttpRequest.newBuilder(api.uri("/v1/telemetry"))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(telemetry.getBytes(cs))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(cs + ": " + r.body()).isEqualTo(400);
            assertThat(r.body()).as(cs.toString()).contains("not UTF-8 JSON");
        }
        assertThat(json(api.get("/v1/workers")).get("workers").get(2).path("load").path("waiting").asInt())
                .as("nothing applied").isNotEqualTo(7);
        // (The server is shared by this class's tests: the UTF-8 check posts a sample that leaves w2 idle.)
        String idle = "{\"worker\":\"w2\",\"waiting\":0,\"running\":0,\"kv_used_tokens\":0}";
        assertThat(api.post("/v1/telemetry", idle).statusCode()).as("a UTF-8 body").isEqualTo(202);
    }

    @Test
    void routeHashesMayBeHexStrings() throws Exception {
        HttpResponse<String> r = api.post("/v1/route",
                "{\"request_id\":\"hex\",\"block_hashes\":[\"0xffffffffffffffff\",18446744073709551615,-1],\"input_tokens\":48}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        finish("hex");
        for (String signed : List.of("0x+f", "0X-1", "0x 1", "0x\u0661", "0x\uff11")) {
            assert4xx(api.post("/v1/route", "{\"block_hashes\":[\"" + signed + "\"],\"input_tokens\":16}"), 400,
                    "at most 16 digits", signed);
            assert4xx(api.post("/v1/kv-events", "{\"worker\":\"w0\",\"events\":[{\"type\":\"stored\",\"tier\":\"cpu\","
                    + "\"block_hashes\":[\"" + signed + "\"]}]}"), 400, signed);
        }
    }

    @Test
    void kvEventsTelemetryAndTheirErrors() throws Exception {
        long[] h = chain(5, 3);
        String hex = "\"0x" + Long.toHexString(h[1]) + "\"";
        HttpResponse<String> ok = api.post("/v1/kv-events", "{\"worker\":\"w1\",\"events\":["
                + "{\"type\":\"stored\",\"tier\":\"cpu\",\"block_hashes\":[" + h[0] + "," + hex + "]},"
                + "{\"type\":\"stored\",\"tier\":\"cpu\",\"parent_hash\":" + hex + ",\"block_hashes\":[" + h[2] + "]},"
                + "{\"type\":\"moved\",\"from_tier\":\"cpu\",\"to_tier\":\"nvme\",\"block_hashes\":[" + h[2] + "]},"
                + "{\"type\":\"removed\",\"tier\":\"nvme\",\"block_hashes\":[" + h[2] + "]},"
                + "{\"type\":\"cleared\"}]}");
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(202);
        assertThat(json(ok).get("accepted").asInt()).isEqualTo(5);
        assertThat(json(ok).path("warning").asText()).as("w1 has no nvme tier configured (only the default cpu)")
                .startsWith("worker 'w1' reports blocks on its nvme tier, which the selector's configuration gives no "
                        + "bandwidth").contains("tiers.nvme");
        assertThat(api.get("/metrics").body()).containsPattern("(?m)^tierroute_kv_events_unpriced_tier_total [1-9]");
        HttpResponse<String> cpuOnly = api.post("/v1/kv-events", "{\"worker\":\"w1\",\"events\":["
                + "{\"type\":\"stored\",\"tier\":\"cpu\",\"block_hashes\":[" + h[0] + "]},{\"type\":\"cleared\"}]}");
        assertThat(json(cpuOnly).has("warning")).as(cpuOnly.body()).isFalse();

        assert4xx(api.post("/v1/kv-events", "{\"worker\":\"nope\",\"events\":[{\"type\":\"cleared\"}]}"), 404, "nope");
        assert4xx(api.post("/v1/kv-events", "{\"worker\":\"w1\",\"events\":[{\"type\":\"stored\",\"tier\":\"l9\",\"block_hashes\":[1]}]}"),
                400, "events[0].tier", "l9");
        assert4xx(api.post("/v1/kv-events", "{\"worker\":\"w1\",\"events\":[{\"type\":\"stored\",\"tier\":\"hbm\"}]}"),
                400, "events[0].block_hashes");
        assert4xx(api.post("/v1/kv-events", "{\"worker\":\"w1\",\"events\":[{\"type\":\"evicted\"}]}"), 400, "evicted");
        assert4xx(api.post("/v1/kv-events", "{\"worker\":\"w1\",\"events\":[]}"), 400, "events");
        assert4xx(api.post("/v1/kv-events", "{\"worker\":\"w1\",\"events\":[{\"type\":\"stored\",\"tier\":\"hbm\",\"block_hashes\":[1.5]}]}"),
                400, "block_hashes");

        assertThat(api.post("/v1/telemetry", "{\"worker\":\"w3\",\"waiting\":2,\"running\":5,\"kv_used_tokens\":1000}")
                .statusCode()).isEqualTo(202);
        assert4xx(api.post("/v1/telemetry", "{\"worker\":\"w3\",\"waiting\":-2,\"running\":5,\"kv_used_tokens\":1}"), 400, "waiting");
        assert4xx(api.post("/v1/telemetry", "{\"worker\":\"w9\",\"waiting\":2,\"running\":5,\"kv_used_tokens\":1}"), 404, "w9");
        assert4xx(api.post("/v1/telemetry", "{\"worker\":\"w3\",\"waiting\":2}"), 400, "running");

        assert4xx(api.post("/v1/requests/events", "{\"request_id\":\"a\",\"type\":\"done\"}"), 400, "type", "done");
        assert4xx(api.post("/v1/requests/events", "{\"request_id\":\"a\",\"type\":\"tokens\",\"tokens\":-3}"), 400, "tokens");
    }

    @Test
    void methodPathAndSizeErrors() throws Exception {
        assert4xx(api.get("/v1/route"), 405, "GET");
        assert4xx(api.post("/v1/workers", "{}"), 405, "POST");
        assert4xx(api.get("/v2/nothing"), 404, "/v2/nothing");
        String big = "{\"text\":\"" + "a".repeat(70_000) + "\"}";
        HttpResponse<String> r = api.post("/v1/route", big);
        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(json(r).get("error").asText()).contains("65536", "of 70011 bytes");
        assertThat(api.get("/healthz").body()).isEqualTo("ok");
        for (String path : new String[] {"/healthz", "/v1/params", "/v1/workers", "/metrics"}) {
            HttpResponse<String> head = api.client.send(java.net.http.HttpRequest.newBuilder(api.uri(path))
                    .method("HEAD", java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(head.statusCode()).as("HEAD " + path).isEqualTo(200);
            assertThat(head.body()).as("HEAD " + path).isEmpty();
        }
        HttpResponse<String> headRoute = api.client.send(java.net.http.HttpRequest.newBuilder(api.uri("/v1/route"))
                .method("HEAD", java.net.http.HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(headRoute.statusCode()).as("HEAD on a POST route").isEqualTo(405);
    }

    @Test
    void chunkedBodiesWithoutContentLength() throws Exception {
        HttpResponse<String> ok = api.send(HttpRequest.newBuilder(api.uri("/v1/route")).POST(HttpRequest.BodyPublishers
                .ofInputStream(() -> new java.io.ByteArrayInputStream("{\"request_id\":\"chunked\",\"text\":\"hi\"}"
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8)))));
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        finish("chunked");
        byte[] big = ("{\"text\":\"" + "b".repeat(100_000) + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        HttpResponse<String> tooBig = api.send(HttpRequest.newBuilder(api.uri("/v1/route"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(big))));
        assertThat(tooBig.statusCode()).isEqualTo(413);
        // A body near the limit arrives in several reads: the direct path finishes on the read listener.
        String text = "c".repeat(60_000);
        HttpResponse<String> large = api.post("/v1/route", "{\"request_id\":\"large\",\"text\":\"" + text + "\"}");
        assertThat(large.statusCode()).as(large.body()).isEqualTo(200);
        finish("large");
    }

    /**
     * A too-large chunked body is read on and discarded before the 413 and the close: closing while the client is still
     * sending made Java's HttpClient report a broken pipe ("header parser received no bytes") instead of the answer.
     * 300 KB is well past a socket buffer, so every round would race without the drain.
     */
    @Test
    void aTooLargeChunkedBodyIsAnsweredWith413NotABrokenPipe() throws Exception {
        byte[] big = ("{\"text\":\"" + "d".repeat(300_000) + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> r = api.send(HttpRequest.newBuilder(api.uri("/v1/route"))
                    .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(big))));
            assertThat(r.statusCode()).as("round %d", i).isEqualTo(413);
            assertThat(json(r).get("error").asText()).contains("server.maxBodyBytes");
        }
    }

    @Test
    void aStepWithoutItsWorkflowIs400() throws Exception {
        assert4xx(api.post("/v1/route", "{\"text\":\"hi\",\"agent\":{\"step_id\":\"3\"}}"), 400,
                "agent.step_id", "agent.workflow_id");
        assert4xx(api.post("/v1/route", "{\"text\":\"hi\"}", "x-agent-step-id", "3"), 400, "x-agent-workflow-id");
        // The workflow may come from the header while the step comes in the body.
        HttpResponse<String> r = api.post("/v1/route?dry_run=true", "{\"text\":\"hi\",\"agent\":{\"step_id\":\"3\"}}",
                "x-agent-workflow-id", "wf-9");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    @Test
    void agentPartsGivenTwiceMustAgree() throws Exception {
        assert4xx(api.post("/v1/route?dry_run=true", "{\"text\":\"hi\",\"agent\":{\"workflow_id\":\"wfB\"}}",
                "x-agent-workflow-id", "wfH"), 400, "'agent.workflow_id' ('wfB')", "x-agent-workflow-id ('wfH')");
        assert4xx(api.post("/v1/route?dry_run=true", "{\"text\":\"hi\",\"agent\":{\"workflow_id\":\"w\",\"step_id\":\"1\"}}",
                "x-agent-step-id", "2"), 400, "'agent.step_id' ('1')", "x-agent-step-id ('2')");
        assert4xx(api.post("/v1/route?dry_run=true", "{\"text\":\"hi\"}",
                "x-agent-workflow-id", "a", "x-agent-workflow-id", "b"), 400, "x-agent-workflow-id given 2 times", "'a', 'b'");
        assert4xx(api.post("/v1/route?dry_run=true", "{\"text\":\"hi\",\"agent\":{\"expected_next_tools\":[\"search\"]}}",
                "x-agent-expected-tools", "fetch"), 400, "name different tools");

        // The same value twice, in the body and a header or in two headers, is one value.
        for (String[] headers : new String[][] {{"x-agent-workflow-id", "wf"}, {"x-agent-workflow-id", "wf",
                "x-agent-workflow-id", "wf", "x-agent-expected-tools", "search", "x-agent-expected-tools", "fetch"},
                {"x-agent-expected-tools", " , "}}) { // a gateway forwarding an empty tools header names none
            HttpResponse<String> r = api.post("/v1/route?dry_run=true",
                    "{\"text\":\"hi\",\"agent\":{\"workflow_id\":\"wf\",\"expected_next_tools\":[\"search\",\"fetch\"]}}", headers);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
    }

    @Test
    void nullBodiesAndOversizedAgentHeadersAre400() throws Exception {
        for (String path : new String[] {"/v1/route", "/v1/kv-events", "/v1/telemetry"}) {
            assert4xx(api.post(path, "null"), 400, "JSON object");
        }
        String longId = "w".repeat(10_000);
        assert4xx(api.post("/v1/route", "{\"text\":\"hi\"}", "x-agent-workflow-id", longId), 400, "x-agent-workflow-id");
        assert4xx(api.post("/v1/route", "{\"text\":\"hi\"}", "x-agent-expected-tools", "a," + longId), 400,
                "x-agent-expected-tools");
        assert4xx(api.post("/v1/route", "{\"text\":\"hi\",\"agent\":{\"expected_next_tools\":[\"" + longId + "\"]}}"),
                400, "expected_next_tools[0]");

        String tools = String.join(",", java.util.Collections.nCopies(300, "t"));
        assert4xx(api.post("/v1/route", "{\"text\":\"hi\"}", "x-agent-expected-tools", tools), 400,
                "at most 256 expected next tools, got 300 in x-agent-expected-tools");
    }

    @Test
    void clientErrorsSpeakOfTheRequestNotOfTheParser() throws Exception {
        assert4xx(api.post("/v1/route", "{\"token_ids\":\"abc\"}"), 400,
                "field 'token_ids': expected a list of integers, got \"abc\"");
        HttpResponse<String> nan = api.post("/v1/route", "{\"text\":\"hi\",\"max_tokens\":NaN}");
        assert4xx(nan, 400, "Non-standard token 'NaN' (not valid JSON)");
        assertThat(nan.body()).doesNotContain("JsonReadFeature").doesNotContain("enable");
        assert4xx(api.post("/v1/requests/events", "null"), 400, "JSON object");
        assert4xx(api.post("/v1/requests/events", "[null]"), 400, "event [0] is null; expected a JSON object");
        assert4xx(api.post("/v1/route", "{\"text\":\"hi\"}", "Content-Encoding", "gzip"), 415,
                "Content-Encoding 'gzip' is not supported");
    }

    @Test
    void anEmptyPromptIs400() throws Exception {
        assert4xx(api.post("/v1/route", "{\"token_ids\":[]}"), 400, "the prompt is empty (token_ids [])");
        assert4xx(api.post("/v1/route", "{\"text\":\"\"}"), 400, "the prompt is empty (text \"\")");
        assert4xx(api.post("/v1/route", "{\"block_hashes\":[],\"input_tokens\":0}"), 400, "input_tokens 0");
        assert4xx(api.post("/v1/route", "{\"text\":\"hi\",\"input_tokens\":0}"), 400, "(input_tokens 0)");
    }

    @Test
    void telemetryMayTellHowOldItsSampleIs() throws Exception {
        HttpResponse<String> ok = api.post("/v1/telemetry",
                "{\"worker\":\"w3\",\"waiting\":2,\"running\":1,\"kv_used_tokens\":100,\"sample_age_ms\":250}");
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(202);
        assert4xx(api.post("/v1/telemetry",
                "{\"worker\":\"w3\",\"waiting\":2,\"running\":1,\"kv_used_tokens\":100,\"sample_age_ms\":-5}"),
                400, "sample_age_ms");
    }

    /**
     * A numbered sample not above the worker's last applied one (a sender's retry, or a sample a later one overtook) is
     * answered 200 and not applied; 0 starts a new series (a restarted sender); unnumbered samples are not tracked.
     */
    @Test
    void aTelemetrySampleNotAboveTheLastAppliedSequenceIsNotApplied() throws Exception {
        String w3 = "{\"worker\":\"w3\",\"kv_used_tokens\":100,";
        assertThat(api.post("/v1/telemetry", w3 + "\"waiting\":3,\"running\":4,\"sequence\":41}").statusCode())
                .isEqualTo(202);
        assertThat(engineInFlight("w3")).isEqualTo(7);
        HttpResponse<String> repeat = api.post("/v1/telemetry", w3 + "\"waiting\":9,\"running\":9,\"sequence\":41}");
        assertThat(repeat.statusCode()).as(repeat.body()).isEqualTo(200);
        assertThat(json(repeat).get("accepted").asBoolean()).isFalse();
        assertThat(json(repeat).get("reason").asText()).startsWith("sequence 41 is not above 41, the last applied for "
                + "worker 'w3'");
        assertThat(api.post("/v1/telemetry", w3 + "\"waiting\":9,\"running\":9,\"sequence\":40}").statusCode())
                .as("overtaken").isEqualTo(200);
        assertThat(engineInFlight("w3")).as("neither applied").isEqualTo(7);
        assertThat(api.get("/metrics").body()).containsPattern("(?m)^tierroute_telemetry_samples_skipped_total [2-9]");

        assertThat(api.post("/v1/telemetry", w3 + "\"waiting\":1,\"running\":1,\"sequence\":45}").statusCode())
                .isEqualTo(202);
        assertThat(engineInFlight("w3")).isEqualTo(2);
        assert4xx(api.post("/v1/telemetry", w3 + "\"waiting\":1,\"running\":1,\"sequence\":-1}"), 400, "sequence");
        assertThat(api.post("/v1/telemetry", w3 + "\"waiting\":0,\"running\":3,\"sequence\":0}").statusCode())
                .as("a restarted sender").isEqualTo(202);
        assertThat(engineInFlight("w3")).isEqualTo(3);
        assertThat(api.post("/v1/telemetry", w3 + "\"waiting\":5,\"running\":5,\"sequence\":0}").statusCode())
                .as("its retry").isEqualTo(200);
        assertThat(engineInFlight("w3")).isEqualTo(3);
        assertThat(api.post("/v1/telemetry", w3 + "\"waiting\":0,\"running\":0}").statusCode())
                .as("unnumbered").isEqualTo(202);
        assertThat(engineInFlight("w3")).isZero();
        assertThat(api.post("/v1/telemetry", w3 + "\"waiting\":0,\"running\":1,\"sequence\":1}").statusCode())
                .as("the series from 0 goes on").isEqualTo(202);
    }

    private static int engineInFlight(String worker) throws Exception {
        for (JsonNode w : json(api.get("/v1/workers")).get("workers")) {
            if (w.get("name").asText().equals(worker)) {
                return w.get("load").get("engine_in_flight").asInt();
            }
        }
        throw new AssertionError("no worker " + worker + " in /v1/workers");
    }

    /**
     * The engine's work since its previous sample, optional: a sample that reports some is a sign of life for the silent-
     * worker rule (routing.holdAtCheapestSilentAfter), one that reports none or leaves the counters out is not.
     */
    @Test
    void telemetryMayReportTheEnginesWorkSinceItsPreviousSample() throws Exception {
        int w = api.server.selector().registry().find("w3").orElseThrow();
        long before = System.nanoTime();
        String sample = "{\"worker\":\"w3\",\"waiting\":1,\"running\":2,\"kv_used_tokens\":100";
        assertThat(api.post("/v1/telemetry", sample + ",\"decode_steps\":0,\"prefill_tokens\":0}").statusCode())
                .isEqualTo(202);
        assertThat(api.post("/v1/telemetry", sample + "}").statusCode()).isEqualTo(202);
        assertThat(api.server.selector().inflight().lastWorkNanos(w)).as("no work reported").isLessThan(before);

        HttpResponse<String> r = api.post("/v1/telemetry", sample + ",\"decode_steps\":12}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        long decoded = api.server.selector().inflight().lastWorkNanos(w);
        assertThat(decoded).as("12 decode steps").isGreaterThanOrEqualTo(before);
        assertThat(api.post("/v1/telemetry", sample + ",\"prefill_tokens\":512,\"decode_steps\":0}").statusCode())
                .isEqualTo(202);
        assertThat(api.server.selector().inflight().lastWorkNanos(w)).as("512 prefill tokens").isGreaterThan(decoded);
    }

    /**
     * The engine's count of admitted prompt tokens not yet computed caps the queued prefill the selector charges a
     * worker: its own sum counts a request whole until its first token, the engine knows what it has prefilled since.
     */
    @Test
    void telemetryMayReportTheEnginesPendingPrefill() throws Exception {
        HttpResponse<String> routed = api.post("/v1/route", "{\"request_id\":\"r-pending\",\"block_hashes\":"
                + list(LongStream.range(7000, 7040).toArray()) + ",\"input_tokens\":640,\"max_tokens\":10}");
        assertThat(routed.statusCode()).as(routed.body()).isEqualTo(200);
        String worker = json(routed).get("worker").asText();
        int w = api.server.selector().registry().find(worker).orElseThrow();
        String probe = "{\"block_hashes\":" + list(LongStream.range(8000, 8004).toArray())
                + ",\"input_tokens\":64,\"max_tokens\":10,\"explain\":true}";
        long own = queuedPrefill(api.post("/v1/route?dry_run=true", probe), w);
        assertThat(own).as("our own sum: r-pending whole (and what earlier tests left there)").isGreaterThanOrEqualTo(640);

        String sample = "{\"worker\":\"" + worker + "\",\"waiting\":0,\"running\":1,\"kv_used_tokens\":640";
        HttpResponse<String> t = api.post("/v1/telemetry", sample + ",\"pending_prefill_tokens\":100}");
        assertThat(t.statusCode()).as(t.body()).isEqualTo(202);
        assertThat(queuedPrefill(api.post("/v1/route?dry_run=true", probe), w)).as("the engine's count").isEqualTo(100);

        assertThat(api.post("/v1/telemetry", sample + "}").statusCode()).isEqualTo(202);
        assertThat(queuedPrefill(api.post("/v1/route?dry_run=true", probe), w)).as("not reported: our own sum")
                .isEqualTo(own);
        finish("r-pending");
    }

    private static long queuedPrefill(HttpResponse<String> explained, int worker) throws Exception {
        assertThat(explained.statusCode()).as(explained.body()).isEqualTo(200);
        return json(explained).get("candidates").get(worker).get("cost").get("queued_prefill_tokens").asLong();
    }

    /**
     * A gateway that posts the engine's running totals (a Prometheus counter) instead of counts since the previous
     * sample: once they pass what an engine does between two samples, every answer says they are read as totals.
     */
    @Test
    void runningTotalsAreSaidInEveryAnswerOnceGivenAway() throws Exception {
        String sample = "{\"worker\":\"w2\",\"waiting\":1,\"running\":2,\"kv_used_tokens\":100,\"decode_steps\":";
        HttpResponse<String> first = api.post("/v1/telemetry", sample + "1500}");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
        assertThat(first.body()).as("1,500 steps: an engine's count").doesNotContain("warning");
        int w = api.server.selector().registry().find("w2").orElseThrow();
        assertThat(api.server.selector().inflight().readsRunningTotals(w)).isFalse();

        HttpResponse<String> r = api.post("/v1/telemetry", sample + "51500}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(json(r).get("warning").asText()).contains("worker 'w2'", "running totals");
        assertThat(api.server.selector().inflight().readsRunningTotals(w)).isTrue();
        assertThat(json(api.post("/v1/telemetry", sample + "51500}")).get("warning").asText())
                .as("every answer").contains("running totals");
    }

    /**
     * More KV in use than the worker's configured capacity (400,000 tokens, the built-in default): the configuration
     * understates the engine. The sample counts, its KV taken as full, and the answer says so; kv_usage 2.5 would
     * steer every request away from the worker, and a refusal would lose the sample's queue and batch with it.
     */
    @Test
    void kvAboveTheConfiguredCapacityIsTakenAsFullAndSaid() throws Exception {
        HttpResponse<String> r = api.post("/v1/telemetry",
                "{\"worker\":\"w3\",\"waiting\":7,\"running\":4,\"kv_used_tokens\":1000000}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(json(r).get("warning").asText()).contains("kv_used_tokens 1000000", "kvCapacityTokens 400000",
                "worker 'w3'", "taken as 400000");
        JsonNode load = load("w3");
        assertThat(load.get("kv_used_tokens").asLong()).isEqualTo(400_000);
        assertThat(load.get("kv_usage").asDouble()).isEqualTo(1.0);
        assertThat(load.get("waiting").asInt()).as("the rest of the sample counts").isGreaterThanOrEqualTo(7);
        assertThat(api.post("/v1/telemetry", "{\"worker\":\"w3\",\"waiting\":0,\"running\":0,\"kv_used_tokens\":10}")
                .body()).doesNotContain("warning");
    }

    @Test
    void absurdTelemetryIsRefusedNamingTheFieldAndChangesNoLoad() throws Exception {
        String good = "{\"worker\":\"w2\",\"waiting\":3,\"running\":4,\"kv_used_tokens\":5000}";
        assertThat(api.post("/v1/telemetry", good).statusCode()).isEqualTo(202);
        JsonNode before = load("w2");
        String[][] absurd = {
            // finite and well-formed, but no engine has them: above the documented limits (README "Limits")
            {"{\"worker\":\"w2\",\"waiting\":2147483647,\"running\":4,\"kv_used_tokens\":5000}", "waiting"},
            {"{\"worker\":\"w2\",\"waiting\":3,\"running\":10000001,\"kv_used_tokens\":5000}", "running"},
            {"{\"worker\":\"w2\",\"waiting\":3,\"running\":4,\"kv_used_tokens\":2199023255553}", "kv_used_tokens"},
            {"{\"worker\":\"w2\",\"waiting\":3,\"running\":4,\"kv_used_tokens\":-1}", "kv_used_tokens"},
            {"{\"worker\":\"w2\",\"waiting\":3,\"running\":4,\"kv_used_tokens\":1,\"sample_age_ms\":1000000000000}",
                "sample_age_ms"},
            {"{\"worker\":\"w2\",\"waiting\":3,\"running\":4,\"kv_used_tokens\":1,\"decode_steps\":-1}",
                "decode_steps"},
            {"{\"worker\":\"w2\",\"waiting\":3,\"running\":4,\"kv_used_tokens\":1,\"prefill_tokens\":2199023255553}",
                "prefill_tokens"},
            {"{\"worker\":\"w2\",\"waiting\":3,\"running\":4,\"kv_used_tokens\":1,\"decode_steps\":\"many\"}",
                "decode_steps"},
            {"{\"worker\":\"w2\",\"waiting\":3,\"running\":4,\"kv_used_tokens\":1,\"pending_prefill_tokens\":-1}",
                "pending_prefill_tokens"},
            // numbers that do not fit the field's type at all
            {"{\"worker\":\"w2\",\"waiting\":99999999999,\"running\":4,\"kv_used_tokens\":5000}", "waiting"},
            {"{\"worker\":\"w2\",\"waiting\":3,\"running\":4,\"kv_used_tokens\":1e400}", "kv_used_tokens"},
            {"{\"worker\":\"w2\",\"waiting\":3.5,\"running\":4,\"kv_used_tokens\":5000}", "waiting"},
            {"{\"worker\":\"w2\",\"waiting\":\"NaN\",\"running\":4,\"kv_used_tokens\":5000}", "waiting"},
        };
        for (String[] c : absurd) {
            HttpResponse<String> r = api.post("/v1/telemetry", c[0]);
            assertThat(r.statusCode()).as(c[0] + " -> " + r.body()).isEqualTo(400);
            assertThat(json(r).get("error").asText()).as(c[0]).contains(c[1]);
        }
        assertThat(load("w2")).as("no refused sample reached the worker's load").isEqualTo(before);
    }

    private static JsonNode load(String worker) throws Exception {
        for (JsonNode w : json(api.get("/v1/workers")).get("workers")) {
            if (w.get("name").asText().equals(worker)) {
                return w.get("load");
            }
        }
        throw new AssertionError("no worker " + worker);
    }

    @Test
    void aDryRunAnswersWithoutAdmitting() throws Exception {
        String body = "{\"request_id\":\"dry\",\"block_hashes\":[7,8,9],\"input_tokens\":48,\"max_tokens\":10}";
        String before = inFlight();
        for (int i = 0; i < 2; i++) { // twice with the same id: nothing was admitted
            HttpResponse<String> r = api.post("/v1/route?dry_run=true", body);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(json(r).get("request_id").asText()).isEqualTo("dry");
        }
        assertThat(inFlight()).isEqualTo(before);
    }

    @Test
    void aDryRunIsCountedAsADryRunNotAsARoute() throws Exception {
        String body = "{\"request_id\":\"dry-count\",\"block_hashes\":[7,8,9],\"input_tokens\":48,\"max_tokens\":10}";
        double routed = metric("tierroute_routes_total{outcome=\"routed\"}");
        double dry = metric("tierroute_routes_total{outcome=\"dry_run\"}");
        double timed = metric("tierroute_route_latency_seconds_count");
        for (int i = 0; i < 3; i++) {
            assertThat(api.post("/v1/route?dry_run=true", body).statusCode()).isEqualTo(200);
        }
        assertThat(metric("tierroute_routes_total{outcome=\"routed\"}")).as("routed").isEqualTo(routed);
        assertThat(metric("tierroute_routes_total{outcome=\"dry_run\"}")).as("dry runs").isEqualTo(dry + 3);
        assertThat(metric("tierroute_route_latency_seconds_count")).as("route latency samples").isEqualTo(timed);
    }

    /**
     * Only a query that says yes or no is read: a bare {@code ?dry_run} is a dry run, a typo or another value is a 400,
     * never a real route that the client took for a preview.
     */
    @Test
    void theDryRunFlagIsReadStrictly() throws Exception {
        String body = "{\"request_id\":\"strict\",\"block_hashes\":[7,8,9],\"input_tokens\":48,\"max_tokens\":10}";
        String before = inFlight();
        assertThat(api.post("/v1/route?dry_run", body).statusCode()).as("the bare flag").isEqualTo(200);
        assertThat(api.post("/v1/route?dry_run=TRUE", body).statusCode()).isEqualTo(200);
        assert4xx(api.post("/v1/route?dry_run=yes", body), 400, "dry_run must be true or false, got 'yes'");
        assert4xx(api.post("/v1/route?dryrun=true", body), 400, "unknown query parameter 'dryrun'");
        assert4xx(api.post("/v1/route?dry_run=true&dry_run=false", body), 400, "2 times");
        assertThat(inFlight()).as("nothing admitted").isEqualTo(before);
        HttpResponse<String> real = api.post("/v1/route?dry_run=false", body);
        assertThat(real.statusCode()).as(real.body()).isEqualTo(200);
        finish("strict");

        // The other POST endpoints take no query: a "dry run" of a drain must not drain.
        String auth = "Bearer " + ApiTestServer.TOKEN;
        assert4xx(api.post("/v1/workers/w1/drain?dry_run=true", "", "Authorization", auth), 400,
                "unknown query parameter 'dry_run'", "POST /v1/route only", "nothing was done");
        // Undertow takes ";dry_run=true" out of the path as a path parameter: refused like a query, not drained.
        assert4xx(api.post("/v1/workers/w1/drain;dry_run=true", "", "Authorization", auth), 400,
                "path parameter ';dry_run'", "nothing was done");
        // A body on a drain is not a preview either: the drain acts on its path alone, so any body is refused.
        assert4xx(api.post("/v1/workers/w1/drain", "{\"dry_run\":true}", "Authorization", auth), 400,
                "takes no body", "nothing was done");
        assert4xx(api.post("/v1/params/reload", "garbage", "Authorization", auth), 400, "takes no body");
        assert4xx(api.post("/v1/workers/w1/undrain", "{\"worker\":\"w1\"}", "Authorization", auth), 400, "takes no body");
        JsonNode workers = json(api.get("/v1/workers"));
        for (JsonNode w : workers.get("workers")) {
            assertThat(w.get("draining").asBoolean()).as(w.toString()).isFalse();
        }
        String routed = inFlight();
        assert4xx(api.post("/v1/route;dry_run=true", body), 400, "path parameter ';dry_run'");
        assertThat(inFlight()).as("a path parameter admits nothing").isEqualTo(routed);
        assert4xx(api.post("/v1/telemetry?x=1", "{\"worker\":\"w0\",\"waiting\":0,\"running\":0,\"kv_used_tokens\":0}"),
                400, "unknown query parameter 'x'");
        StringBuilder many = new StringBuilder("/v1/route?dry_run=true");
        for (int i = 0; i < 40; i++) {
            many.append("&p").append(i).append("=1");
        }
        assert4xx(api.post(many.toString(), body), 400, "unknown query parameter 'p"); // a JSON answer, not the listener's
        assertThat(api.get("/v1/workers?_=123").statusCode()).as("a GET ignores a cache-buster").isEqualTo(200);
    }

    /**
     * With every worker drained, a route is the documented back-pressure answer, 503 with Retry-After, counted as
     * no_capacity: it was a 500 carrying a CompletionException, because the selector's future had failed at once.
     */
    @Test
    void everyWorkerDrainedIsA503CountedAsNoCapacity() throws Exception {
        String auth = "Bearer " + ApiTestServer.TOKEN;
        double noCapacity = metric("tierroute_routes_total{outcome=\"no_capacity\"}");
        try {
            for (int w = 0; w < 4; w++) {
                assertThat(api.post("/v1/workers/w" + w + "/drain", "", "Authorization", auth).statusCode()).isEqualTo(200);
            }
            HttpResponse<String> r = api.post("/v1/route", "{\"request_id\":\"nowhere\",\"text\":\"hi\"}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
            assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(json(r).get("error").asText()).contains("no worker can take requests")
                    .doesNotContain("Exception");
            assertThat(metric("tierroute_routes_total{outcome=\"no_capacity\"}")).isEqualTo(noCapacity + 1);
        } finally {
            for (int w = 0; w < 4; w++) {
                api.post("/v1/workers/w" + w + "/undrain", "", "Authorization", auth);
            }
        }
    }

    @Test
    void aNumberWhereAnObjectBelongsIsNamedAndAByteOrderMarkIsSkippedEverywhere() throws Exception {
        HttpResponse<String> agent = api.post("/v1/route", "{\"token_ids\":[1],\"agent\":1}");
        assertThat(agent.statusCode()).isEqualTo(400);
        assertThat(json(agent).get("error").asText()).contains("agent").doesNotEndWith("got ");
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
        byte[] list = "[{\"request_id\":\"bom-nobody\",\"type\":\"finished\"}]".getBytes(StandardCharsets.UTF_8);
        byte[] body = new byte[bom.length + list.length];
        System.arraycopy(bom, 0, body, 0, bom.length);
        System.arraycopy(list, 0, body, bom.length, list.length);
        HttpResponse<String> events = api.send(HttpRequest.newBuilder(api.uri("/v1/requests/events"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
        assertThat(events.statusCode()).as("read as the list it is: " + events.body()).isEqualTo(404);
        assertThat(events.body()).contains("bom-nobody");
    }

    /** Every route answered is counted once, also those whose body is refused before it is parsed. */
    @Test
    void routesRefusedForTheirBodyAreCountedOnce() throws Exception {
        String invalid = "tierroute_routes_total{outcome=\"invalid\"}";
        String dry = "tierroute_routes_total{outcome=\"dry_run\"}";
        String routed = "tierroute_routes_total{outcome=\"routed\"}";
        double invalid0 = metric(invalid);
        double dry0 = metric(dry);
        assert4xx(api.post("/v1/route", ""), 400, "empty");
        HttpResponse<String> notUtf8 = api.send(HttpRequest.newBuilder(api.uri("/v1/route"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {(byte) 0xff, (byte) 0xfe, '{'})));
        assertThat(notUtf8.statusCode()).isEqualTo(400);
        assert4xx(api.post("/v1/route", "{\"text\": "), 400);          // parsed: counted by route(), once
        assert4xx(api.post("/v1/route", "{\"text\":\"x\",\"max_tokens\":-1}"), 400);
        assert4xx(api.post("/v1/route?dry_run=true", ""), 400, "empty");
        assertThat(metric(invalid)).isEqualTo(invalid0 + 4);
        assertThat(metric(dry)).isEqualTo(dry0 + 1);
        double routed0 = metric(routed);
        HttpResponse<String> ok = api.post("/v1/route", "{\"request_id\":\"counted-once\",\"text\":\"hi\"}");
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        finish("counted-once");
        assertThat(metric(routed)).isEqualTo(routed0 + 1);
        assertThat(metric(invalid)).isEqualTo(invalid0 + 4);
    }

    /** The value of one sample line of /metrics, e.g. {@code tierroute_routes_total{outcome="routed"}}. */
    private static double metric(String sample) throws Exception {
        String body = api.get("/metrics").body();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^" + java.util.regex.Pattern.quote(sample) + " (\\S+)$")
                .matcher(body);
        assertThat(m.find()).as(sample + " on /metrics").isTrue();
        return Double.parseDouble(m.group(1));
    }

    private static String inFlight() throws Exception {
        StringBuilder out = new StringBuilder();
        for (JsonNode w : json(api.get("/v1/workers")).get("workers")) {
            out.append(w.get("name").asText()).append('=').append(w.get("load").get("in_flight").asInt()).append(' ');
        }
        return out.toString();
    }

    @Test
    void workersAndParams() throws Exception {
        HttpResponse<String> w = api.get("/v1/workers");
        assertThat(w.statusCode()).isEqualTo(200);
        JsonNode workers = json(w).get("workers");
        assertThat(workers).hasSize(4);
        assertThat(workers.get(0).get("load").has("kv_capacity_tokens")).isTrue();
        JsonNode p = json(api.get("/v1/params"));
        assertThat(p.get("version").asLong()).isEqualTo(1);
        assertThat(p.get("cost").get("alphaD").asDouble()).isEqualTo(40.0);
        assertThat(p.get("cost").has("decodeStepUs")).isTrue();
        assertThat(p.get("cost").has("decodeStepKvUs")).isTrue();
        assertThat(p.get("cost").get("kvWaitScale").asDouble()).isEqualTo(1.0);
        assertThat(p.get("output_model").asBoolean()).isFalse();
        assertThat(p.get("output_model_version").isNull()).as("no model: no carrying version").isTrue();
        assertThat(p.get("rho_aged_out_links").asInt(-1)).isZero();
    }

    @Test
    void adminNeedsTheToken() throws Exception {
        assert4xx(api.post("/v1/workers/w0/drain", ""), 401, "Bearer");
        assert4xx(api.post("/v1/workers/w0/drain", "", "Authorization", "Bearer wrong"), 401, "wrong");
        HttpResponse<String> ok = api.post("/v1/workers/w0/drain", "", "Authorization", "Bearer " + ApiTestServer.TOKEN);
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        assertThat(json(api.get("/v1/workers")).get("workers").get(0).get("draining").asBoolean()).isTrue();
        assertThat(api.post("/v1/workers/w0/undrain", "", "Authorization", "Bearer " + ApiTestServer.TOKEN).statusCode())
                .isEqualTo(200);
        // An empty body as JSON client libraries send it ({} with a length, or an empty chunked stream) is no body.
        HttpResponse<String> object = api.post("/v1/workers/w0/drain", " { } ", "Authorization", "Bearer " + ApiTestServer.TOKEN);
        assertThat(object.statusCode()).as(object.body()).isEqualTo(200);
        assertThat(json(api.get("/v1/workers")).get("workers").get(0).get("draining").asBoolean()).isTrue();
        HttpResponse<String> chunked = api.client.send(HttpRequest.newBuilder(api.uri("/v1/workers/w0/undrain"))
                .header("Authorization", "Bearer " + ApiTestServer.TOKEN)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(new byte[0])))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(chunked.statusCode()).as(chunked.body()).isEqualTo(200);
        assertThat(json(api.get("/v1/workers")).get("workers").get(0).get("draining").asBoolean()).isFalse();
        assert4xx(api.post("/v1/workers/w7/drain", "{}", "Authorization", "Bearer " + ApiTestServer.TOKEN), 404, "w7");
        assert4xx(api.post("/v1/workers/w7/drain", "", "Authorization", "Bearer " + ApiTestServer.TOKEN), 404, "w7");
        HttpResponse<String> h = api.post("/v1/workers/w1/health", "{\"healthy\":false}",
                "Authorization", "Bearer " + ApiTestServer.TOKEN);
        assertThat(h.statusCode()).as(h.body()).isEqualTo(200);
        assertThat(json(api.get("/v1/workers")).get("workers").get(1).get("healthy").asBoolean()).isFalse();
        assert4xx(api.post("/v1/workers/w1/health", "{\"healthy\":\"yes\"}", "Authorization", "Bearer " + ApiTestServer.TOKEN),
                400, "healthy");
        api.post("/v1/workers/w1/health", "{\"healthy\":true}", "Authorization", "Bearer " + ApiTestServer.TOKEN);
    }

    @Test
    void reloadKeepsTheLastGoodSet() throws Exception {
        String auth = "Bearer " + ApiTestServer.TOKEN;
        assert4xx(api.post("/v1/params/reload", ""), 401);
        Files.writeString(dir.resolve("params.yaml"), "version: 2\nparameters: {alphaD: 30}\n");
        HttpResponse<String> good = api.post("/v1/params/reload", "", "Authorization", auth);
        assertThat(good.statusCode()).as(good.body()).isEqualTo(200);
        assertThat(json(good).get("version").asLong()).isEqualTo(2);

        Files.writeString(dir.resolve("params.yaml"), "version: 3\nparameters: {alphaD: -1}\n");
        assert4xx(api.post("/v1/params/reload", "", "Authorization", auth), 400, "parameters.alphaD", "keeping version 2");
        assertThat(json(api.get("/v1/params")).get("version").asLong()).isEqualTo(2);
        Files.writeString(dir.resolve("params.yaml"), "scope: default\nversion: 1\nparameters: {alphaD: 40}\n");
        assertThat(api.post("/v1/params/reload", "", "Authorization", auth).statusCode()).isEqualTo(200);
        HttpResponse<String> withObject = api.post("/v1/params/reload", "{}", "Authorization", auth);
        assertThat(withObject.statusCode()).as("{} is no body: " + withObject.body()).isEqualTo(200);

        // A path no file system takes (a NUL) is the file's error, answered, with either empty body.
        Files.writeString(dir.resolve("params.yaml"), "version: 4\noutputModel: \"a\\0b\"\n");
        assert4xx(api.post("/v1/params/reload", "", "Authorization", auth), 400, "outputModel", "not a usable file path",
                "keeping version 1");
        assert4xx(api.post("/v1/params/reload", "{}", "Authorization", auth), 400, "outputModel", "keeping version 1");
    }

    @Test
    void metricsShowRoutes() throws Exception {
        HttpResponse<String> r = api.post("/v1/route", "{\"request_id\":\"m1\",\"text\":\"hello world\"}");
        assertThat(r.statusCode()).isEqualTo(200);
        finish("m1");
        HttpResponse<String> m = api.get("/metrics");
        assertThat(m.statusCode()).isEqualTo(200);
        assertThat(m.body()).contains("tierroute_routes_total{outcome=\"routed\"}")
                .contains("tierroute_route_latency_seconds_bucket")
                .contains("tierroute_worker_inflight_requests{worker=\"w0\"}")
                .contains("tierroute_params_active_version{scope=\"default\"}")
                .contains("tierroute_params_rho_aged_out_links 0.0")
                .contains("tierroute_http_responses_total{class=\"2xx\"}");
    }

    @Test
    void aNonAsciiTokenSentAsUtf8IsAccepted() throws Exception {
        String token = "päss-wörd-✓";
        try (ApiTestServer s = new ApiTestServer("workers: [{name: a}]\n", dir, token)) {
            byte[] utf8 = token.getBytes(StandardCharsets.UTF_8);
            assertThat(rawPost(s, "/v1/workers/a/drain", utf8)).isEqualTo(200);
            assertThat(rawPost(s, "/v1/workers/a/undrain", "wrong".getBytes(StandardCharsets.US_ASCII))).isEqualTo(401);
            assertThat(rawPost(s, "/v1/workers/a/undrain", "päss".getBytes(StandardCharsets.ISO_8859_1)))
                    .as("bytes that are no UTF-8").isEqualTo(400);
        }
    }

    /** The status of a bodiless POST whose bearer token is sent as exactly {@code token}'s bytes. */
    private static int rawPost(ApiTestServer s, String path, byte[] token) throws Exception {
        java.net.URI u = s.uri(path);
        try (java.net.Socket socket = new java.net.Socket(u.getHost(), u.getPort())) {
            socket.setSoTimeout(10_000);
            java.io.ByteArrayOutputStream req = new java.io.ByteArrayOutputStream();
            req.writeBytes(("POST " + u.getPath() + " HTTP/1.1\r\nHost: " + u.getHost() + "\r\nAuthorization: Bearer ")
                    .getBytes(StandardCharsets.US_ASCII));
            req.writeBytes(token);
            req.writeBytes("\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().write(req.toByteArray());
            String status = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    StandardCharsets.ISO_8859_1)).readLine();
            return Integer.parseInt(status.split(" ")[1]);
        }
    }

    @Test
    void adminRefusedWithoutConfiguredToken() throws Exception {
        try (ApiTestServer noAdmin = new ApiTestServer("workers: [{name: a}]\n", dir, null)) {
            HttpResponse<String> r = noAdmin.send(HttpRequest.newBuilder(noAdmin.uri("/v1/workers/a/drain"))
                    .POST(HttpRequest.BodyPublishers.noBody()).header("Authorization", "Bearer anything"));
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).contains("no admin token");
            assertThat(noAdmin.post("/v1/params/reload", "", "Authorization", "Bearer x").statusCode()).isEqualTo(403);
        }
    }
}
