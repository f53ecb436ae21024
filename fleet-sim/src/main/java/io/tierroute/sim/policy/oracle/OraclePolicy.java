package io.tierroute.sim.policy.oracle;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.engine.StepTimeModel;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.OracleView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;

import java.util.SplittableRandom;

/**
 * The clairvoyant greedy oracle: reads the exact engine state ({@link FleetView#oracle()}: tier
 * holdings that are matchable now, queued prefill work, in-flight loads, KV use, true remaining
 * output) and the request's true output length, and sends the request where the engine model
 * ({@link StepTimeModel}) predicts it finishes first:
 *
 * <pre>
 * load    = (pending link bytes + CPU-hit bytes) / BW                 (processor sharing, worst case)
 * prefill = chunked prefill time of (queued prefill tokens + own uncached tokens) at the step budget,
 *           each step also paying a decode step for the running batch
 * kvWait  = when the request's blocks do not fit beside the held ones: the mean remaining decode of
 *           the running batch, in decode steps
 * finish  = max(load, prefill) + kvWait + true output × decode step time
 * </pre>
 *
 * Ties go to a seeded random worker. It is greedy (it does not plan for future arrivals), so it is a
 * strong reference, not a proven bound.
 */
public final class OraclePolicy implements RoutingPolicy {

    public static final String NAME = "oracle";

    private final FleetView fleet;
    private final SplittableRandom random;
    private final int[] matched = new int[Tier.COUNT];

    public OraclePolicy(FleetView fleet, long seed) {
        this.fleet = fleet;
        this.random = new SplittableRandom(seed);
    }

    @Override public String name() { return NAME; }
    @Override public String version() { return "clairvoyant greedy (exact state, true output lengths)"; }

    @Override
    public int route(SimRequest r, FleetView view, long nowMicros) {
        OracleView o = view.oracle();
        int best = -1;
        double bestCost = Double.POSITIVE_INFINITY;
        int ties = 0;
        for (int w = 0; w < view.workers(); w++) {
            double cost = predictFinishMicros(o, w, r);
            if (cost < bestCost - 1e-6) {
                best = w;
                bestCost = cost;
                ties = 1;
            } else if (Math.abs(cost - bestCost) <= 1e-6 && random.nextInt(++ties) == 0) {
                best = w;
            }
        }
        return best;
    }

    /** Predicted time from now until {@code r} would finish on {@code w}, µs. */
    double predictFinishMicros(OracleView o, int w, SimRequest r) {
        int bs = fleet.blockSize();
        o.matchedBlocks(w, r, matched);
        long hbmHit = (long) matched[Tier.HBM.ordinal()] * bs;
        long cpuHit = (long) matched[Tier.CPU.ordinal()] * bs;
        long own = r.promptTokens() - hbmHit - cpuHit;
        double bw = fleet.bandwidth(w, Tier.CPU);
        double load = cpuHit == 0 || bw <= 0 ? 0 : (o.pendingTransferBytes(w) + cpuHit * fleet.bytesPerToken()) / bw * 1e6;

        double capacity = fleet.hbmCapacityBlocks(w);
        double u = Math.min(1.0, o.usedBlocks(w) / capacity);
        int running = o.running(w);
        double decodeStepMs = running > 0 ? StepTimeModel.decodeMillis(u) : 0;
        long budget = Math.max(1, fleet.maxBatchedTokens() - running);
        long tokens = o.pendingPrefillTokens(w) + own;
        long fullChunks = tokens / budget;
        long rest = tokens % budget;
        double prefillMs = fullChunks * (StepTimeModel.prefillMillis(budget) + decodeStepMs)
                + (rest > 0 ? StepTimeModel.prefillMillis(rest) + decodeStepMs : 0);

        long needBlocks = (r.promptTokens() + r.trueOutputTokensForOracleOnly() + bs - 1) / bs - matched[Tier.HBM.ordinal()];
        double kvWaitMs = 0;
        if (o.usedBlocks(w) + needBlocks > capacity && running > 0) {
            kvWaitMs = (double) o.remainingDecodeTokens(w) / running * StepTimeModel.decodeMillis(u);
        }
        double decodeMs = r.trueOutputTokensForOracleOnly() * StepTimeModel.decodeMillis(Math.min(1.0, u + needBlocks / capacity));
        return Math.max(load, prefillMs * 1000) + (kvWaitMs + decodeMs) * 1000;
    }
}
