package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.PrefixIndex;
import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.ingest.IndexWriter;
import io.tierroute.selector.params.OutputLengthModel;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.scheduling.RouteDecision.PredictionSource;
import io.tierroute.selector.sequences.DuplicateRequestException;
import io.tierroute.selector.sequences.EventEffect;
import io.tierroute.selector.sequences.InFlightTracker;
import io.tierroute.selector.sequences.LoadView;
import io.tierroute.selector.sequences.PrefixMarks;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sequences.Telemetry;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * Routes a request to the worker where it will finish soonest: hash the prompt, look up every
 * worker's matched prefix per tier, score every candidate with {@link CostModel}, drop the ones a
 * hard filter excludes, and pick. The one implementation behind the HTTP server, the simulator and
 * the benchmarks.
 *
 * <p>Thread-safe: any number of threads route concurrently; each attempt reads the active parameter set
 * once, so a decision never mixes two snapshots; a drain of the admission queue reads it once for all its attempts
 * ({@link QueueDrain}), so the requests it ranks against each other are priced alike.
 */
public final class Selector {

    private final SelectorSettings settings;
    private final WorkerRegistry registry;
    private final UnpricedTiers unpricedTiers;
    private final PrefixIndex index;
    private final IndexWriter writer;
    private final ParameterStore params;
    private final InFlightTracker inflight;
    private final WorkflowAffinity workflows;
    private final ToolAffinity tools;
    private final Picker picker;
    private final AdmissionQueue queue;
    private final LongSupplier clock;
    private final RandomGenerator seededRandom; // null: per-thread randomness
    private final WorkerStatus status;
    private final SilentWorkers silentWorkers;
    private final LateBinding lateBinding;
    private final LightLoadSpread spread;
    private final Explanations explanations;
    private final QueueDrain drain;
    private final WorkerSpec[] specs;
    private final ThreadLocal<AttemptScratch> scratch;
    private final Object drainLock = new Object();
    private final FleetRates fleetRates = new FleetRates(); // D̄ and λ_w for C_harm
    private final ComputingClaims claims = new ComputingClaims(); // of requests with no output yet
    private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;
    private volatile long lastSweepNanos = Long.MIN_VALUE / 2;
    private volatile DecisionSink decisionSink; // null: nobody listens
    private volatile ReplicaOutbox replicaOutbox; // null: no replica sync

