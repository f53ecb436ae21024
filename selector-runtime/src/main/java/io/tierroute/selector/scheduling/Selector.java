package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.PrefixIndex;
import io.tierroute.selector.ingest.IndexWriter;
import io.tierroute.selector.params.OutputLengthModel;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.scheduling.RouteDecision.PredictionSource;
import io.tierroute.selector.sequences.EventEffect;
import io.tierroute.selector.sequences.InFlightTracker;
import io.tierroute.selector.sequences.LoadView;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sequences.Telemetry;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * Routes a request to the worker where it will finish soonest: hash the prompt, look up every
 * worker's matched prefix per tier, score every candidate with {@link CostModel}, drop the ones a
 * hard filter excludes, and pick. The one implementation behind the HTTP server, the simulator and
 * the benchmarks.
 *
 * <p>Thread-safe: any number of threads route concurrently; each reads the active parameter set
 * once, so a decision never mixes two snapshots.
 */
public final class Selector {

    private static final int UNHEALTHY = 1;
    private static final int DRAINING = 2;

    private final SelectorSettings settings;
    private final WorkerRegistry registry;
    private final UnpricedTiers unpricedTiers;
    private final PrefixIndex index;
    private final IndexWriter writer;
    private final ParameterStore params;
    private final InFlightTracker inflight;
    private final SilentWorkers silentWorkers;
    private final WorkflowAffinity workflows;
    private final ToolAffinity tools;
    private final Picker picker;
    private final AdmissionQueue queue;
    private final LongSupplier clock;
    private final RandomGenerator seededRandom; // null: per-thread randomness
    private final AtomicIntegerArray status;
    private final WorkerSpec[] specs;
    private final ThreadLocal<Scratch> scratch;
    private final Object drainLock = new Object();
    private final FleetRates fleetRates = new FleetRates(); // D̄ and λ_w for C_harm
    private final ComputingClaims claims = new ComputingClaims(); // of requests with no output yet
    private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;
    private volatile long lastSweepNanos = Long.MIN_VALUE / 2;
    private volatile DecisionSink decisionSink; // null: nobody listens

    private final LongAdder routed = new LongAdder();
    private final LongAdder queuedTotal = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder expiredRequests = new LongAdder();
    /** Why the queue no longer takes requests (the server is stopping), or null; guarded by drainLock. */
    private String stopping;
    private final LongAdder exploredTotal = new LongAdder();
    private final LongAdder sinkErrors = new LongAdder();

    public Selector(SelectorSettings settings, PrefixIndex index, IndexWriter writer, ParameterStore params,
                    LongSupplier nanoClock) {
        this.settings = settings;
        this.registry = new WorkerRegistry(settings.workers().stream().map(WorkerSpec::name).toList());
        this.index = index;
        this.writer = writer;
        this.params = params;
        this.clock = nanoClock;
        int n = registry.size();
        if (params.current().workers() != n) {
            throw new IllegalArgumentException("the parameter set covers " + params.current().workers()
                    + " workers, the configuration has " + n);
        }
        this.specs = settings.workers().toArray(new WorkerSpec[0]);
        this.unpricedTiers = new UnpricedTiers(settings.workers(), params::current);
        long[] kvCap = new long[n];
        for (int w = 0; w < n; w++) {
            kvCap[w] = specs[w].kvCapacityTokens();
        }
        this.inflight = new InFlightTracker(kvCap, settings.requestMaxAge().toNanos(), settings.telemetryMaxAge().toNanos());
        this.workflows = new WorkflowAffinity(settings.workflowMaxAge().toNanos(), settings.maxWorkflows());
        this.tools = new ToolAffinity(n, settings.toolWarmTime().toNanos());
        this.picker = new Picker(settings.temperature(), settings.explorationEpsilon());
        this.queue = new AdmissionQueue(settings.maxQueued());
        this.seededRandom = settings.seed() == null ? null : new SplittableRandom(settings.seed());
        this.status = new AtomicIntegerArray(n);
        this.silentWorkers = new SilentWorkers(inflight, registry, settings);
        this.scratch = ThreadLocal.withInitial(() -> new Scratch(new PromptLookup(settings, index), n));
    }

    public WorkerRegistry registry() { return registry; }

    /** Where both KV event paths count events on a tier a worker is configured without. */
    public UnpricedTiers unpricedTiers() { return unpricedTiers; }

    /** Worker {@code w}'s configured HBM KV capacity in tokens. */
    public long kvCapacityTokens(int w) { return specs[w].kvCapacityTokens(); }
    public SelectorSettings settings() { return settings; }
    public ParameterStore parameters() { return params; }
    public InFlightTracker inflight() { return inflight; }
    public IndexWriter indexWriter() { return writer; }
    public PrefixIndex index() { return index; }

    /**
     * Sets who hears about every admitted decision (the Kafka decisions producer), or null for
     * nobody. The sink is called on the route thread and must not block.
     */
    public void decisionSink(DecisionSink sink) { this.decisionSink = sink; }

