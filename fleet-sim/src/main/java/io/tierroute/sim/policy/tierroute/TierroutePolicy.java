package io.tierroute.sim.policy.tierroute;

import io.tierroute.fitter.decay.DecayObservation;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.CostBreakdown;
import io.tierroute.selector.scheduling.NoCapacityException;
import io.tierroute.selector.scheduling.PromptTooLargeException;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sequences.Telemetry;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.PolicySetup;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.WarmUpShortfall;
import io.tierroute.sim.policy.WorkerTelemetry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * tierroute as a simulator policy: the real {@link Selector} of selector-runtime (prefix index,
 * in-flight tracker, cost model, picker), in event mode, fed by the simulated engines' KV events,
 * its own requests' first-token and finished events and the engines' 1 Hz telemetry, on the
 * simulator's clock. Nothing is reimplemented here; this class only translates.
 *
 * <p>Four variants: {@link #withDefaults} runs DESIGN.md §3's default parameters; {@link #fitted}
 * first replays a warm-up share of the workload with the defaults (plus 10 % ε-exploration, as §5
 * asks for identifiability), fits the coefficients with the fitter's {@code LatencyRegression} on the
 * joined decisions and completion logs ({@link TierrouteFitting}), and then runs with those; {@link #gated}
 * fits on the same warm-ups but passes each fit through the fitter's validation gate, as a deployment does
 * ({@link WarmUpGate}). {@link #withClaims} is {@link #fitted} with the selector's {@code computingClaims} on.
 */
public final class TierroutePolicy implements RoutingPolicy {

    public static final String DEFAULT_NAME = "tierroute-default";
    public static final String FITTED_NAME = "tierroute-fitted";
    public static final String GATED_NAME = "tierroute-gated";
    /** {@link #fitted} with the selector's computing claims on (its warm-ups too): the overload remedy of RESULTS.md. */
    public static final String CLAIMS_NAME = "tierroute-claims";
    /** {@link #fitted}'s parameters routed by two selectors side by side ({@link ReplicatedTierroute}). */
    public static final String TWO_REPLICAS_NAME = "tierroute-2-replicas";
    /** {@link #TWO_REPLICAS_NAME} with replica sync: each replica hears the other's admissions and request events. */
    public static final String TWO_SYNCED_REPLICAS_NAME = "tierroute-2-replicas-synced";
    /**
     * How late a replica hears the other in {@link #TWO_SYNCED_REPLICAS_NAME}: about twice what a record took over the
     * embedded broker on loopback (7-25 ms, median 11, with the machine busy: ReplicaSyncKafkaTest), for a replicated
     * cluster's acks. 50 ms measured worse on the tails (bench/RESULTS.md, "Several replicas").
     */
    static final long SYNC_DELAY_MICROS = 25_000;
    /** {@link #TWO_SYNCED_REPLICAS_NAME} over the direct path ({@code kafka.replicaSync.direct}). */
    public static final String TWO_DIRECT_REPLICAS_NAME = "tierroute-2-replicas-direct";
    /**
     * How late a replica hears the other in {@link #TWO_DIRECT_REPLICAS_NAME}: about the direct path's median on
     * loopback (of nine runs each, the middle 1.20 ms alone and 2.22 ms with the broker running beside it:
     * DirectPathTest, ReplicaSyncDirectKafkaTest; bench/RESULTS.md, "Several replicas").
     */
    static final long DIRECT_SYNC_DELAY_MICROS = 2_000;
    /** Warm-up rounds of the fitted and gated variants (see {@link #warmedUp}). */
    static final int FIT_ROUNDS = 2;

    /**
     * Tokens between the progress events the selector hears (as a gateway that proxies the stream posts
     * {@code tokens} events in batches): each grows the request's context, so the selector's own KV count includes
     * the output it holds.
     */
    public static final int PROGRESS_EVERY_TOKENS = 16;
    /**
     * The selector's {@code holdAtWaiting} here: a request is held while every worker has one of its requests waiting
     * for a first token, then scored over all of them, the cheapest at that moment first (bench/RESULTS.md, "Late
     * binding", "Re-ranking at the drain"), and bound to one under {@link #HOLD_AT_CHEAPEST_WAITING}.
     */
    public static final int HOLD_AT_WAITING = 1;
    /**
     * The selector's {@code holdAtCheapestWaiting} here: nor is a request bound to a worker with three of them waiting;
     * it is held while its cheapest worker has three, and bound when that worker has room or another has become cheaper
     * (bench/RESULTS.md, "Holding for the cheapest worker"). Two gains more on the agentic tail and puts more cells
     * behind elsewhere; one, measured on the round's prototype, collapsed where a worker's step would take several
     * prefills (llmd-blog 3, cpu-overflow 2).
     */
    public static final int HOLD_AT_CHEAPEST_WAITING = 3;

    private final String name;
    private final Selector selector;
    private final DirectIndexWriter writer;
    private final int blockSize;
    private final Map<String, CostBreakdown> decisions; // null unless recording (warm-up)
    private final List<DecayObservation> decayObservations; // null unless recording (warm-up)
    private final String candidateLogPrefix; // -Dtr.candLog on a measured run, else null (CandidateLog)
    private CandidateLog candidateLog; // opened at the first explained route
    private long nowNanos;
    private long lastTickMicros = Long.MIN_VALUE;
    private WarmUpShortfall shortfall; // set by warmedUp when its last round was too short to fit on
    private Dispatcher dispatcher;
    // A held route that failed other than as a client would be refused: thrown from the callback whose selector call
    // completed it (the future's own handler would swallow it).
    private RuntimeException heldFailure;

    TierroutePolicy(String name, FleetView fleet, long seed, ParameterSet params, double epsilon, boolean record,
            boolean computingClaims) {
        this(name, fleet, seed, params, epsilon, record, computingClaims, true);
    }

    /**
     * As above; {@code ownKvAccounting} false for one of several selectors ({@link ReplicatedTierroute}), which routes a
     * share of the fleet's requests and so takes the engine's sample as its {@code KV_used} base.
     */
    TierroutePolicy(String name, FleetView fleet, long seed, ParameterSet params, double epsilon, boolean record,
            boolean computingClaims, boolean ownKvAccounting) {
        this.name = name;
        int n = fleet.workers();
        this.blockSize = fleet.blockSize();
        List<WorkerSpec> specs = new ArrayList<>(n);
        for (int w = 0; w < n; w++) {
            double[] bw = new double[Tier.COUNT];
            for (Tier t : Tier.values()) {
                bw[t.ordinal()] = t == Tier.HBM ? 0 : fleet.bandwidth(w, t);
            }
            specs.add(new WorkerSpec(workerName(w), fleet.hbmCapacityBlocks(w) * fleet.blockSize(), bw, false, 0, 0));
        }
        SelectorSettings settings = SelectorSettings.builder(specs)
                .model(fleet.model())
                .blockSize(fleet.blockSize())
                .bytesPerToken(fleet.bytesPerToken())
                .explorationEpsilon(epsilon)
                .requestMaxAge(Duration.ofDays(1)) // the simulator reports every finish; nothing gets lost
                // Late binding (bench/RESULTS.md, "Late binding"): the simulator reports every first token. A held
                // request waits as long as it must, as an engine's queue would keep it (its workers never hang, and
                // holdAtCheapestSilentAfter's default changes none of its rows: bench/RESULTS.md, "A silent worker").
                .holdAtWaiting(HOLD_AT_WAITING)
                .holdAtCheapestWaiting(HOLD_AT_CHEAPEST_WAITING)
                .maxQueued(Integer.MAX_VALUE)
                .maxQueueWait(Duration.ofDays(1))
                .computingClaims(computingClaims)
                // Alone, the selector routes every request of the simulated fleet: its own in-flight accounting is the
                // workers' exact KV demand, queued requests included (routing.ownKvAccounting).
                .ownKvAccounting(ownKvAccounting)
                .seed(seed)
                .build();
        RunPrefixIndex index = RunPrefixIndex.builder().workers(n).build();
        this.writer = new DirectIndexWriter(index);
        this.selector = new Selector(settings, index, writer, new ParameterStore(params), () -> nowNanos);
        this.decisions = record ? new HashMap<>() : null;
        this.decayObservations = record ? new ArrayList<>() : null;
        if (record) {
            selector.decisionSink(this::observeDecay);
        }
        boolean measured = Set.of(FITTED_NAME, GATED_NAME, DEFAULT_NAME, CLAIMS_NAME).contains(name);
        this.candidateLogPrefix = measured ? System.getProperty(CandidateLog.PROPERTY) : null;
    }

    /** The selector's name for simulated worker {@code w}. */
    static String workerName(int w) {
        return "w" + w;
    }

    /** DESIGN.md §3's defaults. */
    public static RoutingPolicy withDefaults(PolicySetup setup) {
        ParameterSet defaults = ParameterSet.defaults(setup.fleet().workers());
        return new TierroutePolicy(DEFAULT_NAME, setup.fleet(), setup.seed(), defaults, 0, false, false);
    }

    /** Parameters fitted on a warm-up run of the same simulator and applied as fitted (see the class comment). */
    public static RoutingPolicy fitted(PolicySetup setup) {
        return warmedUp(setup, FITTED_NAME, false, fittedAsIs(setup));
    }

    /** {@link #fitted}, warm-ups included, with the selector's computing claims on ({@link SelectorSettings}). */
    public static RoutingPolicy withClaims(PolicySetup setup) {
        return warmedUp(setup, CLAIMS_NAME, true, fittedAsIs(setup));
    }

    /** Each round's fit applied as fitted. */
    private static RoundFit fittedAsIs(PolicySetup setup) {
        int n = setup.fleet().workers();
        return (fitted, current) -> TierrouteFitting.fit(fitted, n);
    }

    /**
     * Parameters fitted on the same warm-up runs, but through production's path: each round's fit becomes a candidate
     * snapshot that the fitter's validation gate accepts (holding imprecise values the data cannot tell from the ones
     * in force at those) or rejects ({@link WarmUpGate}).
     */
    public static RoutingPolicy gated(PolicySetup setup) {
        WarmUpGate gate = new WarmUpGate(setup.fleet());
        return warmedUp(setup, GATED_NAME, false,
                (f, current) -> f == null ? current : gate.apply(f.results(), current, f.describe()));
    }

    /** How one warm-up round's fit (null: too few completions to fit on) becomes the parameters in force after it. */
    private interface RoundFit {
        ParameterSet next(TierrouteFitting.Fitted fitted, ParameterSet current);
    }

    private static RoutingPolicy warmedUp(PolicySetup setup, String name, boolean claims, RoundFit roundFit) {
        WarmedUp w = warmUp(setup, name, claims, roundFit);
        TierroutePolicy policy = new TierroutePolicy(name, setup.fleet(), setup.seed(), w.params(), 0, false, claims);
        policy.shortfall = w.shortfall();
        return policy;
    }

    /** {@link #fitted}'s parameters routed by two selectors side by side. */
    public static RoutingPolicy twoReplicas(PolicySetup setup) {
        return fittedReplicas(setup, TWO_REPLICAS_NAME, 2, ReplicatedTierroute.NO_SYNC);
    }

    /**
     * {@link #twoReplicas} with replica sync ({@code io.tierroute.selector.sync.ReplicaSync}): each replica hears the
     * other's admissions and request events {@link #SYNC_DELAY_MICROS} late, and so counts every request the fleet
     * serves: its own {@code KV_used} accounting is right again.
     */
    public static RoutingPolicy twoSyncedReplicas(PolicySetup setup) {
        return fittedReplicas(setup, TWO_SYNCED_REPLICAS_NAME, 2, SYNC_DELAY_MICROS);
    }

    /** {@link #twoSyncedReplicas} over the direct path: {@link #DIRECT_SYNC_DELAY_MICROS} late. */
    public static RoutingPolicy twoDirectReplicas(PolicySetup setup) {
        return fittedReplicas(setup, TWO_DIRECT_REPLICAS_NAME, 2, DIRECT_SYNC_DELAY_MICROS);
    }

    /**
     * {@link #fitted}'s parameters (its warm-ups run with one selector) routed by {@code replicas} selectors side by
     * side, as a deployment of several replicas behind one load balancer ({@link ReplicatedTierroute}), each hearing the
     * others {@code syncDelayMicros} late ({@link ReplicatedTierroute#NO_SYNC}: not at all).
     */
    static RoutingPolicy fittedReplicas(PolicySetup setup, String name, int replicas, long syncDelayMicros) {
        boolean synced = syncDelayMicros != ReplicatedTierroute.NO_SYNC;
        WarmedUp w = warmUp(setup, name, false, fittedAsIs(setup));
        List<TierroutePolicy> each = new ArrayList<>(replicas);
        for (int i = 0; i < replicas; i++) {
            // Unsynchronised, one replica routes a share of the fleet's requests: the engine's sample is its KV base.
            TierroutePolicy p = new TierroutePolicy(name, setup.fleet(), setup.seed() ^ (0x9E3779B97F4A7C15L * i),
                    w.params(), 0, false, false, synced);
            p.shortfall = w.shortfall();
            each.add(p);
        }
        return new ReplicatedTierroute(name, each, syncDelayMicros);
    }

    /** The parameters a warm-up left in force, and what it fell short of when it could not fit. */
    private record WarmedUp(ParameterSet params, WarmUpShortfall shortfall) {}

    private static WarmedUp warmUp(PolicySetup setup, String name, boolean claims, RoundFit roundFit) {
        if (setup.warmUp() == null) {
            throw new IllegalArgumentException(name + " needs a warm-up run to fit on; none was provided");
        }
        // Two rounds: the defaults (α_p = 1 µs/token) route far from where the fitted set will, so the
        // features they produce (queues, in-flight decode) are not those the fitted policy sees; a second
        // warm-up with the first fit's parameters samples the right region, and its fit is the one used (when
        // the gate rejects it, tierroute-gated keeps the parameters the first round left in force).
        ParameterSet params = ParameterSet.defaults(setup.fleet().workers());
        TierrouteFitting.Round last = null;
        for (int round = 0; round < FIT_ROUNDS; round++) {
            TierroutePolicy probe = new TierroutePolicy(name + "/warm-up", setup.fleet(),
                    setup.seed() ^ (0x5DEECE66DL + round), params, 0.1, true, claims);
            List<Completion> log = setup.warmUp().run(probe);
            last = TierrouteFitting.fitRound(probe.decisions, log, probe.decayObservations);
            params = roundFit.next(last.fitted(), params);
        }
        // Only reported (the reports must not pass it off as a fitted run); version 0 is the built-in defaults.
        WarmUpShortfall shortfall = last.fitted() != null ? null
                : new WarmUpShortfall(last.completions(), TierrouteFitting.MIN_COMPLETIONS, params.version() == 0);
        return new WarmedUp(params, shortfall);
    }

    @Override public String name() { return name; }
    @Override public WarmUpShortfall warmUpShortfall() { return shortfall; }
    @Override public String version() { return "tierroute " + selector.parameters().current().source(); }

    /**
     * λ's observation of a warm-up step with a previous one, as the fitting job takes it from the decision record:
     * whether the previous worker still held the context, wherever the step went.
     */
    private void observeDecay(RouteRequest request, RouteDecision d, int candidates, long prefixGroupId, long idleMs,
                              long lastWorkerHeldTokens, long timestampMs) {
        if (idleMs >= 0 && lastWorkerHeldTokens >= 0) {
            decayObservations.add(DecayObservation.held(idleMs / 1000.0, lastWorkerHeldTokens, d.inputTokens(),
                    nowNanos / 1_000_000));
        }
    }

    /** The chosen worker's cost of a request this policy recorded (a warm-up probe's), or null. */
    CostBreakdown recordedDecision(String requestId) {
        return decisions == null ? null : decisions.get(requestId);
    }

    /** This policy's clock, the selector's (ns). */
    long nowNanos() {
        return nowNanos;
    }

    /** Moves this policy's clock to {@code nowMicros} unless it is past it: another replica's message arrives then. */
    void advanceTo(long nowMicros) {
        nowNanos = Math.max(nowNanos, nowMicros * 1000);
    }

    /** The selector inside (tests, reports). */
    public Selector selector() {
        return selector;
    }

    @Override
    public void onKvEvent(KvEvent event, long nowMicros) {
        nowNanos = nowMicros * 1000;
        writer.submit(List.of(event));
    }

    @Override
    public void onTelemetry(WorkerTelemetry t) {
        nowNanos = t.atMicros() * 1000;
        long kvUsed = Math.round(t.kvUsage() * t.hbmCapacityBlocks() * blockSize);
        selector.onTelemetry(new Telemetry(t.worker(), nowNanos, t.waiting(), t.running(), kvUsed, t.pendingPrefillTokens(),
                t.prefillTokens(), t.decodeSteps()));
        if (t.atMicros() != lastTickMicros) {
            lastTickMicros = t.atMicros();
            selector.tick();
        }
        rethrowHeldFailure(); // a drain on a sample or a tick may have released a held request
    }

    @Override
    public void attach(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public int route(SimRequest r, FleetView view, long nowMicros) {
        nowNanos = nowMicros * 1000;
        rethrowHeldFailure();
        RouteRequest req = SimRouteRequests.of(r, explainRoute());
        CompletableFuture<RouteDecision> f = selector.route(req);
        if (!f.isDone()) {
            // Held in the selector's admission queue (late binding): a first token or a finish, inside one of this
            // policy's callbacks, completes it, and the simulator delivers it at that instant.
            f.whenComplete((d, err) -> release(r, d, err));
            return HOLD;
        }
        try {
            return bound(r, f.join());
        } catch (CompletionException e) {
            if (refused(e.getCause())) {
                return REFUSED;
            }
            throw e;
        }
    }

    /** A held request's route completed: it goes to its worker, or is refused as a client would be answered. */
    private void release(SimRequest r, RouteDecision d, Throwable err) {
        try {
            if (err == null) {
                dispatcher.dispatch(r, bound(r, d));
            } else if (refused(err)) {
                dispatcher.dispatch(r, REFUSED);
            } else {
                heldFailure = new IllegalStateException("the held route of " + r.id() + " failed", err);
            }
        } catch (RuntimeException e) {
            heldFailure = e; // the future would swallow it: the next callback throws it
        }
    }

    /** A prompt no worker's KV cache can hold (a client's 400), or no capacity (a client's 503). */
    private static boolean refused(Throwable cause) {
        return cause instanceof PromptTooLargeException || cause instanceof NoCapacityException;
    }

    private void rethrowHeldFailure() {
        if (heldFailure != null) {
            throw heldFailure;
        }
    }

    private int bound(SimRequest r, RouteDecision d) {
        if (candidateLog != null) {
            candidateLog.write(r.id(), nowNanos / 1000, d);
        }
        if (decisions != null) {
            decisions.put(r.id(), d.chosen());
        }
        return d.workerIndex();
    }

    /** Whether to explain this route: only a measured run (not a warm-up), only with {@code -Dtr.candLog} (CandidateLog). */
    private boolean explainRoute() {
        if (candidateLogPrefix == null) {
            return false;
        }
        if (candidateLog == null) {
            candidateLog = new CandidateLog(candidateLogPrefix, version());
        }
        return true;
    }

    @Override
    public void onFirstToken(SimRequest r, int worker, long nowMicros) {
        nowNanos = nowMicros * 1000;
        selector.onRequestEvent(new RequestEvent(r.id(), RequestEvent.Type.FIRST_TOKEN, 1));
        rethrowHeldFailure();
    }

    @Override
    public int progressEveryTokens() {
        return PROGRESS_EVERY_TOKENS;
    }

    @Override
    public void onTokens(SimRequest r, int worker, int generated, long nowMicros) {
        nowNanos = nowMicros * 1000;
        selector.onRequestEvent(new RequestEvent(r.id(), RequestEvent.Type.TOKENS, generated));
        rethrowHeldFailure();
    }

    @Override
    public void onFinished(SimRequest r, int worker, int outputTokens, long nowMicros) {
        nowNanos = nowMicros * 1000;
        selector.onRequestEvent(new RequestEvent(r.id(), RequestEvent.Type.FINISHED, outputTokens));
        rethrowHeldFailure();
    }
}
