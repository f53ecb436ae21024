package io.tierroute.sim.policy.oracle;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.OracleView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The clairvoyant oracle: reads the exact engine state of every worker ({@link FleetView#oracle()}: each
 * request's progress, true output length, held and shared KV blocks, cache hits, the link's pending bytes)
 * and the request's true output length, and sends the request where it adds the least to the fleet's
 * latency. For each candidate worker it runs that worker's engine forward to the end of everything on it
 * ({@link WorkerForecast}: same steps, scheduling order and preemption rule as {@code engine.Worker}, no
 * future arrivals) twice, without and with the request r:
 *
 * <pre>
 * cost(w) = TTFT_r                                           r's own first token on w
 *         + Σ_i on w [ TTFT_i(with r) − TTFT_i(without r) ]  first tokens it delays (requests without one yet)
 *         + Σ_i on w [ JCT_i(with r)  − JCT_i(without r)  ]  completions it delays: the steps its prefill joins,
 *                                                            the slower decode steps its KV causes, the
 *                                                            preemptions it causes and their recompute
 * route   = argmin over the workers whose forecast has no more preemptions with r than without it
 *           (all workers when every one has): a placement that makes the engine preempt is taken only
 *           when every placement does
 * </pre>
 *
 * That is {@link OraclePricing#FLEET}, the policy {@code oracle}. {@link OraclePricing#FLEET_TTFT}, the policy
 * {@code oracle-ttft}, prices {@code TTFT_r + Σ ΔTTFT_i} alone, without the rule: the TTFT reference where the
 * fleet has headroom, which collapses under saturation.
 *
 * r's own decode time is not priced: it is the same order on every worker and pricing it (variant "full"
 * in fleet-sim/experiments/ROUNDS.md "Oracle round") trades the fleet's TTFT for it and collapsed at agentic-pcie 1.25.
 * It is greedy (one request at a time, no knowledge of future arrivals), so it is a strong clairvoyant
 * reference, not a proven bound: see that section for where it stands against the peers.
 */
public final class OraclePolicy implements RoutingPolicy {

    private final FleetView fleet;
    private final OraclePricing pricing;
    private final SplittableRandom random;
    private final List<OracleView.SeqState> seqs = new ArrayList<>();
    private WorkerForecast[] forecasts;

    public OraclePolicy(FleetView fleet, long seed) {
        this(fleet, OraclePricing.FLEET, seed);
    }

    public OraclePolicy(FleetView fleet, OraclePricing pricing, long seed) {
        this.fleet = fleet;
        this.pricing = pricing;
        this.random = new SplittableRandom(seed);
    }

    @Override public String name() { return pricing.policyName(); }
    @Override public String version() { return pricing.description(); }

    @Override
    public int route(SimRequest r, FleetView view, long nowMicros) {
        OracleView o = view.oracle();
        int best = -1;
        boolean bestPreempts = true;
        double bestCost = Double.POSITIVE_INFINITY;
        int ties = 0;
        for (int w = 0; w < view.workers(); w++) {
            Prediction p = predict(o, w, r);
            boolean preempts = pricing.avoidsAddedPreemption() && p.addedPreemptions() > 0;
            double cost = p.cost(pricing);
            if (preempts != bestPreempts ? !preempts : cost < bestCost - 1e-6) {
                best = w;
                bestPreempts = preempts;
                bestCost = cost;
                ties = 1;
            } else if (preempts == bestPreempts && Math.abs(cost - bestCost) <= 1e-6 && random.nextInt(++ties) == 0) {
                best = w;
            }
        }
        return best;
    }

    /**
     * What the forecasts predict for {@code r} on {@code w}, µs from now: its TTFT and JCT, the TTFT and JCT
     * it adds to the others, and the preemptions it adds.
     */
    record Prediction(double ttftMicros, double jctMicros, double addedTtftMicros, double addedJctMicros,
                      int addedPreemptions) {
        /** The class formula, µs. */
        double cost(OraclePricing pricing) {
            return ttftMicros + addedTtftMicros + (pricing.pricesAddedJct() ? addedJctMicros : 0);
        }
    }

    Prediction predict(OracleView o, int w, SimRequest r) {
        WorkerForecast f = forecast(o, w);
        o.sequences(w, r, seqs);
        OracleView.SeqState arrival = seqs.remove(seqs.size() - 1);
        double start = o.stepRemainingMicros(w);
        double link = o.pendingTransferBytes(w, Tier.CPU);
        double nvme = o.pendingTransferBytes(w, Tier.NVME);
        int n = seqs.size();
        double[] first = new double[n];
        double[] done = new double[n];
        List<WorkerForecast.Seq> base = f.run(seqs, null, start, link, nvme);
        for (int i = 0; i < n; i++) {
            first[i] = base.get(i).firstTokenAt;
            done[i] = base.get(i).finishedAt;
        }
        int basePreemptions = f.preemptions();
        List<WorkerForecast.Seq> with = f.run(seqs, arrival, start, link, nvme);
        double addedTtft = 0;
        double addedJct = 0;
        for (int i = 0; i < n; i++) {
            WorkerForecast.Seq s = with.get(i);
            if (!s.hadFirstToken) addedTtft += s.firstTokenAt - first[i];
            addedJct += s.finishedAt - done[i];
        }
        WorkerForecast.Seq me = with.get(n);
        return new Prediction(me.firstTokenAt, me.finishedAt, addedTtft, addedJct, f.preemptions() - basePreemptions);
    }

    /** The forecast of {@code w} with {@code r} at its queue's tail (for tests: each request's predicted times). */
    List<WorkerForecast.Seq> forecastWith(OracleView o, int w, SimRequest r) {
        o.sequences(w, r, seqs);
        OracleView.SeqState arrival = seqs.remove(seqs.size() - 1);
        return forecast(o, w).run(seqs, arrival, o.stepRemainingMicros(w),
                o.pendingTransferBytes(w, Tier.CPU), o.pendingTransferBytes(w, Tier.NVME));
    }

    private WorkerForecast forecast(OracleView o, int w) {
        if (forecasts == null) forecasts = new WorkerForecast[fleet.workers()];
        if (forecasts[w] == null) {
            forecasts[w] = new WorkerForecast(fleet.blockSize(), fleet.hbmCapacityBlocks(w), fleet.maxBatchedTokens(),
                    o.maxRunning(), fleet.bytesPerToken(), fleet.bandwidth(w, Tier.CPU),
                    fleet.bandwidth(w, Tier.NVME));
        }
        return forecasts[w];
    }
}