    private final LongAdder routed = new LongAdder();
    private final LongAdder queuedTotal = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder expiredRequests = new LongAdder();
    /** Why the queue no longer takes requests (the server is stopping), or null; guarded by drainLock. */
    private String stopping;
    private final LongAdder exploredTotal = new LongAdder();
    private final LongAdder spreadTotal = new LongAdder();
    private final LongAdder sinkErrors = new LongAdder();
    private final LongAdder outboxErrors = new LongAdder();

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
        this.inflight.ownKvAccounting(settings.ownKvAccounting());
        this.workflows = new WorkflowAffinity(settings.workflowMaxAge().toNanos(), settings.maxWorkflows());
        this.tools = new ToolAffinity(n, settings.toolWarmTime().toNanos());
        this.picker = new Picker(settings.temperature(), settings.explorationEpsilon());
        this.queue = new AdmissionQueue(settings.maxQueued(), settings.queueAgeWeight(), clock.getAsLong());
        this.seededRandom = settings.seed() == null ? null : new SplittableRandom(settings.seed());
        this.status = new WorkerStatus(n);
        this.silentWorkers = new SilentWorkers(inflight, registry, settings);
        this.lateBinding = new LateBinding(settings, inflight, silentWorkers, status, specs);
        this.spread = new LightLoadSpread(settings.spreadWithin());
        this.explanations = new Explanations(settings, registry, specs, status, inflight);
        this.scratch = ThreadLocal.withInitial(() -> new AttemptScratch(new PromptLookup(settings, index), n));
        this.drain = new QueueDrain(queue, drainLock, this::attempt, params::current, lateBinding, status, specs,
                inflight, clock, scratch::get,
                d -> onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FAILED, 0)),
                settings.queueOverdueAfter().toNanos());
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
     * Sets who tells the other selector replicas about this one's admissions and reported request events (replica
     * sync), or null for nobody. Called on route and request threads; it must not block.
     */
    public void replicaOutbox(ReplicaOutbox outbox) { this.replicaOutbox = outbox; }

    /**
     * Routes {@code request}. Completes at once when a worker is eligible; waits in the admission
     * queue when every candidate is over its load limit, or under late binding
     * while every candidate has {@link SelectorSettings#holdAtWaiting} requests waiting for their first token, or its
     * cheapest one {@link SelectorSettings#holdAtCheapestWaiting}; fails with {@link NoCapacityException} when
     * no worker is healthy, the queue is full and no worker can take it now, or the wait exceeds the configured
     * maximum. Cancelling the future withdraws the request: from the queue while it waits, from its worker if it was
     * admitted meanwhile.
     */
    public CompletableFuture<RouteDecision> route(RouteRequest request) {
        if (inflight.workerOf(request.requestId()) >= 0
                || (queue.size() > 0 && queue.contains(request.requestId()))) {
            throw new DuplicateRequestException("request '" + request.requestId() + "' is already in flight or queued");
        }
        long now = clock.getAsLong();
        AttemptScratch s = scratch.get();
        // While others wait, a newcomer takes its place in the queue's order instead of jumping in.
        boolean othersWaiting = queue.size() > 0;
        RouteDecision decision = attempt(request, null, now, 0, params.current(), s,
                othersWaiting ? AttemptKind.ARRIVAL_BEHIND_QUEUE : AttemptKind.ARRIVAL);
        if (decision != null && !othersWaiting) {
            return CompletableFuture.completedFuture(decision);
        }
        if (s.healthyCandidates == 0) {
            rejected.increment();
            return CompletableFuture.failedFuture(new NoCapacityException(explanations.noneTakesRequests()));
        }
        if (s.holdingCandidates == 0) { // waiting would not help: no worker that takes requests can ever hold it
            rejected.increment();
            return CompletableFuture.failedFuture(explanations.tooLarge(s));
        }
        PromptHashes hashes = s.lookup.hashesToKeep(); // the drains try it again: they need not hash it again
        AdmissionQueue.Pending pending;
        synchronized (drainLock) {
            if (stopping != null) { // after failQueued: nothing would ever admit or answer it
                rejected.increment();
                return CompletableFuture.failedFuture(new NoCapacityException(stopping));
            }
            pending = queue.offer(request, hashes, s.minCost, now);
        }
        if (pending == null) {
            // No place behind the others: a worker that can take it now does, rather than a 503 while it has room.
            RouteDecision placed = decision == null ? null : attempt(request, hashes, clock.getAsLong(), 0,
                    params.current(), s, AttemptKind.ARRIVAL_PAST_FULL_QUEUE);
            if (placed != null) {
                return CompletableFuture.completedFuture(placed);
            }
            rejected.increment();
            return CompletableFuture.failedFuture(new NoCapacityException(
                    "the admission queue is full (" + settings.maxQueued() + " requests) and no worker can take the "
                            + "request now"));
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
        drain.drain(); // capacity may have freed between the attempt and the offer
        return pending.future();
    }

    /**
     * Where {@code request} would go now, and why, without sending it: nothing is admitted, indexed
     * or remembered. For operators ("dry run") and for measuring the decision alone.
     *
     * @throws NoCapacityException when no worker is eligible right now
     */
    public RouteDecision preview(RouteRequest request) {
        AttemptScratch s = scratch.get();
        RouteDecision d = attempt(request, null, clock.getAsLong(), 0, params.current(), s, AttemptKind.DRY_RUN);
        if (d == null && s.healthyCandidates > 0 && s.holdingCandidates == 0) {
            throw explanations.tooLarge(s);
        }
        if (d == null) {
            throw new NoCapacityException(explanations.previewRefusal(s));
        }
        return d;
    }

    /**
     * One routing attempt, priced under {@code ps} (the active set: a route's attempt reads it, a drain's attempts
     * share the one it read at its start); null when no candidate is eligible (details left in {@code s}). {@code kind}
     * says what it may change besides answering: admit the request, count it as an arrival. {@code known}: a queued
     * request's prompt hashes as far as computed (null for one not queued).
     */
    private RouteDecision attempt(RouteRequest request, PromptHashes known, long now, long queuedNanos, ParameterSet ps,
                                  AttemptScratch s, AttemptKind kind) {
        int workers = registry.size();
        PromptLookup lookup = s.lookup;
        int blocks = lookup.hashAndMatch(request, known, now);
        int isl = lookup.inputTokens(request);
        RouteContext ctx = requestContext(request, ps, isl, blocks, now, s);
        fleetSample(ctx, kind, now);
        scoreCandidates(request, isl, ctx, ps, s);

        boolean spreadFromCheapest = spread.apply(s, ctx.prefillDuty());
        if (lateBinding.holds(s, now)) {
            return null; // queued by the caller: bound once a worker has room (LateBinding)
        }
        int chosen = pick(s, workers, kind.dryRun);
        if (chosen < 0) {
            return null;
        }
        int predicted = ctx.predictedOutputTokens();
        if (kind.admits) {
            IntConsumer hook = beforeAdmission;
            if (hook != null) {
                hook.accept(chosen);
            }
            // Another route took the chosen worker's last slot since its load was read: the next cheapest one, and
            // once none of those the spread kept is left, those it set aside (a busy worker beats no worker).
            while (!admit(request, chosen, isl, predicted, blocks, now, s)) {
                s.loads[chosen] = inflight.view(chosen); // the load that refused it, for an explained route
                s.excluded[chosen] = Explanations.OVER_LOAD;
                s.eligible[chosen] = false;
                chosen = pick(s, workers, false);
                if (chosen < 0 && spread.restore(s)) {
                    spreadFromCheapest = false;
                    if (lateBinding.holds(s, now)) {
                        return null; // the workers put back answer to late binding as those kept did: queued
                    }
                    chosen = pick(s, workers, false);
                }
                if (chosen < 0) {
                    return null;
                }
            }
        }
        boolean explored = Picker.explored(s.cost, s.eligible, workers, chosen);
        if (kind.admits) {
            routed.increment();
            if (explored) {
                exploredTotal.increment();
            }
            if (spreadFromCheapest) {
                spreadTotal.increment();
            }
        }
        RouteDecision decision = new RouteDecision(request.requestId(), registry.name(chosen), chosen, ps.scope(),
                ps.version(), isl, predicted, s.predictionSource, s.previousStepOutputTokens(), explored,
                spreadFromCheapest, queuedNanos, s.terms[chosen].toBreakdown(),
                request.explain() ? explanations.candidates(s) : List.of());
        if (kind.admits) {
            tellSink(request, decision, ctx, blocks > 0 ? lookup.hash(0) : 0, s);
        }
        return decision;
    }

    /**
     * The request-level inputs of the cost model ({@link RouteContext}): prompt geometry, {@code d̂(r)}, where the
     * request's workflow ran its previous step and how long ago, and which workers hold the expected next tools.
     */
    private RouteContext requestContext(RouteRequest request, ParameterSet ps, int isl, int blocks, long now,
                                        AttemptScratch s) {
        PromptLookup lookup = s.lookup;
        RouteRequest.AgentContext agent = request.agent();
        WorkflowAffinity.LastStep last = agent == null || agent.workflowId() == null ? null
                : workflows.last(agent.workflowId(), now);
        s.previousStep = last;
        int predicted = predictOutput(request, ps, isl, blocks > 0 ? lookup.hash(0) : 0, s);
        RouteContext ctx = s.context.reset(isl, predicted, settings.blockSize(), settings.bytesPerToken());
        if (agent != null) {
            if (last != null) {
                ctx.lastStep(last.worker(), last.idleSeconds(now));
            }
            List<String> expected = agent.expectedNextTools();
            if (!expected.isEmpty()) {
                ctx.expectedTools(expected.size());
                for (int w = 0; w < registry.size(); w++) {
                    ctx.toolHits(w, tools.hits(w, expected, now));
                }
            }
        }
        return ctx;
    }

    /**
     * Ā, C_harm's count of the requests a recomputed token delays: in flight per healthy worker; and the share of
     * healthy workers with a request waiting for its first token, D̄'s sample (taken only by an arrival).
     */
    private void fleetSample(RouteContext ctx, AttemptKind kind, long now) {
        long fleetInFlight = 0;
        int healthy = 0;
        int waitingWorkers = 0;
        for (int w = 0; w < registry.size(); w++) {
            if (status.takesRequests(w)) {
                LoadView v = inflight.view(w);
                fleetInFlight += v.inFlight();
                if (v.waiting() > 0) {
                    waitingWorkers++;
                }
                healthy++;
            }
        }
        ctx.fleetMeanInFlight(healthy == 0 ? 0 : (double) fleetInFlight / healthy);
        if (kind.arrival) {
            fleetRates.arrival(now, healthy == 0 ? 0 : (double) waitingWorkers / healthy, healthy, ctx);
        } else {
            fleetRates.read(healthy, ctx);
        }
    }

    /**
     * Scores every worker in service with the cost model into {@code s}: its terms, cost and load, whether it is
     * eligible, and why not (out of service, a prompt its KV cache cannot hold, a non-finite cost, over its limits).
     */
    private void scoreCandidates(RouteRequest request, int isl, RouteContext ctx, ParameterSet ps, AttemptScratch s) {
        s.healthyCandidates = 0;
        s.holdingCandidates = 0;
        // Only an exact prompt length (token ids or a given count) rules a worker out; a length estimated from
        // text may be long, and the engine that tokenizes it is the judge.
        boolean exactLength = request.tokens() != null || request.inputTokens() != null;
        s.minCost = Double.POSITIVE_INFINITY;
        for (int w = 0; w < registry.size(); w++) {
            s.eligible[w] = false;
            String outOfService = status.exclusion(w);
            if (outOfService != null) {
                s.excluded[w] = outOfService;
                continue;
            }
            s.healthyCandidates++;
            LoadView load = inflight.view(w);
            s.loads[w] = load; // one snapshot for the check and the score
            if (exactLength && isl >= load.kvCapacityTokens()) {
                // An engine cannot run a prompt its whole KV cache cannot hold with one token to spare (vLLM refuses
                // a prompt beyond max_model_len, which it keeps within the cache): never a candidate.
                s.excluded[w] = Explanations.PROMPT_TOO_LARGE;
                continue;
            }
            s.excluded[w] = null;
            s.holdingCandidates++;
        }
        // Once per route, not once per candidate; over the candidates only: a drained or unhealthy worker holding r's
        // prefix cannot take r, so it must not turn C_step off for every one that can.
        ctx.hitSpreadBlocks(CostModel.hitSpreadBlocks(s.lookup.match(), s.excluded));
        for (int w = 0; w < registry.size(); w++) {
            if (s.excluded[w] != null) {
                continue;
            }
            LoadView load = s.loads[w];
            CostModel.score(ctx, w, s.lookup.match(), load, specs[w].bandwidthNoCopy(), ps, s.terms[w]);
            double cost = s.terms[w].total;
            if (!Double.isFinite(cost)) {
                s.excluded[w] = Explanations.NON_FINITE_COST;
                continue;
            }
            s.cost[w] = cost;
            s.minCost = Math.min(s.minCost, cost);
            boolean over = LoadLimits.over(specs[w], load);
            s.excluded[w] = over ? Explanations.OVER_LOAD : null;
            s.eligible[w] = !over;
        }
    }

    /**
     * The prompt tokens the workflow's previous worker holds on its own tiers (HBM to NVMe; a remote tier is anyone's):
     * λ's observation of whether the previous context outlived the idle time, taken whichever worker is chosen, so
     * that the fit does not see only the returns, which the cost model makes mostly when the context is still held.
     * -1 (no observation) when the previous step still runs (no idle time to decay over: a miss then is impossible,
     * a hit says nothing), when it did not complete (failed or dropped: its worker may never have held the context, so
     * a miss would say nothing about decay), or when that worker is approximate: the index then holds this selector's
     * own admissions until their TTL, so the answer would be "idle below the TTL", not what the engine kept.
     */
    private long lastWorkerHeldTokens(PrefixMatch match, int last, long idleMs, boolean completed, int isl) {
        if (idleMs <= 0 || !completed || specs[last].approximate()) {
            return -1;
        }
        long tokens = (long) match.cumulativeBlocks(last, Tier.NVME.ordinal()) * settings.blockSize();
        return Math.min(tokens, Math.max(0, isl));
    }

    /** Hands an admitted decision to the sink, if any; a sink that fails never fails the route (counted, logged once). */
    private void tellSink(RouteRequest request, RouteDecision decision, RouteContext ctx, long prefixHash,
                          AttemptScratch s) {
        DecisionSink sink = decisionSink;
        if (sink == null) {
            return;
        }
        int last = ctx.lastWorker();
        long idleMs = last >= 0 ? Math.round(ctx.secondsSinceLastStep() * 1000) : -1;
        long lastHeld = last >= 0 ? lastWorkerHeldTokens(s.lookup.match(), last, idleMs, s.previousStep.completed(),
                decision.inputTokens()) : -1;
        try {
            sink.decided(request, decision, s.healthyCandidates, prefixHash, idleMs, lastHeld, System.currentTimeMillis());
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

    /**
     * Hands an admission to the other replicas; an admission they could not take or an outbox that fails never fails
     * the route (counted, logged once).
     */
    private void tellReplicas(ReplicaOutbox outbox, RouteRequest request, int worker, int isl, int predicted,
                              CostTerms terms, PrefixMarks marks) {
        try {
            RouteRequest.AgentContext agent = request.agent();
            outbox.admitted(new ReplicaAdmission(request.requestId(), worker, isl, predicted, terms.pEffTokens,
                    terms.tierTokens, marks, agent == null ? null : agent.workflowId(),
                    agent == null ? List.of() : agent.expectedNextTools()));
        } catch (RuntimeException e) {
            outboxErrors.increment();
            if (outboxErrors.sum() == 1) {
                org.slf4j.LoggerFactory.getLogger(Selector.class).error("replica outbox failed on request '{}' (the "
                        + "route stands; the other replicas do not hear of it; further failures are only counted in "
                        + "replicaOutboxErrors): {}", request.requestId(), e.toString(), e);
            }
        }
    }

    /**
     * A request another replica admitted ({@link ReplicaOutbox#admitted}), taken into this one's load as if routed
     * here at {@code atNanos} (this selector's clock): its worker's in-flight count, decode work and KV, and where its
     * workflow ran and which tools it warmed. False when a request with its id is already in flight here (heard twice).
     */
    public boolean admitReplicaRequest(ReplicaAdmission a, long atNanos) {
        if (a.worker() >= registry.size()) {
            throw new IllegalArgumentException("worker " + a.worker() + " of request '" + a.requestId()
                    + "' is out of range: this selector has " + registry.size());
        }
        try {
            inflight.admit(a.requestId(), a.worker(), a.promptTokens(), a.predictedOutputTokens(), a.prefillTokens(),
                    a.tierTokens(), a.marks(), atNanos);
        } catch (DuplicateRequestException e) {
            return false;
        }
        if (a.workflowId() != null) {
            workflows.routed(a.workflowId(), a.requestId(), a.worker(), atNanos);
        }
        if (!a.expectedNextTools().isEmpty()) {
            tools.routed(a.worker(), a.expectedNextTools(), atNanos);
        }
        return true;
    }

    /**
     * The granule of {@link PrefixMarks}, in prompt tokens: a shared prompt prefix counts once in {@code KV_used} in
     * whole granules of this size. Measured at 512 and 2,048 tokens on the simulated fleet (fleet-sim/experiments/
     * ROUNDS.md, "Shared-KV round"): at 512 both p99 targets came out lower than at 2,048 (seeds 1–2).
     */
    static final int PREFIX_MARK_TOKENS = 2048;

    /** Runs with the chosen worker between scoring and admission (tests: a concurrent route taking its slot). */
    private IntConsumer beforeAdmission;

    /** Sets {@link #beforeAdmission}; before the routes it should see, from the thread that starts them. */
    void beforeAdmission(IntConsumer hook) {
        this.beforeAdmission = hook;
    }

    /** Admits {@code request} to {@code worker}; false, with nothing changed, when the worker is at its load limits. */
    private boolean admit(RouteRequest request, int worker, int isl, int predicted, int blocks, long now,
                          AttemptScratch s) {
        long[] all = null;
        PrefixMarks marks = PrefixMarks.NONE;
        if (inflight.ownKvAccounting()) { // the marks need the whole prompt hashed: only where KV_used is ours to count
            all = s.lookup.allHashes(request, blocks);
            marks = PrefixMarks.of(all, all.length, Math.max(1, PREFIX_MARK_TOKENS / settings.blockSize()),
                    settings.blockSize());
        }
        if (!inflight.admitWithin(specs[worker].maxInFlight(), specs[worker].maxWaiting(), request.requestId(), worker,
                isl, predicted, s.terms[worker].pEffTokens, s.terms[worker].tierTokens, marks, now)) {
            return false;
        }
        ReplicaOutbox outbox = replicaOutbox;
        if (outbox != null) {
            tellReplicas(outbox, request, worker, isl, predicted, s.terms[worker], marks);
        }
        if (specs[worker].approximate()) {
            if (all == null) {
                all = s.lookup.allHashes(request, blocks); // a copy: it escapes to the writer thread
            }
            if (all.length > 0) {
                writer.routed(worker, all, all.length, now, settings.approximateTtl().toNanos());
            }
        } else if (settings.computingClaims()) {
            claimComputing(request, worker, blocks, all, now, s);
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
        return true;
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
    private void claimComputing(RouteRequest request, int worker, int blocks, long[] all, long now, AttemptScratch s) {
        int from = s.lookup.match().totalBlocks(worker);
        long[] toCompute = all == null ? s.lookup.hashesFrom(request, blocks, from) // escapes: a copy
                : Arrays.copyOfRange(all, Math.min(from, all.length), all.length); // the prompt is hashed already
        long ttl = settings.computingClaimTtl().toNanos();
        if (toCompute.length > 0) {
            writer.routed(worker, toCompute, toCompute.length, now, ttl);
        }
        // Remembered even when it claims nothing: it may rely on an earlier claim on this worker (ComputingClaims).
        claims.made(request.requestId(), new ComputingClaims.Claim(worker, toCompute, now, ttl));
    }

    /** {@code d̂(r)}: the agent's hint, else the quantile model, else {@code max_tokens / 2}. */
    private int predictOutput(RouteRequest r, ParameterSet ps, int isl, long prefixGroup, AttemptScratch s) {
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
                    r.maxTokens(), prefixGroup, s.previousStepOutputTokens()), ps.outputQuantile());
            if (Double.isFinite(q) && q >= 0) {
                s.predictionSource = PredictionSource.QUANTILE_MODEL;
                return (int) Math.min(Math.round(q), r.maxTokens());
            }
        }
        s.predictionSource = PredictionSource.MAX_TOKENS_HALF;
        return Math.max(1, r.maxTokens() / 2);
    }

    /** A dry run draws per-thread randomness, so that a seeded run picks the same whatever dry runs it serves. */
    private int pick(AttemptScratch s, int workers, boolean dryRun) {
        if (seededRandom == null || dryRun) {
            return picker.pick(s.cost, s.eligible, workers, ThreadLocalRandom.current());
        }
        synchronized (seededRandom) { // a seeded generator is one sequence, not thread-safe
            return picker.pick(s.cost, s.eligible, workers, seededRandom);
        }
    }

    // ---- lifecycle events ----

    /**
     * A request event reported to this selector (a gateway's post, a route given up after its admission): applied
     * here, and told to the other replicas when replica sync is on. True unless it changed nothing and nobody was told
     * ({@link ReportedEvent#UNKNOWN}).
     */
    public boolean onRequestEvent(RequestEvent event) {
        return report(event) != ReportedEvent.UNKNOWN;
    }

    /** As {@link #onRequestEvent}, saying whether the event was applied here or relayed to the other replicas. */
    public ReportedEvent report(RequestEvent event) {
        boolean applied = applyReplicaEvent(event);
        ReplicaOutbox outbox = replicaOutbox;
        if (outbox == null) {
            return applied ? ReportedEvent.APPLIED : ReportedEvent.UNKNOWN;
        }
        try {
            return outbox.reported(event, applied);
        } catch (RuntimeException e) {
            outboxErrors.increment();
            if (outboxErrors.sum() == 1) {
                org.slf4j.LoggerFactory.getLogger(Selector.class).error("replica outbox failed on an event of request "
                        + "'{}' (further failures are only counted in replicaOutboxErrors): {}", event.requestId(),
                        e.toString(), e);
            }
            return applied ? ReportedEvent.APPLIED : ReportedEvent.UNKNOWN;
        }
    }

    /**
     * Applies a request event to this selector's state only (another replica relayed it, or {@link #report} does);
     * returns false when the request is not in flight here.
     */
    public boolean applyReplicaEvent(RequestEvent event) {
        long now = clock.getAsLong();
        EventEffect effect;
        if (event.type() == RequestEvent.Type.FINISHED || event.type() == RequestEvent.Type.FAILED) {
            // A finished step's reported output count is its workflow's next step's previousStepOutputTokens; a failed
            // step, or one no event gave a count, leaves none.
            int[] reported = {0};
            effect = inflight.apply(event, now, n -> reported[0] = n);
            workflows.finished(event.requestId(), now, reported[0] > 0 ? reported[0] : null,
                    event.type() == RequestEvent.Type.FINISHED);
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
                && lateBinding.bound() > 0 && !warnedFinishWithoutOutput) {
            warnedFinishWithoutOutput = true; // once: a gateway that never posts outputs does so for every request
            org.slf4j.LoggerFactory.getLogger(Selector.class).warn("request '{}' finished with no first_token or tokens "
                    + "event before: late binding (routing.holdAtWaiting {}, holdAtCheapestWaiting {}) counts a request "
                    + "as waiting until its first output, so without those events each worker takes only that many "
                    + "requests at a time and the rest wait in the admission queue; have the gateway post first_token "
                    + "events, or set both to 0",
                    event.requestId(), settings.holdAtWaiting(), settings.holdAtCheapestWaiting());
        }
        if (effect.mayFreeSlot()) {
            drain.drain(); // cheap when nobody waits
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
        if (inflight.onTelemetry(sample)) {
            silentWorkers.warnRunningTotals(sample);
        }
        drain.drain();
    }

    public void setHealthy(int worker, boolean healthy) {
        status.setHealthy(worker, healthy);
        if (healthy) {
            drain.drain(); // it may take queued requests
        }
    }

    public void setDraining(int worker, boolean draining) {
        status.setDraining(worker, draining);
        if (!draining) {
            drain.drain(); // it may take queued requests
        }
    }

    public List<WorkerView> workers() {
        List<WorkerView> out = new ArrayList<>(registry.size());
        for (int w = 0; w < registry.size(); w++) {
            WorkerStatus.State st = status.state(w);
            out.add(new WorkerView(registry.name(w), w, st.healthy(), st.draining(),
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
            // A dropped step ends with it: else its workflow reads as running (idle 0, the full bonus) until
            // workflowMaxAge, and the request's entry in the workflow tracker stays for as long.
            int expired = inflight.expire(now, id -> workflows.finished(id, now, null, false));
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
            if (p.future().completeExceptionally(new NoCapacityException(explanations.queueTimeout()))) {
                rejected.increment(); // not one its client gave up meanwhile: that one was abandoned, counted so
            }
        }
        drain.drain();
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

    // ---- counters for metrics ----

    public long routedCount() { return routed.sum(); }
    public long queuedCount() { return queuedTotal.sum(); }
    /** Routes the light-load spread sent away from the cheapest candidate ({@code routing.spreadWithin}). */
    public long spreadCount() { return spreadTotal.sum(); }

    /** Queued routes placed before the cost order for having waited {@code routing.queueOverdueAfter}. */
    public long overduePlacedCount() { return drain.overduePlaced(); }

    /** Dry runs the admission-queue drains made to choose what to place: their work under the drain lock. */
    public long drainDryRunCount() { return drain.dryRuns(); }
    public long rejectedCount() { return rejected.sum(); }
    /** Requests dropped from the in-flight load because no event came for {@code routing.requestMaxAge}. */
    public long expiredRequestCount() { return expiredRequests.sum(); }
    public long exploredCount() { return exploredTotal.sum(); }

    /** Admitted decisions the {@link DecisionSink} threw on (lost to it; the routes stood). */
    public long decisionSinkErrors() { return sinkErrors.sum(); }

    /** Admissions and reported events the {@link ReplicaOutbox} threw on (the other replicas did not hear of them). */
    public long replicaOutboxErrors() { return outboxErrors.sum(); }
    public int queueLength() { return queue.size(); }

    /** {@code D̄}: the fleet's prefill duty as C_harm's κ reads it (0 to 1). */
    public double prefillDuty() { return fleetRates.prefillDuty(); }

    /** {@code λ_w}: the fleet's arrival rate per healthy worker (requests/s) as C_harm reads it; 0 while unknown. */
    public double arrivalRatePerWorker() {
        return fleetRates.arrivalRatePerWorker(status.takingRequests());
    }
}
