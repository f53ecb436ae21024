package io.tierroute.sim.policy.peers.llmd;

import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.WorkerTelemetry;
import io.tierroute.sim.policy.peers.Ties;

import java.util.SplittableRandom;

/**
 * llm-d's inference scheduler (EPP, llm-d v0.5 guides; PEERS.md §4): a weighted sum of scorers in
 * [0, 1] and the max-score picker (ties uniformly at random, seeded), in three profiles
 * ({@link LlmdConfig}):
 *
 * <pre>
 * raw(w)     = Σ over consecutive matched blocks of tier weight (gpu 1.0, cpu 0.8)                   (precise)
 * prefix(w)  = (raw(w) − min raw) / (max raw − min raw) over the workers with a match, 1.0 when those
 *              all tie, 0 without a match                                                            (precise)
 *            = consecutive blocks in w's LRU of own picks / min(total, cap)                          (approximate)
 * kv_util(w) = 1 − kv_cache_usage(w)
 * queue(w)   = (maxQ − q(w)) / (maxQ − minQ), 1.0 when all equal          q = waiting requests
 * score(w)   = 3·prefix + 2·kv_util + 2·queue        (tiered CPU: 1·gpu_prefix + 1·cpu_prefix + 2 + 2)
 * </pre>
 *
 * <p><b>Telemetry.</b> {@code kv_cache_usage} and the waiting queue come from the latest sample of each
 * worker's metrics, which this policy asks for every 50 ms (llm-d's refresh period); it does not add its
 * own picks since the sample. Before a worker's first sample both read 0.
 *
 * <p><b>Precise scorer's normalisation.</b> As llm-d-inference-scheduler's {@code indexedScoresToNormalizedScoredPods}
 * does with the KV-cache indexer's scores (the pods it returns are those with a matched block): the best match gets
 * the whole weight 3 whatever the prompt's length. PEERS.md §4 divides by the prompt's block count instead, which
 * gave the best match 3 × (its lead in blocks / the prompt's blocks): a 6 k-token group prefix of a 7.2 k prompt
 * over a 2 k system prompt every worker holds was worth 1.7, which one worker's kv-util and queue swing outweighed
 * (fleet-sim/PEERS-NOTES.md, a fidelity review of 2026-12-04).
 *
 * <p><b>Precise scorer.</b> selector-runtime's {@link RunPrefixIndex} fed by KV events: GPU credit on the
 * blocks held on HBM from block 0, CPU credit on the extension held on HBM-or-CPU beyond it (a block past
 * the HBM depth that is on HBM again scores 0.8 here, 1.0 upstream; the simulator moves blocks between
 * tiers, so this is rare). Deeper tiers are not scored (llm-d's guide has GPU and CPU only).
 *
 * <p><b>Approximate scorers.</b> Upstream (GAIE v1.3.0, which llm-d v0.5 runs) hashes the prompt text in chunks of
 * the engine's block size × 4 characters (64 for vLLM's 16-token blocks), matches at most 256 chunks (4 096 tokens), and
 * with {@code autoTune} (on by default since GAIE v1.2) keeps per server an LRU of the engine's {@code num_gpu_blocks}
 * chunks: as many tokens as the engine's KV cache holds (GAIE ≤ v1.1 fixed it at 31 250 chunks, 500 000 tokens). The
 * simulator's prompts are known only per engine block, so this works on the request's chained block hashes with the
 * same capacities in tokens: LRU {@code hbmCapacityBlocks(w)} blocks, cap {@code max(1, 4 096 / bs)} blocks.
 * Granularity is coarser (a shared prefix shorter than one engine block scores 0) but the ratio is the same. The tiered CPU guide sizes one approximate scorer to the GPU cache and another to the CPU
 * cache; here the GPU LRU holds {@code hbmCapacityBlocks(w)} blocks and the CPU LRU
 * {@code cpuCapacityBlocks(w)}, the CPU tier's capacity (0 without one). Both are LRUs of this router's own picks: "on CPU" means "sent here
 * recently enough to fit in a CPU-sized cache", not what the engine reports.
 */
public final class LlmdPolicy implements RoutingPolicy {

    private final LlmdConfig config;
    private final int workers;
    private final SplittableRandom random;
    private final int[] waiting;
    private final double[] kvUsage;
    private final double[] scores;
    private final double[] preciseRaw;
    private final RunPrefixIndex precise;
    private final PrefixMatch match;
    private final ApproxPrefixIndex gpuLru;
    private final ApproxPrefixIndex cpuLru;
    private final int capBlocks;

