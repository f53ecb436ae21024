package io.tierroute.selector.scheduling;

import io.tierroute.selector.sequences.LoadView;

/**
 * Light-load spread ({@link SelectorSettings#spreadWithin}): while the fleet is lightly loaded, a candidate with more
 * than K requests in flight beyond the least-loaded eligible candidate leaves the pick, unless it is cheaper than every
 * candidate within K by at least {@link #KEEP_SAVING_US}. The least-loaded one always stays, so the
 * spread never empties the pick; under late binding it runs first, so a request whose remaining candidates all have
 * their bound of waiting requests is held for them (a first token there, rather than a batch K fuller elsewhere).
 *
 * <p>Why: at light load a request's completion time is mostly its decode, and the engine's decode step slows with the
 * KV its batch holds, so a worker that collects the requests of the prefixes it caches decodes every one of them
 * slower. The cost model prices time to first token and harm, not the newcomer's own decode, and at light load its
 * queue terms are near zero: it follows the cache wherever the batch is. In the simulator that left the mean JCT
 * 6–12 % behind routers that balance load at llmd-blog 0.5 and 1 and cpu-overflow 1 (ten seeds), while the first
 * token came no sooner than theirs. A small hit (a shared system prompt) is worth less than a lighter batch; a large
 * one (a workflow's 30 k-token context) is not, hence the saving that keeps a busier worker in the pick.
 * "Light" is the fleet's prefill duty D̄ (an EWMA over arrivals of the share of workers with a request waiting for its
 * first token, as {@code C_harm} reads it) at or below {@link #LIGHT_PREFILL_DUTY}: once first tokens queue, the queue
 * terms price the load, and spreading then costs hits the queues need (fleet-sim/experiments/ROUNDS.md, "Light-load
 * spread round").
 *
 * <p>A worker's load here is {@link LoadView#limitInFlight}, the larger of this selector's count and the engine's (its
 * running and waiting requests in the newest telemetry plus what this selector sent since), as the in-flight limit
 * reads it: the decode step slows with the whole batch, and with several selector replicas each one sends only part
 * of it. In the simulator, with one selector, the two counts route alike (every route equal to the last digit at
 * seeds 1–2, all 18 cells).
 */
final class LightLoadSpread {

    /** D̄ at or below which the fleet counts as lightly loaded. 0.05 left llmd-blog 1 behind, 0.2 hurt agentic 2. */
    static final double LIGHT_PREFILL_DUTY = 0.1;

    /**
     * µs of cost a busier candidate must save over every candidate within K to stay in the pick: 100 ms. 50 ms (at
     * K = 3) left llmd-blog 1 behind; without it agentic 1's p99 (long workflow contexts sent elsewhere) fell 11 %.
     */
    static final double KEEP_SAVING_US = 100_000;

    private final int within;

    /** @param within K, {@link SelectorSettings#spreadWithin}; 0: off */
    LightLoadSpread(int within) {
        this.within = within;
    }

    /**
     * Leaves out of the pick (marked {@link Explanations#SPREAD}) the eligible candidates of {@code s} (scored) that
     * the spread excludes; true when the cheapest candidate left is dearer than the cheapest before (it changed the
     * pick).
     */
    boolean apply(AttemptScratch s, double prefillDuty) {
        if (within == 0 || prefillDuty > LIGHT_PREFILL_DUTY) {
            return false;
        }
        int workers = s.eligible.length;
        long fewest = Long.MAX_VALUE;
        for (int w = 0; w < workers; w++) {
            if (s.eligible[w]) {
                fewest = Math.min(fewest, s.loads[w].limitInFlight());
            }
        }
        double bestWithin = Double.POSITIVE_INFINITY;
        double bestOverall = Double.POSITIVE_INFINITY;
        for (int w = 0; w < workers; w++) {
            if (s.eligible[w]) {
                bestOverall = Math.min(bestOverall, s.cost[w]);
                if (s.loads[w].limitInFlight() <= fewest + within) {
                    bestWithin = Math.min(bestWithin, s.cost[w]);
                }
            }
        }
        boolean any = false;
        for (int w = 0; w < workers; w++) {
            if (s.eligible[w] && s.loads[w].limitInFlight() > fewest + within
                    && bestWithin - s.cost[w] < KEEP_SAVING_US) {
                s.eligible[w] = false;
                s.excluded[w] = Explanations.SPREAD;
                any = true;
            }
        }
        return any && s.cheapestEligible() > bestOverall; // a kept worker as cheap as the one left out: no spread
    }

    /**
     * Puts back into the pick the candidates {@link #apply} left out of {@code s}: every one it kept was refused at
     * the admission (its last slot taken by a concurrent route). True when there were any.
     */
    boolean restore(AttemptScratch s) {
        boolean any = false;
        for (int w = 0; w < s.eligible.length; w++) {
            if (Explanations.SPREAD.equals(s.excluded[w])) {
                s.eligible[w] = true;
                s.excluded[w] = null;
                any = true;
            }
        }
        return any;
    }
}
