package io.tierroute.selector.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.selector.scheduling.DistinctBreakdown;
import io.tierroute.selector.scheduling.RouteDecision;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The explain JSON carries every term and feature of the chosen worker's and each candidate's breakdown. */
class RouteJsonTest {

    /** JSON field → the number {@link DistinctBreakdown#of} puts there, less its base. */
    private static Map<String, Double> expected() {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("prefill_us", 1.0);
        m.put("decode_us", 2.0);
        m.put("kv_us", 3.0);
        m.put("tier_us", 4.0);
        m.put("head_of_line_us", 5.0);
        m.put("workflow_bonus_us", 6.0);
        m.put("tools_bonus_us", 7.0);
        m.put("total_us", 8.0);
        m.put("hit_tokens", 9.0);
        m.put("p_eff_tokens", 10.0);
        m.put("recompute_quadratic", 11.0);
        m.put("inflight_decode_tokens", 12.0);
        m.put("inflight_decode_quadratic", 13.0);
        m.put("kv_overflow_tokens", 14.0);
        m.put("queue_excess_squared", 16.0);
        m.put("queue_us", 19.0);
        m.put("queued_prefill_tokens", 20.0);
        m.put("harm_us", 21.0);
        m.put("own_decode_us", 23.0);
        m.put("kv_used_tokens", 24.0);
        m.put("own_decode_kv_token_steps", 25.0);
        m.put("kv_overflow_harm_us", 27.0);
        m.put("kv_wait_us", 28.0);
        return m;
    }

    private static void assertBreakdown(JsonNode cost, double base) {
        expected().forEach((field, offset) -> assertThat(cost.get(field).asDouble()).as(field).isEqualTo(base + offset));
        assertThat(cost.get("queue_length").asInt()).isEqualTo(15);
        assertThat(cost.get("in_flight").asInt()).isEqualTo(22);
        assertThat(cost.get("affinity_decay").asDouble()).isEqualTo(0.17);
        assertThat(cost.get("tool_hit_fraction").asDouble()).isEqualTo(0.18);
        assertThat(cost.get("cut_off_tier").asText()).isEqualTo("nvme");
        String[] tiers = {"hbm", "cpu", "nvme", "remote"};
        for (int t = 0; t < tiers.length; t++) {
            assertThat(cost.get("tier_tokens").get(tiers[t]).asLong()).as(tiers[t]).isEqualTo((long) base + 100 + t);
            if (t > 0) { // HBM is loaded from nowhere
                assertThat(cost.get("tier_transfer_us").get(tiers[t]).asDouble()).as(tiers[t]).isEqualTo(base + 110 + t);
            }
        }
    }

    @Test
    void everyTermOfTheChosenWorkerAndOfEachCandidateIsReported() throws Exception {
        RouteDecision d = new RouteDecision("req-1", "w-0", 0, "default", 3, 1200, 80,
                RouteDecision.PredictionSource.HINT, null, false, true, 0, DistinctBreakdown.of(1000),
                List.of(new RouteDecision.Candidate("w-1", null, DistinctBreakdown.of(2000)),
                        new RouteDecision.Candidate("w-2", "unhealthy", null)));
        JsonNode json = new ObjectMapper().readTree(RouteJson.write(d));
        assertBreakdown(json.get("cost"), 1000);
        assertThat(json.get("explored").asBoolean()).isFalse();
        assertThat(json.get("spread").asBoolean()).as("the light-load spread changed the pick").isTrue();
        assertBreakdown(json.get("candidates").get(0).get("cost"), 2000);
        assertThat(json.get("candidates").get(1).get("cost").isNull()).isTrue();
        assertThat(json.get("candidates").get(1).get("excluded").asText()).isEqualTo("unhealthy");
    }
}
