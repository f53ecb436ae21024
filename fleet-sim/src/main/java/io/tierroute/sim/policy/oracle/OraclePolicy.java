package io.tierroute.sim.policy.oracle;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.engine.StepTimeModel;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.OracleView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * The clairvoyant oracle: reads the exact engine state of every worker ({@link FleetView#oracle()}: each
 * request's remaining prefill, true remaining output, held KV, queue order, the link's pending bytes,
 * tier holdings matchable now) and the request's true output length, and for each candidate worker
 * <b>forward-simulates that worker's engine</b> (same step model and scheduling order as
 * {@code engine.Worker}, no future arrivals) until the request's first token:
 *
 * <pre>
 * step: decoding requests take 1 token of the budget each; running prefills (admission order) then the
 *       queue (FCFS, the request last) take chunks of what is left while KV and the batch limit allow;
 *       step time = StepTimeModel(prefill tokens, decode tokens, u); a decoder finishing frees its KV;
 *       when KV overflows the most recently admitted prefilling request is preempted (recompute).
 * TTFT  = time to the step that completes the request's prefill (its CPU-tier part loads first over the
 *         link: (pending link bytes + its CPU-hit bytes) / BW)
 * own   = true output × decode step time at the KV utilisation with the request added
 * harm  = Σ over the request's prefill steps of (step time added) × (other requests on the worker)
 *       + Σ over decoders of min(their remaining, its output) × (decode step slowdown from its KV)
 * cost  = TTFT + HARM_WEIGHT·(own + harm)
 * </pre>
 *
 * It is greedy (it cannot know future arrivals), so it is a strong clairvoyant reference; it is not a
 * proven bound (see fleet-sim/README.md for where a peer still beats it).
 */
public final class OraclePolicy implements RoutingPolicy {

    public static final String NAME = "oracle";
    /** Weight of the JCT terms (own decode, harm to others) against the request's own TTFT. */
    static final double HARM_WEIGHT = 0.1;
    private static final int MAX_STEPS = 20_000;

    private final FleetView fleet;
    private final SplittableRandom random;
    private final int[] matched = new int[Tier.COUNT];
    private final List<OracleView.SeqState> seqs = new ArrayList<>();

    public OraclePolicy(FleetView fleet, long seed) {
        this.fleet = fleet;
        this.random = new SplittableRandom(seed);
    }

    @Override public String name() { return NAME; }
    @Override public String version() { return "clairvoyant forward simulation (exact state, true output lengths)"; }

    @Override
    public int route(SimRequest r, FleetView view, long nowMicros) {
        OracleView o = view.oracle();
        int best = -1;
        double bestCost = Double.POSITIVE_INFINITY;
        int ties = 0;
        for (int w = 0; w < view.workers(); w++) {
            double cost = cost(o, w, r);
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

    /** A request in the forward simulation. */
    private static final class S {
        long pending;      // tokens still to prefill
        final long target; // tokens to prefill from scratch after a preemption
        long decode;       // tokens still to generate
        long held;         // KV tokens held
        final boolean self;

        S(long pending, long target, long decode, long held, boolean self) {
            this.pending = pending; this.target = target; this.decode = decode; this.held = held; this.self = self;
        }
    }

    /** Predicted cost of sending {@code r} to {@code w}, µs. */
    double cost(OracleView o, int w, SimRequest r) {
        Prediction p = predict(o, w, r);
        return p.ttftMicros + HARM_WEIGHT * (p.ownDecodeMicros + p.harmMicros);
    }

    /** What the forward simulation predicts for {@code r} on {@code w}. */
    record Prediction(double ttftMicros, double ownDecodeMicros, double harmMicros) {}

    Prediction predict(OracleView o, int w, SimRequest r) {
        int bs = fleet.blockSize();
        o.matchedBlocks(w, r, matched);
        long hbmHit = (long) matched[Tier.HBM.ordinal()] * bs;
        long cpuHit = (long) matched[Tier.CPU.ordinal()] * bs;
        long own = r.promptTokens() - hbmHit - cpuHit;
        double bw = fleet.bandwidth(w, Tier.CPU);
        double loadMicros = cpuHit == 0 || bw <= 0 ? 0
                : (o.pendingTransferBytes(w) + cpuHit * fleet.bytesPerToken()) / bw * 1e6;
        long trueOut = r.trueOutputTokensForOracleOnly();

        double cap = (double) fleet.hbmCapacityBlocks(w) * bs;
        int budgetMax = fleet.maxBatchedTokens();
        o.sequences(w, seqs);
        // decoders: ordered by the step at which they finish (remaining decode); prefillers in admission order
        PriorityQueue<long[]> decoders = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0])); // {finishStep, KV released at finish − finishStep}
        ArrayList<S> prefilling = new ArrayList<>();
        ArrayDeque<S> queue = new ArrayDeque<>();
        double used = (double) o.usedBlocks(w) * bs;
        for (OracleView.SeqState q : seqs) {
            if (q.running() && q.pendingPrefill() == 0) {
                if (q.remainingDecode() > 0) decoders.add(new long[] {q.remainingDecode(), q.heldTokens()});
            } else if (q.running()) {
                prefilling.add(new S(q.pendingPrefill(), q.contextTokens(), q.remainingDecode(), q.heldTokens(), false));
            } else {
                queue.addLast(new S(q.pendingPrefill(), q.contextTokens(), q.remainingDecode(), q.heldTokens(), false));
            }
        }
        S me = new S(own, r.promptTokens(), trueOut, hbmHit + cpuHit, true);
        used += cpuHit; // its CPU hit is loaded into newly reserved blocks (HBM hits are mostly referenced already)
        queue.addLast(me);
        int maxRunning = 256;