    /**
     * Routes {@code request}. Completes at once when a worker is eligible; waits in the admission
     * queue when every candidate is over its load limit, or under late binding
     * while every candidate has {@link SelectorSettings#holdAtWaiting} requests waiting for their first token, or its
     * cheapest one {@link SelectorSettings#holdAtCheapestWaiting}; fails with {@link NoCapacityException} when
     * no worker is healthy, the queue is full, or the wait exceeds the configured maximum. Cancelling the
     * future withdraws the request: from the queue while it waits, from its worker if it was admitted meanwhile.
     */
    public CompletableFuture<RouteDecision> route(RouteRequest request) {
        if (inflight.workerOf(request.requestId()) >= 0
                || (queue.size() > 0 && queue.contains(request.requestId()))) {
            throw new IllegalStateException("request '" + request.requestId() + "' is already in flight or queued");
        }
        long now = clock.getAsLong();
        Scratch s = scratch.get();
        // While others wait, a newcomer queues behind them in priority order instead of jumping in.
        boolean othersWaiting = queue.size() > 0;
        RouteDecision decision = attempt(request, null, now, 0, s, !othersWaiting, true, false);
        if (decision != null && !othersWaiting) {
            return CompletableFuture.completedFuture(decision);
        }
        if (s.healthyCandidates == 0) {
            rejected.increment();
            return CompletableFuture.failedFuture(new NoCapacityException(
                    "no worker can take requests: all " + registry.size() + " are unhealthy or draining"));
        }
        if (s.holdingCandidates == 0) { // waiting would not help: no worker that takes requests can ever hold it
            rejected.increment();
            return CompletableFuture.failedFuture(tooLarge(s));
        }
        PromptHashes hashes = s.lookup.hashesToKeep(); // the drains try it again: they need not hash it again
        AdmissionQueue.Pending pending;
        synchronized (drainLock) {
            if (stopping != null) { // after failQueued: nothing would ever admit or answer it
                rejected.increment();
                return CompletableFuture.failedFuture(new NoCapacityException(stopping));
            }
            pending = queue.offer(request, hashes, AdmissionQueue.priority(s.minCost), now);
        }
        if (pending == null) {
            rejected.increment();
            return CompletableFuture.failedFuture(new NoCapacityException(
                    "every worker is over its load limit and the admission queue is full ("
                            + settings.maxQueued() + " requests)"));
        }
        queuedTotal.increment();
        // A caller that gives up (its client hung up) cancels the future: the request leaves the queue at once
        // instead of holding a place, and counting in the queue's length, until it reaches the head.
        pending.future().whenComplete((d, err) -> {
            if (pending.future().isCancelled()) {
                synchronized (drainLock) {
                    queue.remove(pending);
                }
            }
        });
        drainQueue(); // capacity may have freed between the attempt and the offer
        return pending.future();
    }

    /**
     * Where {@code request} would go now, and why, without sending it: nothing is admitted, indexed
     * or remembered. For operators ("dry run") and for measuring the decision alone.
     *
     * @throws NoCapacityException when no worker is eligible right now
     */
    public RouteDecision preview(RouteRequest request) {
        Scratch s = scratch.get();
        RouteDecision d = attempt(request, null, clock.getAsLong(), 0, s, false, false, true);
        if (d == null && s.healthyCandidates > 0 && s.holdingCandidates == 0) {
            throw tooLarge(s);
        }
        if (d == null) {
            throw new NoCapacityException(s.healthyCandidates == 0
                    ? "no worker can take requests: all " + registry.size() + " are unhealthy or draining"
                    : s.heldForCheapest
                    ? "the cheapest worker for it has " + settings.holdAtCheapestWaiting() + " or more requests waiting"
                            + " for their first token (holdAtCheapestWaiting): the request would wait in the admission"
                            + " queue for it, or for another to become cheaper"
                    : s.heldForLateBinding
                    ? "every worker the prompt fits has " + settings.holdAtWaiting() + " or more requests waiting for their first token"
                            + " (holdAtWaiting): the request would wait in the admission queue"
                    : silentCandidate(s)
                    ? "every worker is over its load limit or silent (holdAtCheapestSilentAfter: none of this"
                            + " selector's requests there has given output for " + settings.holdAtCheapestSilentAfter()
                            .toMillis() + " ms while some wait): the request would wait in the admission queue"
                    : "every worker is over its load limit: the request would wait in the admission queue");
        }
        return d;
    }

