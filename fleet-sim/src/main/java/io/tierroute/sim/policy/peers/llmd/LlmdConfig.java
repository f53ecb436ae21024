package io.tierroute.sim.policy.peers.llmd;

/**
 * The scoring profile of llm-d's inference scheduler (EPP), with the pinned profiles of PEERS.md §4.
 *
 * @param name                 registry name
 * @param version              upstream version reimplemented
 * @param prefix               which prefix scorer(s) the profile uses
 * @param prefixWeight         weight of the precise or approximate prefix scorer (3)
 * @param cpuPrefixWeight      tiered profile: weight of the GPU and of the CPU approximate scorer (1 each)
 * @param kvUtilWeight         weight of {@code 1 − kv_cache_usage} (2)
 * @param queueWeight          weight of the queue scorer (2)
 * @param gpuTierWeight        precise scorer: credit of a block matched on GPU (1.0)
 * @param cpuTierWeight        precise scorer: credit of a block matched on CPU (0.8)
 * @param telemetryMicros      metrics refresh period (50 ms)
 * @param lruTokensPerServer   approximate scorer: LRU capacity per server, in tokens; 0: {@code autoTune}, the
 *                             engine's HBM KV capacity (the EPP reads {@code num_gpu_blocks} from the engine's
 *                             {@code vllm:cache_config_info} metric; GAIE v1.2+, on by default)
 * @param maxPrefixTokens      approximate scorer: prompt tokens hashed at most (256 blocks × 16)
 */
public record LlmdConfig(String name, String version, PrefixMode prefix, double prefixWeight, double cpuPrefixWeight,
                         double kvUtilWeight, double queueWeight, double gpuTierWeight, double cpuTierWeight,
                         long telemetryMicros, long lruTokensPerServer, long maxPrefixTokens) {

    /** The prefix scorer(s) of a profile. */
    public enum PrefixMode {
        /** {@code precise-prefix-cache-scorer} fed by engine KV events, tier-weighted. */
        PRECISE,
        /** The shipped {@code prefix-cache-scorer}: own picks in a per-server LRU. */
        APPROXIMATE,
        /** The tiered CPU guide: two approximate scorers sized for GPU and for CPU. */
        TIERED_CPU
    }

    public static final String PRECISE_NAME = "llmd-precise";
    public static final String APPROX_NAME = "llmd-approx";
    public static final String TIERED_NAME = "llmd-tiered-cpu";

    private static final long UPSTREAM_MAX_PREFIX_TOKENS = 256L * 16;

    /** The precise prefix-cache profile, llm-d guide values (v0.5): 3·prefix + 2·kv_util + 2·queue. */
    public static LlmdConfig precise() {
        return new LlmdConfig(PRECISE_NAME, "llm-d v0.5 precise prefix-cache guide (3:2:2, gpu 1.0 / cpu 0.8)",
                PrefixMode.PRECISE, 3, 0, 2, 2, 1.0, 0.8, 50_000, 0, 0);
    }

    /**
     * The shipped EPP default: approximate prefix scorer 3, kv-util 2, queue 2. llm-d v0.5 runs GAIE v1.3.0's
     * {@code prefix-cache-scorer} with the chart's defaults, {@code autoTune} on: its LRU per server holds the engine's
     * {@code num_gpu_blocks} (here the worker's HBM blocks), not the fixed 31 250 chunks (500 000 tokens) of GAIE ≤ v1.1.
     */
    public static LlmdConfig approximate() {
        return new LlmdConfig(APPROX_NAME, "llm-d v0.5 EPP default profile (approximate prefix 3:2:2, autoTune)",
                PrefixMode.APPROXIMATE, 3, 0, 2, 2, 1.0, 0.8, 50_000, 0, UPSTREAM_MAX_PREFIX_TOKENS);
    }

    /** The tiered CPU guide: approximate GPU scorer 1 + approximate CPU scorer 1 + queue 2 + kv-util 2. */
    public static LlmdConfig tieredCpu() {
        return new LlmdConfig(TIERED_NAME, "llm-d v0.5 tiered prefix cache (CPU) guide",
                PrefixMode.TIERED_CPU, 1, 1, 2, 2, 1.0, 0.8, 50_000, 0, UPSTREAM_MAX_PREFIX_TOKENS);
    }

    public LlmdConfig {
        if (!(prefixWeight >= 0 && cpuPrefixWeight >= 0 && kvUtilWeight >= 0 && queueWeight >= 0)) {
            throw new IllegalArgumentException("llm-d weights must be ≥ 0");
        }
        if (lruTokensPerServer < 0 || maxPrefixTokens < 0) {
            throw new IllegalArgumentException("llm-d LRU and prefix sizes must be ≥ 0 (0: autoTune / no cap), got "
                    + lruTokensPerServer + " and " + maxPrefixTokens);
        }
        if (telemetryMicros <= 0) {
            throw new IllegalArgumentException("telemetry period must be positive: " + telemetryMicros);
        }
    }
}