    public LlmdPolicy(LlmdConfig config, FleetView fleet, long seed) {
        this.config = config;
        this.workers = fleet.workers();
        this.random = new SplittableRandom(seed);
        this.waiting = new int[workers];
        this.kvUsage = new double[workers];
        this.scores = new double[workers];
        this.preciseRaw = new double[workers];
        int bs = fleet.blockSize();
        this.capBlocks = config.maxPrefixTokens() > 0 ? (int) Math.max(1, config.maxPrefixTokens() / bs) : Integer.MAX_VALUE;
        long[] gpuCap = new long[workers];
        long[] cpuCap = new long[workers];
        for (int w = 0; w < workers; w++) {
            gpuCap[w] = config.prefix() == LlmdConfig.PrefixMode.TIERED_CPU || config.lruTokensPerServer() == 0
                    ? fleet.hbmCapacityBlocks(w) : Math.max(1, config.lruTokensPerServer() / bs);
            cpuCap[w] = fleet.cpuCapacityBlocks(w);
        }
        switch (config.prefix()) {
            case PRECISE -> {
                this.precise = RunPrefixIndex.builder().workers(workers).build();
                this.match = new PrefixMatch(workers);
                this.gpuLru = null;
                this.cpuLru = null;
            }
            case APPROXIMATE -> {
                this.precise = null;
                this.match = null;
                this.gpuLru = new ApproxPrefixIndex(gpuCap);
                this.cpuLru = null;
            }
            default -> {
                this.precise = null;
                this.match = null;
                this.gpuLru = new ApproxPrefixIndex(gpuCap);
                this.cpuLru = new ApproxPrefixIndex(cpuCap);
            }
        }
    }

    @Override public String name() { return config.name(); }
    @Override public String version() { return config.version(); }
    @Override public long telemetryPeriodMicros() { return config.telemetryMicros(); }

    @Override
    public void onKvEvent(KvEvent event, long nowMicros) {
        if (precise != null) {
            precise.apply(event);
        }
    }

    @Override
    public void onTelemetry(WorkerTelemetry sample) {
        waiting[sample.worker()] = sample.waiting();
        kvUsage[sample.worker()] = sample.kvUsage();
    }

    @Override
    public int route(SimRequest request, FleetView view, long nowMicros) {
        long[] hashes = request.blockHashes();
        int total = Math.min(hashes.length, capBlocks);
        if (precise != null) {
            precise.match(hashes, total, nowMicros * 1000, match);
            normalisePrecise(total);
        }
        int minQ = Integer.MAX_VALUE;
        int maxQ = Integer.MIN_VALUE;
        for (int w = 0; w < workers; w++) {
            minQ = Math.min(minQ, waiting[w]);
            maxQ = Math.max(maxQ, waiting[w]);
        }
        for (int w = 0; w < workers; w++) {
            double queue = maxQ == minQ ? 1.0 : (double) (maxQ - waiting[w]) / (maxQ - minQ);
            double kvUtil = 1.0 - kvUsage[w];
            scores[w] = prefixScore(w, hashes, total) + config.kvUtilWeight() * kvUtil + config.queueWeight() * queue;
        }
        return Ties.argmax(scores, workers, random);
    }

    /** {@code preciseRaw[w]}: the precise scorer's normalised score of every worker (see the class comment). */
    private void normalisePrecise(int total) {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (int w = 0; w < workers; w++) {
            double raw = total == 0 ? 0 : config.gpuTierWeight() * match.cumulativeBlocks(w, Tier.HBM.ordinal())
                    + config.cpuTierWeight() * match.blocksOnTier(w, Tier.CPU.ordinal());
            preciseRaw[w] = raw;
            if (raw > 0) {
                min = Math.min(min, raw);
                max = Math.max(max, raw);
            }
        }
        for (int w = 0; w < workers; w++) {
            double raw = preciseRaw[w];
            preciseRaw[w] = raw <= 0 ? 0.0 : max == min ? 1.0 : (raw - min) / (max - min);
        }
    }

    /** The weighted prefix term(s) of {@code w}'s score. */
    private double prefixScore(int w, long[] hashes, int total) {
        if (total == 0) {
            return 0.0;
        }
        return switch (config.prefix()) {
            case PRECISE -> config.prefixWeight() * preciseRaw[w];
            case APPROXIMATE -> config.prefixWeight() * gpuLru.matched(w, hashes, total) / total;
            case TIERED_CPU -> config.prefixWeight() * gpuLru.matched(w, hashes, total) / total
                    + config.cpuPrefixWeight() * cpuLru.matched(w, hashes, total) / total;
        };
    }

    @Override
    public void onRouted(SimRequest request, int worker, long nowMicros) {
        long[] hashes = request.blockHashes();
        int n = Math.min(hashes.length, capBlocks);
        if (gpuLru != null) {
            gpuLru.insert(worker, hashes, n);
        }
        if (cpuLru != null) {
            cpuLru.insert(worker, hashes, n);
        }
    }

    /** The score the last {@link #route} gave {@code worker} (tests, debugging). */
    public double lastScore(int worker) {
        return scores[worker];
    }
}
