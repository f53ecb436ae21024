package io.tierroute.sim.policy.peers.sglang;

/**
 * The knobs of SGLang's {@code cache_aware} policy, with the two pinned default sets of PEERS.md §2.
 *
 * @param name                 registry name
 * @param version              upstream version reimplemented
 * @param cacheThreshold       route to the cached tenant only when matched/total chars exceeds this
 * @param balanceAbsThreshold  imbalanced when {@code max − min > this} ...
 * @param balanceRelThreshold  ... and {@code max > min × this}
 * @param evictionPeriodMicros how often (virtual time) the tree is trimmed
 * @param maxTreeSize          per-tenant cap, in upstream characters of prompt text (2^26)
 * @param charsPerToken        upstream characters per token, to convert {@code maxTreeSize} into the
 *                             simulator's text-surrogate characters (see {@link CacheAwarePolicy})
 */
public record CacheAwareConfig(String name, String version, double cacheThreshold, int balanceAbsThreshold,
                               double balanceRelThreshold, long evictionPeriodMicros, long maxTreeSize,
                               double charsPerToken) {

    public static final String PYTHON_NAME = "sglang-cache-aware";
    public static final String RUST_NAME = "sglang-cache-aware-rust";

    /** The Python CLI defaults ({@code sglang_router.launch_router}): 0.3 / 64 / 1.5. */
    public static CacheAwareConfig pythonCli() {
        return new CacheAwareConfig(PYTHON_NAME, "sgl-model-gateway late-2025, Python CLI defaults",
                0.3, 64, 1.5, 60_000_000L, 1L << 26, 4.0);
    }

    /** The Rust defaults ({@code CacheAwareConfig::default()}): 0.5 / 32 / 1.1. */
    public static CacheAwareConfig rust() {
        return new CacheAwareConfig(RUST_NAME, "sgl-model-gateway late-2025, Rust defaults",
                0.5, 32, 1.1, 60_000_000L, 1L << 26, 4.0);
    }

    public CacheAwareConfig {
        if (!(cacheThreshold >= 0 && cacheThreshold <= 1)) {
            throw new IllegalArgumentException("cacheThreshold must be in [0, 1]: " + cacheThreshold);
        }
        if (balanceAbsThreshold < 0 || !(balanceRelThreshold >= 1)) {
            throw new IllegalArgumentException("balance thresholds must be ≥ 0 and ≥ 1: "
                    + balanceAbsThreshold + ", " + balanceRelThreshold);
        }
        if (evictionPeriodMicros <= 0 || maxTreeSize <= 0 || !(charsPerToken > 0)) {
            throw new IllegalArgumentException("eviction period, tree size and chars/token must be positive");
        }
    }

    /** A copy with another per-tenant cap (tests). */
    public CacheAwareConfig withMaxTreeSize(long chars) {
        return new CacheAwareConfig(name, version, cacheThreshold, balanceAbsThreshold, balanceRelThreshold,
                evictionPeriodMicros, chars, charsPerToken);
    }
}
