package io.tierroute.selector.scheduling;

import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.sequences.InFlightTracker;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Places queued requests once capacity frees (a first output, a finish, a telemetry sample, a worker back in service, a
 * tick): an overdue request that can be placed now first ({@link #overduePlaceable}: waited
 * {@link SelectorSettings#queueOverdueAfter}, the longest-waiting first); else the one cheapest now (less its wait's
 * credit) among the first few in the queue's order ({@link #cheapestNow}); and, once those are not admitted, down the
 * queue past requests that wait for a busy worker ({@link #DRAIN_SCAN_LIMIT}).
 * Claiming and admitting happen under the selector's drain lock; completing the futures (which runs callers'
 * callbacks, e.g. writing an HTTP answer) happens after it. One drain prices every attempt under the parameter set
 * active when it starts: its dry runs' ranks are compared with each other, and a hot reload in the middle of it would
 * otherwise rank some requests under one set and some under another, and place the winner under a third.
 */
final class QueueDrain {

    /**
     * One of {@link Selector}'s routing attempts, priced under {@code ps}; null when no candidate is eligible (details
     * left in {@code s}).
     */
    interface Attempts {
        RouteDecision attempt(RouteRequest request, PromptHashes known, long now, long queuedNanos, ParameterSet ps,
                              AttemptScratch s, AttemptKind kind);
    }

    /**
     * How far down the admission queue one drain looks once the head waits for its cheapest worker (late binding) or a
     * worker under its limits refused it for its size: a bound on the work done under the drain lock. Past it, each
     * drain looks at as many more, from where the last one stopped ({@link #beyondScanWindow}), so a request far down
     * whose cheapest worker has room is reached within a few drains (each first token, finish and sample is one).
     */
    static final int DRAIN_SCAN_LIMIT = 64;

    /**
     * How many of the first waiting requests a drain ranks again by their cost now, aged ({@link #cheapestNow}): a bound on
     * the dry runs under the drain lock. 16 to the whole queue measured alike (ROUNDS.md, "Re-ranking round").
     */
    static final int RERANK_WINDOW = 16;

    private static final int NO_SIZE_REFUSAL = 0;
    private static final int SOME_SIZE_REFUSALS = 1;
    private static final int ONLY_SIZE_REFUSALS = 2;

    private final AdmissionQueue queue;
    private final Object lock;
    private final Attempts attempts;
    private final Supplier<ParameterSet> params;
    private final LateBinding lateBinding;
    private final WorkerStatus status;
    private final WorkerSpec[] specs;
    private final InFlightTracker inflight;
    private final LongSupplier clock;
    private final Supplier<AttemptScratch> scratch;
    private final Consumer<RouteDecision> admittedThenCancelled;
    /** {@link SelectorSettings#queueOverdueAfter}, ns; 0: never overdue. */
    private final long overdueNanos;
    /** Overdue requests placed while another request led the cost order. */
    private final LongAdder overduePlaced = new LongAdder();
    /** Dry runs the drains made (the work they do under the lock beyond their placements). */
    private final LongAdder dryRuns = new LongAdder();
    /**
     * The requests {@link #overduePlaceable}'s dry runs found unplaceable at this instant, which {@link #cheapestNow}
     * then does not try again (nothing was admitted in between). At most {@link #RERANK_WINDOW}; under the lock.
     */
    private final List<AdmissionQueue.Pending> unplaceableNow = new ArrayList<>(RERANK_WINDOW);

    /** Where the last drain's look past its first window stopped; null: from the window's end. Under the lock. */
    private AdmissionQueue.Pending scanCursor;

    /**
     * @param lock                  the selector's drain lock, which guards {@code queue}
     * @param params                the active parameter set, read once at the start of each drain
     * @param admittedThenCancelled gives a worker its slot back when a request's caller cancelled after the drain
     *                              admitted it
     * @param overdueNanos          how long a request waits before it is overdue (0: never)
     */
    QueueDrain(AdmissionQueue queue, Object lock, Attempts attempts, Supplier<ParameterSet> params,
               LateBinding lateBinding, WorkerStatus status, WorkerSpec[] specs, InFlightTracker inflight,
               LongSupplier clock, Supplier<AttemptScratch> scratch,
               Consumer<RouteDecision> admittedThenCancelled, long overdueNanos) {
        this.queue = queue;
        this.lock = lock;
        this.attempts = attempts;
        this.params = params;
        this.lateBinding = lateBinding;
        this.status = status;
        this.specs = specs;
        this.inflight = inflight;
        this.clock = clock;
        this.scratch = scratch;
        this.admittedThenCancelled = admittedThenCancelled;
        this.overdueNanos = overdueNanos;
    }

    /** Overdue requests a drain placed while another request led the cost order (ahead of it). */
    long overduePlaced() {
        return overduePlaced.sum();
    }

    /** Dry runs the drains made to choose what to place. */
    long dryRuns() {
        return dryRuns.sum();
    }

    /** Routes queued requests in the queue's order while a worker is eligible; cheap when nobody waits. */
    void drain() {
        if (queue.size() == 0) {
            return;
        }
        List<AdmissionQueue.Pending> claimed = new ArrayList<>();
        List<Object> outcomes = new ArrayList<>(); // a RouteDecision or the RuntimeException it failed with
        synchronized (lock) {
            AttemptScratch s = scratch.get();
            ParameterSet ps = params.get(); // one set for the whole drain (class comment)
            // The head first, while it is admitted; once it is not, the next ones in the queue's order (see below).
            List<AdmissionQueue.Pending> scan = null;
            int next = 0;
            boolean extended = false; // the scan went on past its first window, from scanCursor
            int refusedFrom = Integer.MAX_VALUE; // the shortest exact prompt a worker under its limits refused for size
            AdmissionQueue.Pending firstTried = null; // the request tried before the scan began: not tried twice
            while (true) {
                AdmissionQueue.Pending head = scan == null ? queue.peek() : next < scan.size() ? scan.get(next++) : null;
                if (head == null && scan != null && !extended && scan.size() == DRAIN_SCAN_LIMIT) {
                    extended = true;
                    scan = beyondScanWindow(scan.get(scan.size() - 1));
                    next = 0;
                    continue;
                }
                if (head == null) {
                    break;
                }
                if (head == firstTried) {
                    continue;
                }
                if (head.future().isDone()) { // cancelled: the caller went away while it waited
                    queue.remove(head);
                    continue;
                }
                long now = clock.getAsLong();
                if (lateBinding.everyWorkerWaits(now)) {
                    break; // late binding holds any request now: no attempt (drains come at every sample and tick)
                }
                boolean windowUnplaceable = false; // cheapestNow's dry runs could place none of the first ones
                boolean overdueAhead = false; // an overdue request chosen over the head of the cost order
                // Nothing to choose between when the head waits alone or no worker has room: its own attempt decides.
                if (scan == null && queue.size() >= 2 && lateBinding.someWorkerHasRoom(now)) {
                    unplaceableNow.clear();
                    AdmissionQueue.Pending late = overduePlaceable(now, ps, s);
                    if (late != null) {
                        overdueAhead = late != head;
                        head = late;
                    } else {
                        AdmissionQueue.Pending best = cheapestNow(now, ps, s);
                        windowUnplaceable = best == null;
                        head = windowUnplaceable ? head : best;
                    }
                    unplaceableNow.clear(); // holds no request (and its prompt) past this instant
                }
                int length = judgedLength(head.request());
                if (scan != null && length >= refusedFrom) {
                    continue; // every worker under its limits is too small for it too: no attempt
                }
                Object outcome;
                try {
                    outcome = attempts.attempt(head.request(), head.hashes(), now, now - head.enqueuedNanos(), ps,
                            s, AttemptKind.RETRY);
                } catch (RuntimeException e) {
                    outcome = e;
                }
                if (outcome == null) {
                    // Whether a worker is a candidate depends on the request too (its cheapest worker under late
                    // binding, a prompt larger than its KV cache): a head that waits for a busy worker must not keep a
                    // free one from the requests behind it. Then (held for its cheapest worker, or a worker under its
                    // limits refused it for its size alone) look further down the queue, past prompts at least as long
                    // where it was the size (admitting only adds load, so a request passed over stays unplaceable in
                    // this drain); otherwise every worker is over its limits and the drain stops.
                    if (!s.heldForCheapest) {
                        int refusal = sizeRefusal(s);
                        if (refusal == NO_SIZE_REFUSAL) {
                            break;
                        }
                        if (refusal == ONLY_SIZE_REFUSALS) { // every free worker is too small for it: its length is exact
                            refusedFrom = Math.min(refusedFrom, length);
                        }
                    }
                    if (scan == null) {
                        scan = queue.firstInOrder(DRAIN_SCAN_LIMIT);
                        // past the ones cheapestNow's dry runs found unplaceable, at this same instant
                        next = windowUnplaceable ? Math.min(RERANK_WINDOW, scan.size()) : 0;
                        firstTried = head; // cheapestNow may have tried one other than the queue's head
                    }
                    continue;
                }
                queue.remove(head);
                claimed.add(head);
                outcomes.add(outcome);
                if (overdueAhead && outcome instanceof RouteDecision) {
                    overduePlaced.increment();
                }
            }
        }
        for (int i = 0; i < claimed.size(); i++) {
            CompletableFuture<RouteDecision> future = claimed.get(i).future();
            Object outcome = outcomes.get(i);
            if (outcome instanceof RouteDecision d) {
                if (!future.complete(d)) {
                    admittedThenCancelled.accept(d); // its caller gave up meanwhile: give the worker its slot back
                }
            } else {
                future.completeExceptionally((RuntimeException) outcome);
            }
        }
    }

    /**
     * The next {@link #DRAIN_SCAN_LIMIT} waiting requests after {@code windowEnd} (the last of the first window), from
     * where the previous drain stopped if that is further down; it starts again after the window once it reaches the
     * queue's end.
     */
    private List<AdmissionQueue.Pending> beyondScanWindow(AdmissionQueue.Pending windowEnd) {
        AdmissionQueue.Pending from = scanCursor != null && AdmissionQueue.servedAfter(scanCursor, windowEnd)
                ? scanCursor : windowEnd;
        List<AdmissionQueue.Pending> more = queue.afterInOrder(from, DRAIN_SCAN_LIMIT);
        scanCursor = more.size() < DRAIN_SCAN_LIMIT ? null : more.get(more.size() - 1);
        return more;
    }

    /**
     * The longest-waiting request that is overdue ({@link SelectorSettings#queueOverdueAfter}) and placeable now, of the
     * first {@link #RERANK_WINDOW} to arrive; null when none is. It goes before the cost order: under overload that order
     * can keep an expensive request waiting for minutes.
     */
    private AdmissionQueue.Pending overduePlaceable(long now, ParameterSet ps, AttemptScratch s) {
        AdmissionQueue.Pending oldest = queue.longestWaiting();
        if (overdueNanos == 0 || oldest == null || now - oldest.enqueuedNanos() < overdueNanos) {
            return null; // the common case, without copying the arrival order
        }
        for (AdmissionQueue.Pending p : queue.firstArrived(RERANK_WINDOW)) {
            if (now - p.enqueuedNanos() < overdueNanos) {
                return null; // arrival order: the rest have waited less
            }
            if (dryRun(p, now, ps, s) != DryRun.UNPLACEABLE) {
                return p;
            }
            unplaceableNow.add(p);
        }
        return null;
    }

    /** What a dry run says of a waiting request now. */
    private enum DryRun { PLACEABLE, UNPLACEABLE, FAILS }

    /**
     * A waiting request's dry run: placeable now, not (cancelled, or no worker it could go to has room, or its cheapest
     * has K waiting), or failing (its real attempt fails it to its caller at once, instead of leaving it to time out).
     */
    private DryRun dryRun(AdmissionQueue.Pending p, long now, ParameterSet ps, AttemptScratch s) {
        if (p.future().isDone()) {
            return DryRun.UNPLACEABLE; // cancelled: the drain removes it when it reaches it
        }
        dryRuns.increment();
        try {
            return attempts.attempt(p.request(), p.hashes(), now, 0, ps, s, AttemptKind.DRY_RUN) != null
                    ? DryRun.PLACEABLE : DryRun.UNPLACEABLE;
        } catch (RuntimeException e) {
            return DryRun.FAILS;
        }
    }

    /**
     * The request to place next: of the first {@link #RERANK_WINDOW} in the queue's order and placeable now (those the
     * overdue check has just found unplaceable are not tried again: {@link #unplaceableNow}), the one
     * with the lowest cost now over the workers it could go to (under the cheapest-worker bound that is a worker with
     * room; under the fleet-wide bound alone, possibly a busy one that holds its prefix), less its wait's credit
     * ({@link AdmissionQueue#rankNow}); null when none can be placed now. Called when another waits and a worker has
     * room. Whatever made the queue (late binding or load limits). A request's place was set by
     * its cost at arrival, and by the time a worker frees, queues, the link and the cache have moved: the one cheapest
     * now (often a prefix that has just landed in HBM) frees capacity soonest. WSPT on the fleet's present state, not on
     * the one each request found (DESIGN.md §3's priority, read at dispatch), aged as the queue is.
     * The dry runs, like a preview, mark the prefixes they walk as recently used in the index.
     */
    private AdmissionQueue.Pending cheapestNow(long now, ParameterSet ps, AttemptScratch s) {
        AdmissionQueue.Pending best = null;
        double bestRank = Double.POSITIVE_INFINITY;
        for (AdmissionQueue.Pending p : queue.firstInOrder(RERANK_WINDOW)) {
            if (foundUnplaceableNow(p)) {
                continue;
            }
            DryRun dry = dryRun(p, now, ps, s);
            if (dry == DryRun.FAILS) {
                return p;
            }
            if (dry == DryRun.PLACEABLE) {
                double rank = queue.rankNow(p, s.cheapestEligible(), now);
                if (rank < bestRank) {
                    bestRank = rank;
                    best = p;
                }
            }
        }
        return best;
    }

    /** Whether {@link #overduePlaceable} found {@code p} unplaceable at this instant (by identity). */
    private boolean foundUnplaceableNow(AdmissionQueue.Pending p) {
        for (int i = 0; i < unplaceableNow.size(); i++) {
            if (unplaceableNow.get(i) == p) {
                return true;
            }
        }
        return false;
    }

    /**
     * After a failed attempt, what the workers under their load limits said: none turned the request away for its size
     * ({@link #NO_SIZE_REFUSAL}), some did ({@link #SOME_SIZE_REFUSALS}; another was excluded for its cost), or all of
     * them did ({@link #ONLY_SIZE_REFUSALS}: a longer prompt fits none of them either).
     */
    private int sizeRefusal(AttemptScratch s) {
        boolean some = false;
        boolean other = false;
        for (int w = 0; w < status.size(); w++) {
            if (status.takesRequests(w) && !LoadLimits.over(specs[w], inflight.view(w))) {
                if (s.excluded[w] == Explanations.PROMPT_TOO_LARGE) {
                    some = true;
                } else {
                    other = true;
                }
            }
        }
        return !some ? NO_SIZE_REFUSAL : other ? SOME_SIZE_REFUSALS : ONLY_SIZE_REFUSALS;
    }

    /**
     * The prompt length a worker's KV cache is judged on ({@link Selector}'s attempt); -1 when it is estimated from
     * text, which no worker refuses for size (the engine that tokenizes it is the judge).
     */
    private static int judgedLength(RouteRequest r) {
        return r.inputTokens() != null ? r.inputTokens() : r.tokens() != null ? r.tokens().length : -1;
    }
}