    /**
     * One routing attempt; null when no candidate is eligible (details left in {@code s}). {@code arrival}: the
     * request has just arrived ({@link #route}, not a preview nor a queued retry), so it counts once in the
     * fleet's arrival rate and prefill duty. {@code preview}: a dry run, which must not draw from the seeded
     * generator (that would change the picks of the routes after it). {@code known}: a queued request's prompt hashes
     * as far as computed (null for one not queued).
     */
    private RouteDecision attempt(RouteRequest request, PromptHashes known, long now, long queuedNanos, Scratch s,
                                  boolean admit, boolean arrival, boolean preview) {
        int workers = registry.size();
        ParameterSet ps = params.current();
        PromptLookup lookup = s.lookup;
        int blocks = lookup.hashAndMatch(request, known, now);
        int isl = lookup.inputTokens(request);

        RouteRequest.AgentContext agent = request.agent();
        WorkflowAffinity.LastStep last = agent == null || agent.workflowId() == null ? null
                : workflows.last(agent.workflowId(), now);
        s.previousStepOutputTokens = last == null ? null : last.outputTokens();
        int predicted = predictOutput(request, ps, isl, blocks > 0 ? lookup.hash(0) : 0, s);
        RouteContext ctx = s.context.reset(isl, predicted, settings.blockSize(), settings.bytesPerToken());
        ctx.hitSpreadBlocks(CostModel.hitSpreadBlocks(lookup.match())); // once per route, not once per candidate
        if (agent != null) {
            if (last != null) {
                ctx.lastStep(last.worker(), last.idleSeconds(now));
            }
            List<String> expected = agent.expectedNextTools();
            if (!expected.isEmpty()) {
                ctx.expectedTools(expected.size());
                for (int w = 0; w < workers; w++) {
                    ctx.toolHits(w, tools.hits(w, expected, now));
                }
            }
        }

        // Ā, C_harm's count of the requests a recomputed token delays: in flight per healthy worker; and the
        // share of healthy workers with a request waiting for its first token, D̄'s sample.
        long fleetInFlight = 0;
        int healthy = 0;
        int waitingWorkers = 0;
        for (int w = 0; w < workers; w++) {
            if (takesRequests(w)) {
                LoadView v = inflight.view(w);
                fleetInFlight += v.inFlight();
                if (v.waiting() > 0) {
                    waitingWorkers++;
                }
                healthy++;
            }
        }
        ctx.fleetMeanInFlight(healthy == 0 ? 0 : (double) fleetInFlight / healthy);
        if (arrival) {
            fleetRates.arrival(now, healthy == 0 ? 0 : (double) waitingWorkers / healthy, healthy, ctx);
        } else {
            fleetRates.read(healthy, ctx);
        }
        s.healthyCandidates = 0;
        s.holdingCandidates = 0;
        // Only an exact prompt length (token ids or a given count) rules a worker out; a length estimated from
        // text may be long, and the engine that tokenizes it is the judge.
        boolean exactLength = request.tokens() != null || request.inputTokens() != null;
        s.minCost = Double.POSITIVE_INFINITY;
        for (int w = 0; w < workers; w++) {
            s.eligible[w] = false;
            int st = status.get(w);
            if ((st & UNHEALTHY) != 0) {
                s.excluded[w] = "unhealthy";
                continue;
            }
            if ((st & DRAINING) != 0) {
                s.excluded[w] = "draining";
                continue;
            }
            s.healthyCandidates++;
            LoadView load = inflight.view(w);
            if (exactLength && isl >= load.kvCapacityTokens()) {
                // An engine cannot run a prompt its whole KV cache cannot hold with one token to spare (vLLM refuses
                // a prompt beyond max_model_len, which it keeps within the cache): never a candidate.
                s.excluded[w] = PROMPT_TOO_LARGE;
                continue;
            }
            s.holdingCandidates++;
            CostModel.score(ctx, w, lookup.match(), load, specs[w].bandwidthNoCopy(), ps, s.terms[w]);
            double cost = s.terms[w].total;
            if (!Double.isFinite(cost)) {
                // A non-finite cost is a bug or a bad parameter; never let it win or poison the pick.
                s.excluded[w] = "non-finite cost";
                continue;
            }
            s.cost[w] = cost;
            s.minCost = Math.min(s.minCost, cost);
            s.loads[w] = load;
            boolean over = overLimit(specs[w], load);
            s.excluded[w] = over ? OVER_LOAD : null;
            s.eligible[w] = !over;
        }

        boolean fleetWide = settings.holdAtWaiting() > 0 && everyEligibleWaits(s, workers);
        s.heldForCheapest = !fleetWide && settings.holdAtCheapestWaiting() > 0
                && cheapestEligibleWaits(s, workers, now);
        s.heldForLateBinding = fleetWide || s.heldForCheapest;
        if (s.heldForLateBinding) {
            return null; // queued by the caller: bound once a worker has room (everyEligibleWaits, cheapestEligibleWaits)
        }
        int chosen = pick(s, workers, preview);
        if (chosen < 0) {
            return null;
        }
        boolean explored = Picker.explored(s.cost, s.eligible, workers, chosen);
        if (admit) {
            admit(request, chosen, isl, predicted, blocks, now, s);
            routed.increment();
            if (explored) {
                exploredTotal.increment();
            }
        }
        RouteDecision decision = new RouteDecision(request.requestId(), registry.name(chosen), chosen, ps.scope(),
                ps.version(), isl, predicted, s.predictionSource, s.previousStepOutputTokens, explored, queuedNanos,
                s.terms[chosen].toBreakdown(),
                request.explain() ? candidates(s, workers) : List.of());
        DecisionSink sink = decisionSink;
        if (admit && sink != null) {
            long idleMs = ctx.lastWorker() >= 0 ? Math.round(ctx.secondsSinceLastStep() * 1000) : -1;
            try {
                sink.decided(request, decision, s.healthyCandidates, blocks > 0 ? lookup.hash(0) : 0, idleMs, System.currentTimeMillis());
            } catch (RuntimeException e) {
                // A listener must never fail a route that is already admitted; the decision is lost: count it.
                sinkErrors.increment();
                if (sinkErrors.sum() == 1) {
                    org.slf4j.LoggerFactory.getLogger(Selector.class).error("decision sink failed on request '{}' (the "
                            + "route stands; further failures are only counted in decisionSinkErrors): {}",
                            request.requestId(), e.toString(), e);
                }
            }
        }
        return decision;
    }

    /**
     * Late binding is on and every worker that takes requests has {@link #lateBindingBound} of ours waiting: then
     * {@link #everyEligibleWaits} or {@link #cheapestEligibleWaits} holds any request, whatever its candidates, so a
     * drain need not score it. A silent worker counts as waiting: nothing is bound to it.
     */
    private boolean everyWorkerWaits() {
        int k = lateBindingBound();
        if (k == 0) {
            return false;
        }
        long now = clock.getAsLong();
        for (int w = 0; w < registry.size(); w++) {
            if (takesRequests(w) && inflight.ownWaiting(w) < k && !silentUnderHold(w, now)) {
                return false;
            }
        }
        return true;
    }

    /** Under the cheapest-worker bound, {@code w} is silent ({@link SilentWorkers}): neither held for nor bound to. */
    private boolean silentUnderHold(int w, long now) {
        return settings.holdAtCheapestWaiting() > 0 && silentWorkers.isSilent(w, now);
    }

