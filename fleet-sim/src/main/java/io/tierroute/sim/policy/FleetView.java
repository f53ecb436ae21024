package io.tierroute.sim.policy;

import io.tierroute.selector.protocol.Tier;

/**
 * What a router may legitimately know about the fleet: its configuration (worker count, block size,
 * KV bytes per token, link bandwidths, HBM and CPU-tier capacity). Everything dynamic reaches a policy through its
 * callbacks ({@link RoutingPolicy#onKvEvent}, {@link RoutingPolicy#onTelemetry}, its own
 * decisions), except {@link #oracle()}, the exact engine state, which only the oracle policy reads.
 */
public interface FleetView {

    int workers();

    /** Tokens per KV block (the engine's and the prompt hashes' block size). */
    int blockSize();

    /** KV bytes per token of the served model (Qwen3-32B: 256 KiB). */
    double bytesPerToken();

    /** The model name; with {@code BlockHasher.salt(model, null, null)} it salts the block hashes. */
    String model();

    /** Bandwidth in bytes/s of {@code worker}'s link to {@code tier}; 0 when the worker has no such tier. */
    double bandwidth(int worker, Tier tier);

    /** HBM KV capacity of {@code worker} in blocks. */
    long hbmCapacityBlocks(int worker);

    /**
     * CPU-tier KV capacity of {@code worker} in blocks, 0 without a CPU tier: the engine's offload size, which an
     * operator configures (vLLM's {@code --kv-offloading-size}) and a router's configuration may repeat.
     */
    long cpuCapacityBlocks(int worker);

    /** Per-step token budget of the engines (vLLM {@code max_num_batched_tokens}). */
    int maxBatchedTokens();

    /** Exact, instantaneous engine state. <b>Oracle only</b>: any other policy reading it is cheating. */
    OracleView oracle();
}
