package io.tierroute.sim.engine;

/**
 * How long one engine step takes (DESIGN.md §6): the performance model Dynamo's mocker fits to vLLM.
 *
 * <pre>
 * prefill_ms(T) = 4.209989e-7·T² + 1.518344e-2·T + 16.50142      T = new prompt tokens in the step
 * decode_ms(u)  = max(1, −25.74·u² + 54.01·u + 5.74)               u = KV blocks the running batch holds / capacity
 * step_ms       = prefill_ms(T)                   when the step has prefill tokens and no decode tokens
 *               = decode_ms(u)                    when it has decode tokens only
 *               = prefill_ms(T) + decode_ms(u)    when mixed
 * </pre>
 *
 * A mixed step adds the two: the prefill chunk is compute-bound and the decode batch is bound by
 * reading the running requests' KV, and a forward pass does both in sequence, so neither hides the
 * other. This slightly overcounts the fixed per-step overhead (both intercepts); the choice is the
 * simplest that keeps pure steps exactly on the published curves.
 *
 * <p>{@code u} counts the blocks the running batch holds (Worker: {@code KvCache.heldByRunning()}), as DESIGN.md §6
 * says: the step reads those. A request loading its prefix from a slower tier, or loaded and waiting for budget,
 * holds blocks the step does not read. The engine's reported KV usage ({@code KvCache.referenced()}, vLLM's
 * {@code kv_cache_usage}) counts every allocated block, and the telemetry reports that.
 */
public final class StepTimeModel {

    private StepTimeModel() {}

    /** Milliseconds of a step that computes {@code tokens} new prompt tokens (T). */
    public static double prefillMillis(long tokens) {
        double t = tokens;
        return 4.209989e-7 * t * t + 1.518344e-2 * t + 16.50142;
    }

    /** Milliseconds of a decode step at KV utilisation {@code u} ∈ [0, 1], floored at 1 ms. */
    public static double decodeMillis(double u) {
        return Math.max(1.0, -25.74 * u * u + 54.01 * u + 5.74);
    }

    /**
     * Microseconds of a step with {@code prefillTokens} prompt tokens and {@code decodeTokens} decode
     * tokens (one per decoding request) at KV utilisation {@code u}; 0 for an empty step.
     */
    public static long stepMicros(long prefillTokens, int decodeTokens, double u) {
        double ms = 0;
        if (prefillTokens > 0) {
            ms += prefillMillis(prefillTokens);
        }
        if (decodeTokens > 0) {
            ms += decodeMillis(u);
        }
        return Math.round(ms * 1000.0);
    }
}
