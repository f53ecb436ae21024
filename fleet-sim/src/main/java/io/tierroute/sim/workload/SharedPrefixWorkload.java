package io.tierroute.sim.workload;

import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.policy.SimRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Groups of users sharing a long prefix, each request = its group's prefix + a private query:
 * the shape of the llm-d blog benchmark (PEERS.md §5) and, with bigger and more prefixes, workloads
 * whose prefixes overflow HBM into the CPU tier, and HBM and CPU into an NVMe tier.
 *
 * <p>Distributions: arrivals Poisson at {@code ratePerSecond}; group uniform over {@code groups}, user
 * uniform over {@code usersPerGroup}; prefix exactly {@code prefixTokens}; query exactly
 * {@code queryTokens}, unique per request; output log-normal (median {@code outputMedian}, σ 0.5,
 * clamped to [16, 1024]); max_tokens 1024.
 */
public record SharedPrefixWorkload(String name, int groups, int usersPerGroup, int prefixTokens, int queryTokens,
                                   double outputMedian, double ratePerSecond, int requests, double pcieBytesPerSecond,
                                   long cpuTokens, long nvmeTokens, double nvmeBytesPerSecond)
        implements Workload {

    /** A workload on the fleet's default tiers (0 in the engine fields: the default). */
    public SharedPrefixWorkload(String name, int groups, int usersPerGroup, int prefixTokens, int queryTokens,
                                double outputMedian, double ratePerSecond, int requests, double pcieBytesPerSecond) {
        this(name, groups, usersPerGroup, prefixTokens, queryTokens, outputMedian, ratePerSecond, requests,
                pcieBytesPerSecond, 0, 0, 0);
    }

    /** PEERS.md §5: 150 groups × 5 users, 6,000-token prefixes, 1,200-token queries. */
    public static SharedPrefixWorkload llmdBlog() {
        return new SharedPrefixWorkload("llmd-blog", 150, 5, 6000, 1200, 200, 10, 6000, 0);
    }

    /**
     * 120 system prompts of 30,000 tokens (3.6 M tokens: 450 k per worker even when perfectly
     * partitioned over 8, above the 262 k of HBM and below HBM + CPU), 500-token queries.
     */
    public static SharedPrefixWorkload cpuOverflow() {
        return new SharedPrefixWorkload("cpu-overflow", 120, 4, 30_000, 500, 150, 4, 5000, 0);
    }

    /**
     * 240 system prompts of 30,000 tokens (7.2 M tokens: 900 k per worker even when perfectly partitioned over 8)
     * on workers with 262 k tokens of HBM, 262 k of host RAM for KV (64 GiB) and 1 M on NVMe (256 GiB) read at
     * 28 GB/s (four PCIe Gen4 drives striped; a DGX H100 carries eight): HBM and CPU cannot hold a worker's share,
     * HBM, CPU and NVMe together can (1.57 M per worker), but only where the router keeps each prompt's requests
     * together. At Qwen3-32B's 256 KiB per token a token loads in 4.1 µs from CPU and in 9.4 µs from NVMe
     * plus its 4.1 µs copy over PCIe, and prefills in ~20 µs: both tiers beat recompute, at different prices.
     */
    public static SharedPrefixWorkload nvmeOverflow() {
        return new SharedPrefixWorkload("nvme-overflow", 240, 4, 30_000, 500, 150, 4, 5000, 0, 262_144, 1_048_576, 28e9);
    }

    @Override
    public String description() {
        String tiers = nvmeTokens > 0
                ? String.format(", CPU %,d + NVMe %,d tokens per worker at %.0f GB/s", cpuTokens, nvmeTokens,
                        nvmeBytesPerSecond / 1e9)
                : "";
        return String.format("%d groups × %d users, %,d-token shared prefix + %,d-token query, output median %.0f, "
                + "Poisson %.1f req/s, %d requests%s", groups, usersPerGroup, prefixTokens, queryTokens, outputMedian,
                ratePerSecond, requests, tiers);
    }

    @Override
    public List<SimRequest> generate(RequestFactory factory, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<SimRequest> out = new ArrayList<>(requests);
        long t = 0;
        long privateBase = 1L << 40;
        for (int i = 0; i < requests; i++) {
            t += Dist.exponentialMicros(r, 1.0 / ratePerSecond);
            int group = r.nextInt(groups);
            int user = r.nextInt(usersPerGroup);
            BlockIds ids = new BlockIds(factory.blockSize(), privateBase).shared(group + 1, prefixTokens).unique(queryTokens);
            privateBase = ids.nextPrivate();
            int output = Dist.logNormal(r, outputMedian, 0.5, 16, 1024);
            out.add(factory.request(name + "-g" + group + "-u" + user + "-" + i, t, ids.tokens(), ids.ids(),
                    1024, output, null));
        }
        return out;
    }

    @Override
    public EngineConfig.Builder tune(EngineConfig.Builder engine) {
        if (pcieBytesPerSecond > 0) engine.pcieBytesPerSecond(pcieBytesPerSecond);
        if (cpuTokens > 0) engine.cpuCapacityTokens(cpuTokens);
        if (nvmeTokens > 0) engine.nvmeCapacityTokens(nvmeTokens);
        if (nvmeBytesPerSecond > 0) engine.nvmeBytesPerSecond(nvmeBytesPerSecond);
        return engine;
    }
}