        double t = 0;
        double harm = 0;
        long step = 0;
        while (step < MAX_STEPS) {
            int budget = budgetMax;
            int nd = Math.min(decoders.size(), budget);
            budget -= nd;
            long prefillTokens = 0;
            long myChunk = 0;
            boolean admitted = false;
            // running prefills, admission order
            for (int i = 0; i < prefilling.size() && budget > 0; i++) {
                S s = prefilling.get(i);
                long chunk = Math.min(s.pending, budget);
                if (used + chunk > cap) {
                    // KV overflow: the most recently admitted prefill loses its blocks and requeues at the head
                    S victim = prefilling.remove(prefilling.size() - 1);
                    used -= victim.held;
                    victim.held = 0;
                    victim.pending = victim.target;
                    queue.addFirst(victim);
                    if (victim == s) break;
                    chunk = Math.min(s.pending, budget);
                    if (used + chunk > cap) break;
                }
                s.pending -= chunk;
                s.held += chunk;
                used += chunk;
                budget -= chunk;
                prefillTokens += chunk;
                if (s.self) myChunk = chunk;
            }
            // admissions, FCFS; the request waits for its tier load
            while (budget > 0 && prefilling.size() + decoders.size() < maxRunning && !queue.isEmpty()) {
                S s = queue.peekFirst();
                if (s.self && t < loadMicros) break;
                long chunk = Math.min(s.pending, budget);
                if (used + chunk > cap) break;
                queue.pollFirst();
                prefilling.add(s);
                admitted = true;
                s.pending -= chunk;
                s.held += chunk;
                used += chunk;
                budget -= chunk;
                prefillTokens += chunk;
                if (s.self) myChunk = chunk;
            }
            if (prefillTokens == 0 && nd == 0 && !admitted) {
                if (me.pending > 0 && t < loadMicros) {
                    t = loadMicros; // idle until the request's CPU-tier blocks are in
                    continue;
                }
                return new Prediction(t + 1e9, 0, 0); // wedged: KV cannot take the request
            }
            double u = Math.min(1.0, used / cap);
            double stepUs = StepTimeModel.stepMicros(prefillTokens, nd, u);
            if (myChunk > 0) {
                double without = StepTimeModel.stepMicros(prefillTokens - myChunk, nd, u);
                int others = nd + prefilling.size() - 1 + queue.size();
                harm += (stepUs - without) * others;
            }
            t += stepUs;
            step++;
            used += nd; // each decoder's KV grows by one token
            while (!decoders.isEmpty() && decoders.peek()[0] <= step) {
                long[] d = decoders.poll();
                used -= d[1] + d[0]; // held when it started decoding + generated since
            }
            for (int i = prefilling.size() - 1; i >= 0; i--) {
                S s = prefilling.get(i);
                if (s.pending == 0) {
                    prefilling.remove(i);
                    if (s.self) {
                        double uAfter = Math.min(1.0, used / cap);
                        double stepMs = StepTimeModel.decodeMillis(uAfter);
                        double ownDecode = Math.max(0, trueOut - 1) * stepMs * 1000;
                        double slow = (StepTimeModel.decodeMillis(Math.min(1.0, (used + trueOut) / cap))
                                - StepTimeModel.decodeMillis(Math.min(1.0, (used - s.held) / cap))) * 1000;
                        for (long[] d : decoders) {
                            harm += Math.min(d[0] - step, trueOut) * Math.max(0, slow);
                        }
                        return new Prediction(t, ownDecode, harm);
                    }
                    if (s.decode > 1) decoders.add(new long[] {step + s.decode - 1, s.held - step});
                    else used -= s.held;
                }
            }
        }
        return new Prediction(t + 1e9, 0, 0);
    }
}
