package io.tierroute.sim.policy.peers.dynamo;

import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.peers.Ties;

import java.util.SplittableRandom;

/**
 * NVIDIA Dynamo's KV router, default selector (ai-dynamo kv-router v1.6.0, 2026; PEERS.md §3), and
 * its pinned "Dynamo 2025" and approximate variants ({@link DynamoConfig}).
 *
 * <pre>
 * device, host, disk = matched blocks on GPU, then extension on CPU, then on disk/external
 * credit   = w_d·device + w_h·host + w_k·disk                       (2026: 1.0 / 0.75 / 0.25; 2025: 1 / 0 / 0)
 * prefill  = max(0, (active_prefill_tokens(w) + ISL) / bs − credit)
 * decode   = active_decode_blocks(w) + new blocks of r not already held by w's in-flight requests
 * logit(w) = prefill_weight·prefill + decode;  pick argmin, ties uniformly at random (seeded)
 * </pre>
 *
 * <p><b>Index.</b> selector-runtime's {@link RunPrefixIndex} fed by the engine's KV events; its
 * cumulative depths give {@code device = depth(HBM)}, {@code host = depth(≤CPU) − depth(HBM)},
 * {@code disk = depth(≤REMOTE) − depth(≤CPU)}. Upstream walks the host extension over host-resident
 * blocks only; a cumulative depth also lets a block past the device depth that is (again) on the GPU
 * but not on the host continue the extension. The simulator moves a block between tiers rather than
 * copying it, so this differs only in that rare case. In approximate mode the index ignores events and
 * records each decision's full blocks on the GPU tier for 120 s ({@code recordRouted}).
 *
 * <p><b>Bookkeeping.</b> {@link ActiveSequences}: a request's prefill tokens
 * ({@code max(0, ISL − credit·bs)} on its worker, as the router computed at routing time) count until
 * its first token, its blocks until it finishes. Temperature 0 by default; if positive, samples
 * {@code softmax(−norm/T)} over min-max normalised logits.
 */
public final class DynamoPolicy implements RoutingPolicy {

    private static final long EXPIRE_EVERY_MICROS = 1_000_000L;

    private final DynamoConfig config;
    private final int workers;
    private final RunPrefixIndex index;
    private final PrefixMatch match;
    private final ActiveSequences active;
    private final SplittableRandom random;
    private final double[] logits;
    private final double[] credits;
    private String lastRouted;
    private long nextExpireAt;

    public DynamoPolicy(DynamoConfig config, int workers, long seed) {
        this.config = config;
        this.workers = workers;
        this.index = RunPrefixIndex.builder().workers(workers).build();
        this.match = new PrefixMatch(workers);
        this.active = new ActiveSequences(workers);
        this.random = new SplittableRandom(seed);
        this.logits = new double[workers];
        this.credits = new double[workers];
    }

    @Override public String name() { return config.name(); }
    @Override public String version() { return config.version(); }

    @Override
    public void onKvEvent(KvEvent event, long nowMicros) {
        if (config.kvEvents()) {
            index.apply(event);
        }
    }

    @Override
    public int route(SimRequest request, FleetView view, long nowMicros) {
        if (!config.kvEvents() && nowMicros >= nextExpireAt) {
            index.expire(nowMicros * 1000);
            nextExpireAt = nowMicros + EXPIRE_EVERY_MICROS;
        }
        long[] hashes = request.blockHashes();
        index.match(hashes, hashes.length, nowMicros * 1000, match);
        int bs = request.blockSize();
        int tail = request.promptTokens() % bs == 0 ? 0 : 1;
        for (int w = 0; w < workers; w++) {
            int device = match.cumulativeBlocks(w, Tier.HBM.ordinal());
            int host = match.blocksOnTier(w, Tier.CPU.ordinal());
            int disk = match.totalBlocks(w) - match.cumulativeBlocks(w, Tier.CPU.ordinal());
            double credit = config.deviceWeight() * device + config.hostWeight() * host + config.diskWeight() * disk;
            credits[w] = credit;
            double prefill = Math.max(0.0,
                    (double) (active.activePrefillTokens(w) + request.promptTokens()) / bs - credit);
            double decode = active.activeBlocks(w) + active.newBlocks(w, hashes, hashes.length, tail);
            logits[w] = config.prefillWeight() * prefill + decode;
        }
        lastRouted = request.id();
        return config.temperature() > 0 ? softmaxSample() : Ties.argmin(logits, workers, random);
    }

    private int softmaxSample() {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int w = 0; w < workers; w++) {
            min = Math.min(min, logits[w]);
            max = Math.max(max, logits[w]);
        }
        if (max == min) {
            return random.nextInt(workers);
        }
        double sum = 0;
        double[] p = new double[workers];
        for (int w = 0; w < workers; w++) {
            p[w] = Math.exp(-((logits[w] - min) / (max - min)) / config.temperature());
            sum += p[w];
        }
        double u = random.nextDouble() * sum;
        for (int w = 0; w < workers; w++) {
            u -= p[w];
            if (u < 0) {
                return w;
            }
        }
        return workers - 1;
    }

    @Override
    public void onRouted(SimRequest request, int worker, long nowMicros) {
        int bs = request.blockSize();
        double credit = request.id().equals(lastRouted) ? credits[worker] : 0.0;
        long prefill = Math.max(0L, Math.round(request.promptTokens() - credit * bs));
        int tail = request.promptTokens() % bs == 0 ? 0 : 1;
        long[] hashes = request.blockHashes();
        active.add(request.id(), worker, hashes, hashes.length, tail, prefill);
        if (!config.kvEvents()) {
            index.recordRouted(worker, hashes, hashes.length, nowMicros * 1000, config.approxTtlMicros() * 1000);
        }
    }

    @Override
    public void onFirstToken(SimRequest request, int worker, long nowMicros) {
        active.firstToken(request.id());
    }

    @Override
    public void onFinished(SimRequest request, int worker, int outputTokens, long nowMicros) {
        active.finish(request.id());
    }

    /** The logit computed for {@code worker} by the last {@link #route} (tests, debugging). */
    public double lastLogit(int worker) {
        return logits[worker];
    }

    /** The overlap credit computed for {@code worker} by the last {@link #route}. */
    public double lastCredit(int worker) {
        return credits[worker];
    }
}
