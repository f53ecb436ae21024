package io.tierroute.selector.scheduling;

import io.tierroute.selector.sequences.InFlightTracker;

/**
 * Late binding: when a request is held in the admission queue instead of joining a busy worker's first-come-first-served
 * queue. Two bounds on this selector's requests waiting for their first token at a worker: fleet-wide
 * ({@link SelectorSettings#holdAtWaiting}: every eligible worker has that many) and at the request's cheapest worker
 * ({@link SelectorSettings#holdAtCheapestWaiting}); and the drain's quick checks that spare it scoring a queue nothing
 * can place. The counts are read without a lock, so routes deciding at the same instant may each see a worker under a
 * bound: soft bounds.
 */
final class LateBinding {

    private final SelectorSettings settings;
    private final InFlightTracker inflight;
    private final SilentWorkers silentWorkers;
    private final WorkerStatus status;
    private final WorkerSpec[] specs;

    LateBinding(SelectorSettings settings, InFlightTracker inflight, SilentWorkers silentWorkers, WorkerStatus status,
                WorkerSpec[] specs) {
        this.settings = settings;
        this.inflight = inflight;
        this.silentWorkers = silentWorkers;
        this.status = status;
        this.specs = specs;
    }

    /**
     * The waiting count at which a worker takes none of our requests under either bound: the smaller of
     * {@link SelectorSettings#holdAtWaiting} and {@link SelectorSettings#holdAtCheapestWaiting} that is on; 0 when both
     * are off.
     */
    int bound() {
        int fleet = settings.holdAtWaiting();
        int cheapest = settings.holdAtCheapestWaiting();
        return fleet == 0 ? cheapest : cheapest == 0 ? fleet : Math.min(fleet, cheapest);
    }

    /**
     * Applies both bounds to the candidates an attempt found eligible ({@code s}); true when the request is held. The
     * cheapest-worker bound may take workers out of the pick ({@link #cheapestEligibleWaits}).
     */
    boolean holds(AttemptScratch s, long now) {
        boolean fleetWide = settings.holdAtWaiting() > 0 && everyEligibleWaits(s);
        s.heldForCheapest = !fleetWide && settings.holdAtCheapestWaiting() > 0 && cheapestEligibleWaits(s, now);
        s.heldForLateBinding = fleetWide || s.heldForCheapest;
        return s.heldForLateBinding;
    }

    /**
     * Across the fleet ({@link SelectorSettings#holdAtWaiting}): every worker the request could go to already has K of
     * this selector's requests waiting for their first token. Held here instead of joining one of those queues, it is
     * scored again over every worker as soon as one of them has room, and the admission queue serves the cheapest at
     * that moment first, aged by the wait ({@link QueueDrain}; WSPT, DESIGN.md §3), instead of each worker its arrivals
     * in order.
     */
    private boolean everyEligibleWaits(AttemptScratch s) {
        boolean any = false;
        for (int w = 0; w < s.eligible.length; w++) {
            if (s.eligible[w]) {
                if (inflight.ownWaiting(w) < settings.holdAtWaiting()) {
                    return false;
                }
                any = true;
            }
        }
        return any;
    }

    /**
     * At the cheapest worker ({@link SelectorSettings#holdAtCheapestWaiting}): the cheapest worker the request could go
     * to already has K of this selector's requests waiting for their first token. Held instead of joining that worker's
     * queue, which the engine serves in arrival order, it is scored again over every worker at each drain: it goes to
     * that worker once it has room, or elsewhere once another has become cheaper. Not held, it is not bound to a worker
     * with K waiting either: those leave the pick (an exploring pick included). Sending it to the next-cheapest worker
     * instead measured far worse (fleet-sim/experiments/ROUNDS.md, "Cheapest-worker hold round"). A worker silent for
     * {@link SelectorSettings#holdAtCheapestSilentAfter} while ours wait there (a hung engine) leaves the pick and the
     * ranking first: nothing is held for it or bound to it until it works again.
     */
    private boolean cheapestEligibleWaits(AttemptScratch s, long now) {
        int k = settings.holdAtCheapestWaiting();
        int workers = s.eligible.length;
        for (int w = 0; w < workers; w++) {
            if (s.eligible[w] && silentWorkers.silent(w, now)) {
                s.eligible[w] = false;
                s.excluded[w] = Explanations.SILENT;
            }
        }
        double min = s.cheapestEligible();
        boolean cheapestHasRoom = false;
        for (int w = 0; w < workers; w++) {
            if (s.eligible[w] && inflight.ownWaiting(w) >= k) {
                s.eligible[w] = false;
                s.excluded[w] = Explanations.CHEAPEST_WAITS;
            } else if (s.eligible[w] && s.cost[w] == min) {
                cheapestHasRoom = true;
            }
        }
        return min < Double.POSITIVE_INFINITY && !cheapestHasRoom;
    }

    /**
     * Late binding is on and every worker that takes requests has {@link #bound} of ours waiting: then either bound
     * holds any request, whatever its candidates, so a drain need not score it. A silent worker counts as waiting:
     * nothing is bound to it.
     */
    boolean everyWorkerWaits(long now) {
        int k = bound();
        if (k == 0) {
            return false;
        }
        for (int w = 0; w < status.size(); w++) {
            if (status.takesRequests(w) && inflight.ownWaiting(w) < k && !silentUnderHold(w, now)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Some worker that takes requests is under its load limits and, under late binding, has fewer than {@link #bound}
     * of ours waiting, and is not silent: a drain that finds none places nothing, so it skips the dry runs (a telemetry
     * sample drains too, while every worker is full).
     */
    boolean someWorkerHasRoom(long now) {
        int k = bound();
        for (int w = 0; w < status.size(); w++) {
            if (status.takesRequests(w) && !LoadLimits.over(specs[w], inflight.view(w))
                    && (k == 0 || inflight.ownWaiting(w) < k) && !silentUnderHold(w, now)) {
                return true;
            }
        }
        return false;
    }

    /** Under the cheapest-worker bound, {@code w} is silent ({@link SilentWorkers}): neither held for nor bound to. */
    private boolean silentUnderHold(int w, long now) {
        return settings.holdAtCheapestWaiting() > 0 && silentWorkers.isSilent(w, now);
    }
}
