package io.tierroute.sim.policy.peers.dynamo;

/**
 * The knobs of Dynamo's KV router default selector, with the pinned variants of PEERS.md §3.
 *
 * @param name             registry name
 * @param version          upstream version reimplemented
 * @param deviceWeight     overlap credit per block matched on GPU
 * @param hostWeight       credit per block of the CPU (host) extension
 * @param diskWeight       credit per block of the disk / external extension
 * @param prefillWeight    {@code prefill_load_scale} (2026) or {@code overlap_score_weight} (2025)
 * @param temperature      softmax temperature over min-max normalised logits; 0 = argmin
 * @param kvEvents         true: index fed by engine KV events; false: approximate mode
 * @param approxTtlMicros  approximate mode: how long the router's own decision counts as cached
 */
public record DynamoConfig(String name, String version, double deviceWeight, double hostWeight, double diskWeight,
                           double prefillWeight, double temperature, boolean kvEvents, long approxTtlMicros) {

    public static final String DEFAULT_NAME = "dynamo";
    public static final String V2025_NAME = "dynamo-2025";
    public static final String APPROX_NAME = "dynamo-approx";

    /**
     * The 2026 default, pinned to v1.6.0 (2026-10-22, the newest release): tiered overlap credit 1.0 / 0.75 / 0.25,
     * {@code prefill_load_scale} 1.0, {@code decode_active_request_weight} 0, temperature 0. Its router queue
     * ({@code router_queue_threshold}) is off by default since v1.4.0 (on at 4.0 in v1.1–v1.2 and 16.0 in v1.3), so
     * every request is routed on arrival, as here (fleet-sim/PEERS-NOTES.md).
     */
    public static DynamoConfig v2026() {
        return new DynamoConfig(DEFAULT_NAME, "ai-dynamo kv-router v1.6.0 default selector (router queue off)",
                1.0, 0.75, 0.25, 1.0, 0.0, true, 0);
    }

    /** "Dynamo 2025": GPU-only overlap, {@code logit = overlap_score_weight·prefill_blocks + decode_blocks}, weight 1.0. */
    public static DynamoConfig v2025() {
        return new DynamoConfig(V2025_NAME, "ai-dynamo kv-router 2025 (overlap_score_weight = 1.0, GPU-only overlap)",
                1.0, 0.0, 0.0, 1.0, 0.0, true, 0);
    }

    /** The 2026 selector without KV events ({@code --no-kv-events}): own decisions cached for 120 s. */
    public static DynamoConfig approximate() {
        return new DynamoConfig(APPROX_NAME, "ai-dynamo kv-router v1.6.0 default selector, --no-kv-events (TTL 120 s)",
                1.0, 0.75, 0.25, 1.0, 0.0, false, 120_000_000L);
    }

    public DynamoConfig {
        if (!(deviceWeight >= 0 && hostWeight >= 0 && diskWeight >= 0 && prefillWeight >= 0 && temperature >= 0)) {
            throw new IllegalArgumentException("Dynamo weights and temperature must be ≥ 0");
        }
        if (!kvEvents && approxTtlMicros <= 0) {
            throw new IllegalArgumentException("approximate mode needs a positive TTL");
        }
    }

    /** A copy with another temperature. */
    public DynamoConfig withTemperature(double t) {
        return new DynamoConfig(name, version, deviceWeight, hostWeight, diskWeight, prefillWeight, t, kvEvents,
                approxTtlMicros);
    }
}
