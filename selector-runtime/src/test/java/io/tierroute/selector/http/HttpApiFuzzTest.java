package io.tierroute.selector.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes every state-changing JSON endpoint of a real selector server over HTTP: route requests (with
 * the agent headers), request events, KV event batches, telemetry, worker health. The property: every
 * answer is a 2xx, a 4xx, or the documented 503 back-pressure reply, and every error reply is a JSON
 * object whose {@code error} names the problem. A 500 (an exception escaping validation) or a hang is
 * a finding.
 */
class HttpApiFuzzTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] PATHS = {"/v1/route", "/v1/requests/events", "/v1/kv-events", "/v1/telemetry",
        "/v1/workers/w1/health"};
    private static final String[] SEEDS = {
        "{\"request_id\":\"r1\",\"model\":\"m\",\"token_ids\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17],\"max_tokens\":64}",
        "[{\"request_id\":\"r1\",\"type\":\"tokens\",\"tokens\":3},{\"request_id\":\"r1\",\"type\":\"finished\"}]",
        "{\"worker\":\"w2\",\"events\":[{\"type\":\"stored\",\"tier\":\"hbm\",\"block_hashes\":[1,2,\"0x1f\"]},"
                + "{\"type\":\"moved\",\"from_tier\":\"hbm\",\"tier\":\"cpu\",\"block_hashes\":[1]},{\"type\":\"cleared\"}]}",
        "{\"worker\":\"w3\",\"waiting\":2,\"running\":1,\"kv_used_tokens\":100,\"sample_age_ms\":250}",
        "{\"healthy\":false}",
    };

    @org.junit.jupiter.api.io.TempDir
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

    @FuzzTest(maxExecutions = 10_000)
    void everyAnswerIsAClientErrorOrSuccess(FuzzedDataProvider data) throws Exception {
        int endpoint = data.consumeInt(0, PATHS.length - 1);
        HttpRequest.Builder req = HttpRequest.newBuilder(api.uri(PATHS[endpoint]))
                .header("content-type", "application/json");
        if (endpoint == 4) {
            req.header("authorization", "Bearer " + ApiTestServer.TOKEN);
        }
        if (endpoint == 0 && data.consumeBoolean()) {
            req.header("x-agent-workflow-id", headerValue(data));
            req.header("x-agent-expected-tools", headerValue(data));
        }
        byte[] body = data.consumeBoolean()
                ? FuzzInputs.mutate(SEEDS[endpoint].getBytes(StandardCharsets.UTF_8), data)
                : data.consumeRemainingAsBytes();
        HttpResponse<String> r = api.send(req.POST(HttpRequest.BodyPublishers.ofByteArray(body)));

        int status = r.statusCode();
        assertThat(status).as("%s %s", PATHS[endpoint], r.body()).isBetween(200, 503).isNotEqualTo(500);
        if (status >= 400) {
            JsonNode reply = JSON.readTree(r.body());
            assertThat(reply.path("error").asText()).as(r.body()).isNotBlank();
        }
    }

    /** A header value the HTTP client will send (visible ASCII), fuzzer-chosen. */
    private static String headerValue(FuzzedDataProvider data) {
        String s = data.consumeAsciiString(300).replaceAll("[^\\x21-\\x7e]", "");
        return s.isEmpty() ? "x" : s;
    }
}
