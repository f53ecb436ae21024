package io.tierroute.sim.policy.peers.sglang;

import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;

/**
 * SGLang model gateway's {@code cache_aware} policy (sgl-model-gateway, late 2025; PEERS.md §2), in
 * either pinned default set ({@link CacheAwareConfig#pythonCli()}, {@link CacheAwareConfig#rust()}).
 *
 * <pre>
 * (min, max) = min/max load over workers
 * if max − min > balance_abs_threshold and max > min × balance_rel_threshold:  w = argmin load
 * else: (matched, tenant) = tree.prefix_match(text)
 *       w = tenant if matched / chars(text) > cache_threshold else argmin load
 * tree.insert(text, w)
 * </pre>
 *
 * <p>{@code load(w)} is the router's own in-flight count (routed, not yet finished). {@code argmin}
 * takes the lowest-index worker among equals, as Rust's {@code min_by_key} does. The text is
 * {@link SimRequest#text()}, the simulator's character surrogate (16 characters per block): match
 * ratios equal token ratios, which is what the threshold reads. The tree is trimmed every 60 s of
 * virtual time (checked at each arrival); its per-tenant cap of 2^26 upstream characters is converted
 * to surrogate characters at 4 upstream characters per token ({@code 2^26 / 4 · 16 / blockSize}), so
 * the cap bounds the same number of tokens as upstream. KV events and telemetry are ignored: the
 * gateway sees neither.
 */
public final class CacheAwarePolicy implements RoutingPolicy {

    private final CacheAwareConfig config;
    private final RadixTree tree;
    private final int[] load;
    private final long maxSurrogateChars;
    private long nextEvictionAt;

    public CacheAwarePolicy(CacheAwareConfig config, int workers, int blockSize, long seed) {
        this.config = config;
        this.tree = new RadixTree(workers, seed);
        this.load = new int[workers];
        double tokens = config.maxTreeSize() / config.charsPerToken();
        this.maxSurrogateChars = Math.max(1L,
                (long) (tokens * SimRequest.TEXT_CHARS_PER_BLOCK / blockSize));
        this.nextEvictionAt = config.evictionPeriodMicros();
    }

    @Override public String name() { return config.name(); }
    @Override public String version() { return config.version(); }

    @Override
    public int route(SimRequest request, FleetView view, long nowMicros) {
        if (nowMicros >= nextEvictionAt) {
            tree.evict(maxSurrogateChars);
            nextEvictionAt = nowMicros + config.evictionPeriodMicros();
        }
        String text = request.text();
        int w = choose(text, nowMicros);
        tree.insert(text, w, nowMicros);
        return w;
    }

    private int choose(String text, long now) {
        int min = Integer.MAX_VALUE;
        int max = Integer.MIN_VALUE;
        int argmin = 0;
        for (int w = 0; w < load.length; w++) {
            if (load[w] < min) {
                min = load[w];
                argmin = w;
            }
            max = Math.max(max, load[w]);
        }
        boolean imbalanced = (max - min) > config.balanceAbsThreshold()
                && max > min * config.balanceRelThreshold();
        if (imbalanced) {
            return argmin;
        }
        RadixTree.Match m = tree.prefixMatch(text, now);
        double rate = text.isEmpty() ? 0.0 : (double) m.matchedChars() / text.length();
        return rate > config.cacheThreshold() && m.tenant() >= 0 ? m.tenant() : argmin;
    }

    @Override
    public void onRouted(SimRequest request, int worker, long nowMicros) {
        load[worker]++;
    }

    @Override
    public void onFinished(SimRequest request, int worker, int outputTokens, long nowMicros) {
        load[worker]--;
    }

    /** The router's in-flight count for {@code worker}. */
    public int load(int worker) {
        return load[worker];
    }

    /** The per-tenant cap of the tree, in surrogate characters. */
    public long maxSurrogateChars() {
        return maxSurrogateChars;
    }

    RadixTree tree() {
        return tree;
    }
}
