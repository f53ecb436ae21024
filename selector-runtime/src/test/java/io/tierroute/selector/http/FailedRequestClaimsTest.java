package io.tierroute.selector.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With routing.computingClaims, a {@code failed} request event for a request that had no output yet withdraws the
 * blocks it claimed (through the server's index writer thread), so the next route no longer sees its worker holding a
 * prefix nobody computes; a request that had output keeps them (its prefill ran). Before, both lasted computingClaimTtl.
 */
class FailedRequestClaimsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void aFailureBeforeTheFirstTokenWithdrawsTheRequestsClaims() throws Exception {
        try (ApiTestServer api = new ApiTestServer("""
                model: {name: m, blockSize: 16, bytesPerToken: 1024}
                workers: {count: 4}
                routing: {computingClaims: true, computingClaimTtl: 10m}
                """, dir, null)) {
            JsonNode failed = route(api, 1, "");
            JsonNode producing = route(api, 2, "");
            assertThat(api.server.pipeline().awaitIdle(10, TimeUnit.SECONDS)).isTrue(); // the claims are in the index
            assertThat(hit(api, 1, failed.get("worker").asText())).isEqualTo(4096 - 16);
            assertThat(hit(api, 2, producing.get("worker").asText())).isEqualTo(4096 - 16);

            event(api, producing, "first_token");
            event(api, producing, "failed");
            event(api, failed, "failed");
            assertThat(api.server.pipeline().awaitIdle(10, TimeUnit.SECONDS)).isTrue();

            assertThat(hit(api, 1, failed.get("worker").asText())).as("withdrawn at once, not after 10 minutes").isZero();
            assertThat(hit(api, 2, producing.get("worker").asText())).as("its prefix was computed").isEqualTo(4096 - 16);
        }
    }

    /** Routes a 4,096-token prompt of its own ({@code seed}); {@code query}: "" or "?dry_run=true". */
    private static JsonNode route(ApiTestServer api, int seed, String query) throws Exception {
        StringJoiner tokens = new StringJoiner(",", "[", "]");
        for (int i = 0; i < 4096; i++) {
            tokens.add(Integer.toString(seed * 100_000 + i));
        }
        HttpResponse<String> r = api.post("/v1/route" + query, "{\"token_ids\":" + tokens + ",\"max_tokens\":64,"
                + "\"explain\":true}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    /** The tokens of prompt {@code seed} that {@code worker} is shown holding, by a dry run (which changes nothing). */
    private static long hit(ApiTestServer api, int seed, String worker) throws Exception {
        for (JsonNode c : route(api, seed, "?dry_run=true").get("candidates")) {
            if (c.get("worker").asText().equals(worker)) {
                return c.get("cost").get("hit_tokens").asLong();
            }
        }
        throw new AssertionError("no candidate " + worker);
    }

    private static void event(ApiTestServer api, JsonNode routed, String type) throws Exception {
        HttpResponse<String> r = api.post("/v1/requests/events", "{\"request_id\":\"" + routed.get("request_id").asText()
                + "\",\"type\":\"" + type + "\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }
}
