package io.tierroute.selector.http;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.CostBreakdown;
import io.tierroute.selector.scheduling.RouteDecision;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * Writes a {@link RouteDecision} as the JSON answer of {@code POST /v1/route}, with Jackson's
 * streaming generator (no reflection on the hot path). Every cost term goes out under its own name.
 */
final class RouteJson {

    private static final String[] TIER_NAMES = new String[Tier.COUNT];
    private static final String[] SOURCES = new String[RouteDecision.PredictionSource.values().length];

    static {
        for (int t = 0; t < Tier.COUNT; t++) {
            TIER_NAMES[t] = Tier.ofOrdinal(t).name().toLowerCase(Locale.ROOT);
        }
        for (RouteDecision.PredictionSource s : RouteDecision.PredictionSource.values()) {
            SOURCES[s.ordinal()] = s.name().toLowerCase(Locale.ROOT);
        }
    }

    private RouteJson() {}

    static byte[] write(RouteDecision d) {
        ByteArrayBuilder buf = new ByteArrayBuilder(d.candidates().isEmpty() ? 1024 : 1024 + 900 * d.candidates().size());
        try (JsonGenerator g = Json.MAPPER.getFactory().createGenerator(buf, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("request_id", d.requestId());
            g.writeStringField("worker", d.worker());
            g.writeNumberField("snapshot_version", d.snapshotVersion());
            g.writeStringField("scope", d.scope());
            g.writeNumberField("input_tokens", d.inputTokens());
            g.writeNumberField("predicted_output_tokens", d.predictedOutputTokens());
            g.writeStringField("prediction_source", SOURCES[d.predictionSource().ordinal()]);
            g.writeBooleanField("explored", d.explored());
            g.writeBooleanField("spread", d.spread());
            g.writeNumberField("queued_ms", d.queuedNanos() / 1e6);
            g.writeFieldName("cost");
            breakdown(g, d.chosen());
            if (!d.candidates().isEmpty()) {
                g.writeArrayFieldStart("candidates");
                for (RouteDecision.Candidate c : d.candidates()) {
                    g.writeStartObject();
                    g.writeStringField("worker", c.worker());
                    g.writeStringField("excluded", c.excludedBecause());
                    g.writeFieldName("cost");
                    if (c.cost() == null) {
                        g.writeNull();
                    } else {
                        breakdown(g, c.cost());
                    }
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buf.toByteArray();
    }

    private static void breakdown(JsonGenerator g, CostBreakdown b) throws IOException {
        g.writeStartObject();
        g.writeNumberField("prefill_us", b.prefillUs());
        g.writeNumberField("harm_us", b.harmUs());
        g.writeNumberField("queue_us", b.queueUs());
        g.writeNumberField("own_decode_us", b.ownDecodeUs());
        g.writeNumberField("decode_us", b.decodeUs());
        g.writeNumberField("kv_us", b.kvUs());
        g.writeNumberField("kv_overflow_harm_us", b.kvOverflowHarmUs());
        g.writeNumberField("kv_wait_us", b.kvWaitUs());
        g.writeNumberField("tier_us", b.tierUs());
        g.writeNumberField("head_of_line_us", b.headOfLineUs());
        g.writeNumberField("workflow_bonus_us", b.workflowBonusUs());
        g.writeNumberField("tools_bonus_us", b.toolsBonusUs());
        g.writeNumberField("total_us", b.totalUs());
        g.writeNumberField("hit_tokens", b.hitTokens());
        g.writeNumberField("p_eff_tokens", b.pEffTokens());
        g.writeNumberField("recompute_quadratic", b.recomputeQuadratic());
        g.writeNumberField("in_flight", b.inFlight());
        g.writeNumberField("queued_prefill_tokens", b.queuedPrefillTokens());
        g.writeNumberField("kv_used_tokens", b.kvUsedTokens());
        g.writeNumberField("own_decode_kv_token_steps", b.ownDecodeKvTokenSteps());
        g.writeNumberField("inflight_decode_tokens", b.inflightDecodeTokens());
        g.writeNumberField("inflight_decode_quadratic", b.inflightDecodeQuadratic());
        g.writeNumberField("kv_overflow_tokens", b.kvOverflowTokens());
        g.writeObjectFieldStart("tier_tokens");
        for (int t = 0; t < Tier.COUNT; t++) {
            g.writeNumberField(TIER_NAMES[t], b.tierTokens()[t]);
        }
        g.writeEndObject();
        g.writeObjectFieldStart("tier_transfer_us");
        for (int t = 1; t < Tier.COUNT; t++) {
            g.writeNumberField(TIER_NAMES[t], b.tierTransferUs()[t]);
        }
        g.writeEndObject();
        g.writeStringField("cut_off_tier", b.cutOffTier() < 0 ? null : TIER_NAMES[b.cutOffTier()]);
        g.writeNumberField("queue_length", b.queueLength());
        g.writeNumberField("queue_excess_squared", b.queueExcessSquared());
        g.writeNumberField("affinity_decay", b.affinityDecay());
        g.writeNumberField("tool_hit_fraction", b.toolHitFraction());
        g.writeEndObject();
    }
}