    /**
     * The waiting count at which a worker takes none of our requests under either late-binding bound: the smaller of
     * {@link SelectorSettings#holdAtWaiting} and {@link SelectorSettings#holdAtCheapestWaiting} that is on; 0 when both
     * are off.
     */
    private int lateBindingBound() {
        int fleet = settings.holdAtWaiting();
        int cheapest = settings.holdAtCheapestWaiting();
        return fleet == 0 ? cheapest : cheapest == 0 ? fleet : Math.min(fleet, cheapest);
    }

    /**
     * Late binding across the fleet ({@link SelectorSettings#holdAtWaiting}): every worker the request could go to
     * already has K of this selector's requests waiting for their first token. Held here instead of joining one of
     * those queues, it is scored again over every worker as soon as one of them has room, and the admission queue
     * serves the cheapest at that moment first ({@link #cheapestNow}; WSPT, DESIGN.md §3) instead of each worker its
     * arrivals in order. The counts are read without a lock, so routes deciding at the same instant may each see a
     * worker under the bound: a soft bound (both bounds alike).
     */
    private boolean everyEligibleWaits(Scratch s, int workers) {
        boolean any = false;
        for (int w = 0; w < workers; w++) {
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
     * Late binding to the cheapest worker ({@link SelectorSettings#holdAtCheapestWaiting}): the cheapest worker the
     * request could go to already has K of this selector's requests waiting for their first token. Held instead of
     * joining that worker's queue, which the engine serves in arrival order, it is scored again over every worker at
     * each drain: it goes to that worker once it has room, or elsewhere once another has become cheaper. Not held, it
     * is not bound to a worker with K waiting either: those leave the pick (an exploring pick included). Sending it to
     * the next-cheapest worker instead measured far worse (fleet-sim/experiments/ROUNDS.md, "Cheapest-worker hold
     * round"). A worker silent for {@link SelectorSettings#holdAtCheapestSilentAfter} while ours wait there (a hung
     * engine) leaves the pick and the ranking first: nothing is held for it or bound to it until it gives output again.
     */
    private boolean cheapestEligibleWaits(Scratch s, int workers, long now) {
        int k = settings.holdAtCheapestWaiting();
        for (int w = 0; w < workers; w++) {
            if (s.eligible[w] && silentWorkers.silent(w, now)) {
                s.eligible[w] = false;
                s.excluded[w] = SILENT;
            }
        }
        double min = Double.POSITIVE_INFINITY;
        for (int w = 0; w < workers; w++) {
            if (s.eligible[w]) {
                min = Math.min(min, s.cost[w]);
            }
        }
        boolean cheapestHasRoom = false;
        for (int w = 0; w < workers; w++) {
            if (s.eligible[w] && inflight.ownWaiting(w) >= k) {
                s.eligible[w] = false;
                s.excluded[w] = CHEAPEST_WAITS;
            } else if (s.eligible[w] && s.cost[w] == min) {
                cheapestHasRoom = true;
            }
        }
        return min < Double.POSITIVE_INFINITY && !cheapestHasRoom;
    }

    private void admit(RouteRequest request, int worker, int isl, int predicted, int blocks, long now, Scratch s) {
        inflight.admit(request.requestId(), worker, isl, predicted, s.terms[worker].pEffTokens, s.terms[worker].tierTokens, now);
        if (specs[worker].approximate()) {
            long[] all = s.lookup.allHashes(request, blocks); // a copy: it escapes to the writer thread
            if (all.length > 0) {
                writer.routed(worker, all, all.length, now, settings.approximateTtl().toNanos());
            }
        } else if (settings.computingClaims()) {
            claimComputing(request, worker, blocks, now, s);
        }
        RouteRequest.AgentContext agent = request.agent();
        if (agent != null) {
            if (agent.workflowId() != null) {
                workflows.routed(agent.workflowId(), request.requestId(), worker, now);
            }
            if (!agent.expectedNextTools().isEmpty()) {
                tools.routed(worker, agent.expectedNextTools(), now);
            }
        }
    }

    /**
     * An event-mode index cannot see a prefix while it is being computed: its blocks appear with the engine's Stored
     * events, seconds later (the request's queue wait and prefill). A repeat routed meanwhile finds no holder and is
     * placed by load, so under a burst one prompt gets computed on several workers, and the copies crowd HBM (the
     * nvme-overflow collapse in bench/RESULTS.md). With {@code computingClaims} the blocks {@code worker} is sent to
     * compute (beyond the prefix the index shows it holding on any tier) are entered as approximate HBM entries
     * until {@code computingClaimTtl}; the engine's Removed and Moved-out-of-HBM events drop them sooner (its Stored
     * events leave them: the index package's mixing rule). A claim counts as HBM, so it outranks a real CPU-tier
     * copy elsewhere: that and Mooncake's tail are why it is off by default (bench/RESULTS.md, "Computing claims").
     * A request that fails before its first output withdraws its claims ({@link #onRequestEvent}): nobody computes them.
     */
    private void claimComputing(RouteRequest request, int worker, int blocks, long now, Scratch s) {
        long[] toCompute = s.lookup.hashesFrom(request, blocks, s.lookup.match().totalBlocks(worker)); // escapes: a copy
        long ttl = settings.computingClaimTtl().toNanos();
        if (toCompute.length > 0) {
            writer.routed(worker, toCompute, toCompute.length, now, ttl);
        }
        // Remembered even when it claims nothing: it may rely on an earlier claim on this worker (ComputingClaims).
        claims.made(request.requestId(), new ComputingClaims.Claim(worker, toCompute, now, ttl));
    }

    /** Marks a candidate whose KV cache cannot hold the prompt (see {@link #attempt}). */
    private static final String PROMPT_TOO_LARGE = "prompt larger than its KV cache";

    /** Only when a route is refused: the largest cache is looked up then, not on every route. */
    private PromptTooLargeException tooLarge(Scratch s) {
        long largest = 0;
        for (int w = 0; w < registry.size(); w++) {
            if (takesRequests(w)) {
                largest = Math.max(largest, inflight.view(w).kvCapacityTokens());
            }
        }
        return new PromptTooLargeException("the prompt's " + s.context.isl() + " tokens do not fit the KV cache of any "
                + "worker that takes requests (the largest holds " + largest + " tokens, and a prompt must leave room "
                + "for one output token)");
    }

    /** Marks a candidate filtered by its load limits; the explanation is written only for explain. */
    private static final String OVER_LOAD = "over load";
    /** Excluded from the pick, scored: K of ours wait on it for their first token ({@link #cheapestEligibleWaits}). */
    private static final String CHEAPEST_WAITS = "late binding";
    /** Excluded from the pick and the hold, scored: silent while ours wait there ({@link #cheapestEligibleWaits}). */
    private static final String SILENT = "silent";

    /** The last attempt left a worker out as silent. */
    private boolean silentCandidate(Scratch s) {
        for (int w = 0; w < registry.size(); w++) {
            if (s.excluded[w] == SILENT) {
                return true;
            }
        }
        return false;
    }

    private static boolean overLimit(WorkerSpec spec, LoadView load) {
        return (spec.maxInFlight() > 0 && load.limitInFlight() >= spec.maxInFlight())
                || (spec.maxWaiting() > 0 && load.waiting() >= spec.maxWaiting());
    }

    private static String overLimitReason(WorkerSpec spec, LoadView load) {
        if (spec.maxInFlight() > 0 && load.limitInFlight() >= spec.maxInFlight()) {
            return "over load: " + load.limitInFlight() + " in flight ≥ " + spec.maxInFlight()
                    + (load.engineInFlight() > load.inFlight() ? " (the engine's telemetry: running and waiting)" : "");
        }
        return "over load: " + load.waiting() + " waiting ≥ " + spec.maxWaiting();
    }

    private List<RouteDecision.Candidate> candidates(Scratch s, int workers) {
        List<RouteDecision.Candidate> out = new ArrayList<>(workers);
        for (int w = 0; w < workers; w++) {
            boolean over = s.excluded[w] == OVER_LOAD;
            boolean waits = s.excluded[w] == CHEAPEST_WAITS;
            boolean silent = s.excluded[w] == SILENT;
            boolean scored = s.excluded[w] == null || over || waits || silent;
            out.add(new RouteDecision.Candidate(registry.name(w),
                    over ? overLimitReason(specs[w], s.loads[w])
                            : waits ? "late binding: holdAtCheapestWaiting (" + settings.holdAtCheapestWaiting()
                                    + ") of this selector's requests waiting for their first token"
                            : silent ? "silent: this selector's requests wait there, and none of its requests has"
                                    + " had an event for more than " + settings.holdAtCheapestSilentAfter().toMillis()
                                    + " ms (holdAtCheapestSilentAfter)"
                            : s.excluded[w],
                    scored ? s.terms[w].toBreakdown() : null));
        }
        return out;
    }

    /** {@code d̂(r)}: the agent's hint, else the quantile model, else {@code max_tokens / 2}. */
    private int predictOutput(RouteRequest r, ParameterSet ps, int isl, long prefixGroup, Scratch s) {
        if (r.expectedOutputTokens() != null) {
            s.predictionSource = PredictionSource.HINT;
            return Math.min(r.expectedOutputTokens(), r.maxTokens());
        }
        OutputLengthModel model = ps.outputModel();
        if (model != null) {
            // The features the decision record logs (DecisionRecords), which the forest was trained on.
            double q = model.predict(new OutputLengthModel.OutputFeatures(isl,
                    r.model() == null ? settings.model() : r.model(), r.lora(), r.agent() == null ? null : r.agent().stepIndex(),
                    r.agent() == null || r.agent().expectedNextTools().isEmpty() ? null : r.agent().expectedNextTools().get(0),
                    r.maxTokens(), prefixGroup, s.previousStepOutputTokens), ps.outputQuantile());
            if (Double.isFinite(q) && q >= 0) {
                s.predictionSource = PredictionSource.QUANTILE_MODEL;
                return (int) Math.min(Math.round(q), r.maxTokens());
            }
        }
        s.predictionSource = PredictionSource.MAX_TOKENS_HALF;
        return Math.max(1, r.maxTokens() / 2);
    }

    /** A preview draws per-thread randomness, so that a seeded run picks the same whatever dry runs it serves. */
    private int pick(Scratch s, int workers, boolean preview) {
        if (seededRandom == null || preview) {
            return picker.pick(s.cost, s.eligible, workers, ThreadLocalRandom.current());
        }
        synchronized (seededRandom) { // a seeded generator is one sequence, not thread-safe
            return picker.pick(s.cost, s.eligible, workers, seededRandom);
        }
    }

    // ---- lifecycle events ----

    /** Applies a request event; returns false when the request is not in flight here. */
    public boolean onRequestEvent(RequestEvent event) {
        long now = clock.getAsLong();
        EventEffect effect;
        if (event.type() == RequestEvent.Type.FINISHED || event.type() == RequestEvent.Type.FAILED) {
            // A finished step's reported output count is its workflow's next step's previousStepOutputTokens; a failed
            // step, or one no event gave a count, leaves none.
            int[] reported = {0};
            effect = inflight.apply(event, now, n -> reported[0] = n);
            workflows.finished(event.requestId(), now, reported[0] > 0 ? reported[0] : null);
        } else {
            effect = inflight.apply(event, now);
        }
        if (settings.computingClaims()) {
            settleClaims(event, now);
        }
        // Not only a finish frees a worker: a first output (first token or tokens) takes a request off the worker's
        // waiting count, which may bring it back under maxWaiting (with no fresh telemetry; a sample's count stands
        // until the next one, WorkerLoad). Progress of a decoding request frees nothing, so
        // it does not retry the queue: that retry is a whole decision under drainLock, and such events come every
        // 16 tokens of every request. The effect is decided with the change, so a route queueing meanwhile is seen.
        if (effect == EventEffect.LEFT_WITHOUT_OUTPUT && event.type() == RequestEvent.Type.FINISHED
                && lateBindingBound() > 0 && !warnedFinishWithoutOutput) {
            warnedFinishWithoutOutput = true; // once: a gateway that never posts outputs does so for every request
            org.slf4j.LoggerFactory.getLogger(Selector.class).warn("request '{}' finished with no first_token or tokens "
                    + "event before: late binding (routing.holdAtWaiting {}, holdAtCheapestWaiting {}) counts a request "
                    + "as waiting until its first output, so without those events each worker takes only that many "
                    + "requests at a time and the rest wait in the admission queue; have the gateway post first_token "
                    + "events, or set both to 0",
                    event.requestId(), settings.holdAtWaiting(), settings.holdAtCheapestWaiting());
        }
        if (effect.mayFreeSlot()) {
            drainQueue(); // cheap when nobody waits
        }
        return effect != EventEffect.UNKNOWN;
    }

    /** Whether {@link #onRequestEvent} has warned about a finish with no output event under late binding. */
    private volatile boolean warnedFinishWithoutOutput;

    /**
     * Any output, or a finish, means the request's prefill ran: its claims stand for blocks computed (the engine's events
     * take over) and are forgotten. A failure first means they were never computed: they are withdrawn from the index
     * (a Stored entry is never touched, nor one another claim extended since), unless a request routed to the same
     * worker since may rely on them ({@link ComputingClaims#mayWithdraw}): then they lapse at their TTL.
     */
    private void settleClaims(RequestEvent event, long now) {
        ComputingClaims.Claim c = claims.take(event.requestId());
        if (c != null && event.type() == RequestEvent.Type.FAILED && claims.mayWithdraw(c, now)) {
            writer.released(c.worker(), c.hashes(), c.hashes().length, c.nowNanos(), c.ttlNanos());
        }
    }

    public void onTelemetry(Telemetry sample) {
        inflight.onTelemetry(sample);
        drainQueue();
    }

    public void setHealthy(int worker, boolean healthy) {
        setFlag(worker, UNHEALTHY, !healthy);
    }

    public void setDraining(int worker, boolean draining) {
        setFlag(worker, DRAINING, draining);
    }

    private void setFlag(int worker, int flag, boolean on) {
        status.getAndUpdate(worker, v -> on ? v | flag : v & ~flag);
        if (!on) {
            drainQueue();
        }
    }

    public List<WorkerView> workers() {
        List<WorkerView> out = new ArrayList<>(registry.size());
        for (int w = 0; w < registry.size(); w++) {
            int st = status.get(w);
            out.add(new WorkerView(registry.name(w), w, (st & UNHEALTHY) == 0, (st & DRAINING) != 0,
                    specs[w].approximate(), inflight.view(w)));
        }
        return out;
    }

    /** How many leading block hashes of a queued request's prompt the queue keeps with it; -1 when it is not queued. */
    int keptHashBlocks(String requestId) {
        synchronized (drainLock) {
            for (AdmissionQueue.Pending p : queue.firstInOrder(queue.size())) {
                if (p.request().requestId().equals(requestId)) {
                    return p.hashes().count();
                }
            }
            return -1;
        }
    }

    /**
     * Periodic upkeep (call every ~100 ms): expires lost requests, stale telemetry, old workflows,
     * cold tools and approximate index entries; fails requests that waited too long in the queue.
     */
    public void tick() {
        long now = clock.getAsLong();
        if (now - lastSweepNanos >= SWEEP_INTERVAL_NANOS) {
            // Scans every in-flight request and workflow: once a second is plenty for ages of minutes.
            lastSweepNanos = now;
            int expired = inflight.expire(now);
            if (expired > 0) {
                // Their load is forgotten: the gateway never said finished or failed (a lost event, a crashed engine).
                expiredRequests.add(expired);
                org.slf4j.LoggerFactory.getLogger(Selector.class).warn("{} request(s) in flight had no event for "
                        + "routing.requestMaxAge ({} s) and were dropped from their workers' load ({} so far)", expired,
                        settings.requestMaxAge().toSeconds(), expiredRequests.sum());
            }
            workflows.expire(now);
            tools.expire(now);
            claims.expire(now);
        }
        writer.expire(now);
        List<AdmissionQueue.Pending> expired;
        synchronized (drainLock) { // so a request is either expired or admitted, never both
            expired = queue.expired(now, settings.maxQueueWait().toNanos());
        }
        for (AdmissionQueue.Pending p : expired) {
            rejected.increment();
            p.future().completeExceptionally(new NoCapacityException("waited "
                    + settings.maxQueueWait().toMillis() + " ms in the admission queue; every worker stayed over its load limit"
                    + (settings.holdAtWaiting() > 0 ? " or had " + settings.holdAtWaiting()
                            + " or more requests waiting for their first token (holdAtWaiting)" : "")
                    + (settings.holdAtCheapestWaiting() > 0 ? ", or the cheapest one for it had "
                            + settings.holdAtCheapestWaiting() + " or more waiting (holdAtCheapestWaiting)"
                            + (settings.holdAtCheapestSilentAfter().isZero() ? ""
                                    : " or was silent (holdAtCheapestSilentAfter)") : "")));
        }
        drainQueue();
    }

    /**
     * Fails every request waiting in the admission queue with {@link NoCapacityException} ({@code why}): a stopping
     * server answers them (503 and Retry-After, so the gateway retries elsewhere) instead of cutting their connections.
     * Returns how many there were.
     */
    public int failQueued(String why) {
        List<AdmissionQueue.Pending> waiting;
        synchronized (drainLock) { // so a request is either failed here or admitted, never both
            stopping = why; // and one that would queue later is failed at once (a body finishing during the grace)
            waiting = queue.removeAll();
        }
        int failed = 0;
        for (AdmissionQueue.Pending p : waiting) {
            if (p.future().completeExceptionally(new NoCapacityException(why))) { // not if its client gave up
                rejected.increment();
                failed++;
            }
        }
        return failed;
    }

    /**
     * Routes queued requests, best priority first, while a worker is eligible. Claiming and admitting
     * happen under the lock; completing the futures (which runs callers' callbacks, e.g. writing an
     * HTTP answer) happens after it.
     */
    private void drainQueue() {
        if (queue.size() == 0) {
            return;
        }
        List<AdmissionQueue.Pending> claimed = new ArrayList<>();
        List<Object> outcomes = new ArrayList<>(); // a RouteDecision or the RuntimeException it failed with
        synchronized (drainLock) {
            Scratch s = scratch.get();
            // The head first, while it is admitted; once it is not, the next ones in priority order (see below).
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
                if (everyWorkerWaits()) {
                    break; // late binding holds any request now: no attempt (drains come at every sample and tick)
                }
                long now = clock.getAsLong();
                boolean windowUnplaceable = false; // cheapestNow's dry runs could place none of the first ones
                if (scan == null) {
                    AdmissionQueue.Pending best = cheapestNow(head, now, s);
                    windowUnplaceable = best == null;
                    head = windowUnplaceable ? head : best;
                }
                int length = judgedLength(head.request());
                if (scan != null && length >= refusedFrom) {
                    continue; // every worker under its limits is too small for it too: no attempt
                }
                Object outcome;
                try {
                    outcome = attempt(head.request(), head.hashes(), now, now - head.enqueuedNanos(), s, true, false,
                            false);
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
            }
        }
        for (int i = 0; i < claimed.size(); i++) {
            CompletableFuture<RouteDecision> future = claimed.get(i).future();
            Object outcome = outcomes.get(i);
            if (outcome instanceof RouteDecision d) {
                if (!future.complete(d)) {
                    // Cancelled after it was admitted: give the worker its slot back.
                    onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FAILED, 0));
                }
            } else {
                future.completeExceptionally((RuntimeException) outcome);
            }
        }
    }

    /**
     * How far down the admission queue one drain looks once the head waits for its cheapest worker (late binding) or a
     * worker under its limits refused it for its size: a bound on the work done under the drain lock. Past it, each
     * drain looks at as many more, from where the last one stopped ({@link #beyondScanWindow}), so a request far down
     * whose cheapest worker has room is reached within a few drains (each first token, finish and sample is one).
     */
    static final int DRAIN_SCAN_LIMIT = 64;

    /** Where the last drain's look past its first window stopped; null: from the window's end. Under drainLock. */
    private AdmissionQueue.Pending scanCursor;

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
     * How many of the first waiting requests a drain ranks again by their cost now ({@link #cheapestNow}): a bound on
     * the dry runs under the drain lock. 16 to the whole queue measured alike (ROUNDS.md, "Re-ranking round").
     */
    static final int RERANK_WINDOW = 16;

    /**
     * The request to place next: of the first {@link #RERANK_WINDOW} in priority order and placeable now, the one with
     * the lowest cost now over the workers it could go to (under the cheapest-worker bound that is a worker with room;
     * under the fleet-wide bound alone, possibly a busy one that holds its prefix); {@code head} when it waits alone or
     * no worker has room, null when it ranked them and none can be placed now. Whatever made
     * the queue (late binding or load limits). A request's priority was its cost at arrival, and by the time a worker
     * frees, queues, the link and the cache have moved: the one cheapest now (often a prefix that has just landed in
     * HBM) frees capacity soonest. WSPT on the fleet's present state, not on the one each request found (DESIGN.md
     * §3's priority, read at dispatch). The dry runs, like {@link #preview}, mark the prefixes they walk as recently
     * used in the index.
     */
    private AdmissionQueue.Pending cheapestNow(AdmissionQueue.Pending head, long now, Scratch s) {
        if (queue.size() < 2 || !someWorkerHasRoom(now)) {
            return head; // nothing to rank, or nothing placeable: the head's own attempt ends the drain
        }
        AdmissionQueue.Pending best = null;
        double bestCost = Double.POSITIVE_INFINITY;
        for (AdmissionQueue.Pending p : queue.firstInOrder(RERANK_WINDOW)) {
            if (p.future().isDone()) {
                continue; // cancelled: the drain removes it when it reaches it
            }
            RouteDecision d;
            try {
                // a dry run: nothing admitted, nothing drawn
                d = attempt(p.request(), p.hashes(), now, 0, s, false, false, true);
            } catch (RuntimeException e) {
                return p; // its real attempt fails it to its caller at once, instead of leaving it to time out
            }
            if (d == null) {
                continue; // no worker it could go to has room (or its cheapest has K waiting): not placeable now
            }
            double cost = cheapestEligible(s);
            if (cost < bestCost) {
                bestCost = cost;
                best = p;
            }
        }
        return best;
    }

    /**
     * Some worker that takes requests is under its load limits and, under late binding, has fewer than
     * {@link #lateBindingBound} of ours waiting, and is not silent: a drain that finds none places nothing, so it
     * skips the dry runs (a telemetry sample drains too, while every worker is full).
     */
    private boolean someWorkerHasRoom(long now) {
        int k = lateBindingBound();
        for (int w = 0; w < registry.size(); w++) {
            if (takesRequests(w) && !overLimit(specs[w], inflight.view(w)) && (k == 0 || inflight.ownWaiting(w) < k)
                    && !silentUnderHold(w, now)) {
                return true;
            }
        }
        return false;
    }

    /** The lowest cost among the workers the last attempt found eligible (the picker may explore; this ranks). */
    private double cheapestEligible(Scratch s) {
        double min = Double.POSITIVE_INFINITY;
        for (int w = 0; w < registry.size(); w++) {
            if (s.eligible[w]) {
                min = Math.min(min, s.cost[w]);
            }
        }
        return min;
    }

    private static final int NO_SIZE_REFUSAL = 0;
    private static final int SOME_SIZE_REFUSALS = 1;
    private static final int ONLY_SIZE_REFUSALS = 2;

    /**
     * After a failed attempt, what the workers under their load limits said: none turned the request away for its size
     * ({@link #NO_SIZE_REFUSAL}), some did ({@link #SOME_SIZE_REFUSALS}; another was excluded for its cost), or all of
     * them did ({@link #ONLY_SIZE_REFUSALS}: a longer prompt fits none of them either).
     */
    private int sizeRefusal(Scratch s) {
        boolean some = false;
        boolean other = false;
        for (int w = 0; w < registry.size(); w++) {
            if (takesRequests(w) && !overLimit(specs[w], inflight.view(w))) {
                if (s.excluded[w] == PROMPT_TOO_LARGE) {
                    some = true;
                } else {
                    other = true;
                }
            }
        }
        return !some ? NO_SIZE_REFUSAL : other ? SOME_SIZE_REFUSALS : ONLY_SIZE_REFUSALS;
    }

    /**
     * The prompt length a worker's KV cache is judged on ({@link #attempt}); -1 when it is estimated from text, which no
     * worker refuses for size (the engine that tokenizes it is the judge).
     */
    private static int judgedLength(RouteRequest r) {
        return r.inputTokens() != null ? r.inputTokens() : r.tokens() != null ? r.tokens().length : -1;
    }

    // ---- counters for metrics ----

    public long routedCount() { return routed.sum(); }
    public long queuedCount() { return queuedTotal.sum(); }
    public long rejectedCount() { return rejected.sum(); }
    /** Requests dropped from the in-flight load because no event came for {@code routing.requestMaxAge}. */
    public long expiredRequestCount() { return expiredRequests.sum(); }
    public long exploredCount() { return exploredTotal.sum(); }

    /** Admitted decisions the {@link DecisionSink} threw on (lost to it; the routes stood). */
    public long decisionSinkErrors() { return sinkErrors.sum(); }
    public int queueLength() { return queue.size(); }

    /** {@code D̄}: the fleet's prefill duty as C_harm's κ reads it (0 to 1). */
    public double prefillDuty() { return fleetRates.prefillDuty(); }

    /** Whether worker {@code w} is neither unhealthy nor draining: Ā, D̄ and λ_w average over these. */
    private boolean takesRequests(int w) {
        return (status.get(w) & (UNHEALTHY | DRAINING)) == 0;
    }

    /** {@code λ_w}: the fleet's arrival rate per healthy worker (requests/s) as C_harm reads it; 0 while unknown. */
    public double arrivalRatePerWorker() {
        int healthy = 0;
        for (int w = 0; w < registry.size(); w++) {
            if (takesRequests(w)) {
                healthy++;
            }
        }
        return fleetRates.arrivalRatePerWorker(healthy);
    }

    /** Per-thread buffers so a route allocates only its result. */
    private static final class Scratch {
        final PromptLookup lookup;
        final RouteContext context;
        final CostTerms[] terms;
        final double[] cost;
        final boolean[] eligible;
        final String[] excluded;
        final LoadView[] loads;
        PredictionSource predictionSource;
        /** The workflow's previous step's output tokens, an input of {@code d̂} and logged with it; or null. */
        Integer previousStepOutputTokens;
        int healthyCandidates;
        /** Healthy candidates whose KV cache can hold the prompt. */
        int holdingCandidates;
        double minCost;
        /** The last attempt held the request for late binding: either bound ({@link #heldForCheapest} says which). */
        boolean heldForLateBinding;
        /** Held by {@link #cheapestEligibleWaits} (its cheapest worker has K waiting), not by the fleet-wide bound. */
        boolean heldForCheapest;

        Scratch(PromptLookup lookup, int workers) {
            this.lookup = lookup;
            context = new RouteContext(workers);
            terms = new CostTerms[workers];
            for (int w = 0; w < workers; w++) {
                terms[w] = new CostTerms();
            }
            cost = new double[workers];
            eligible = new boolean[workers];
            excluded = new String[workers];
            loads = new LoadView[workers];
        }
    }
}
