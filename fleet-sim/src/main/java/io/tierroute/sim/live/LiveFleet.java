package io.tierroute.sim.live;

import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.RequestStatus;
import io.tierroute.schemas.avro.TierTokens;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.ingest.IndexWriter;
import io.tierroute.selector.metrics.SelectorMetrics;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.DecisionSink;
import io.tierroute.selector.scheduling.NoCapacityException;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sequences.Telemetry;
import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.engine.Simulation;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.WorkerTelemetry;
import io.tierroute.sim.policy.tierroute.SimRouteRequests;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The fleet simulator in live mode: the discrete-event {@link Simulation} paced to the wall clock
 * ({@code timeScale} simulated seconds per wall second), routed by the real {@link Selector} (its
 * parameters from a {@link ParameterStore} that a {@code ParameterLoader} hot-reloads, its decisions
 * to a {@link DecisionSink} such as the {@code DecisionPublisher}), publishing what real engines
 * publish through a {@link FleetPublisher}: 1 Hz telemetry per worker, KV event batches, completion logs.
 *
 * <p><b>Time.</b> The simulation runs on its virtual clock; this class sleeps in the simulator's callbacks
 * until the wall clock has caught up with {@code start + virtual / timeScale}. Records are stamped with
 * that wall-clock instant (as the selector stamps its decisions), so event times of decisions and
 * completions agree; durations inside records (TTFT, prefill, decode, telemetry intervals) are virtual,
 * i.e. what the simulated engines would measure.
 *
 * <p><b>Operators.</b> The selector's {@link SelectorMetrics} count this fleet's routes as the HTTP API
 * counts its own (outcome and wall-clock latency), so an API served for {@link #selector()} shows them.
 * Workers drained or marked unhealthy through that API take no new requests; when none can take one, the
 * arrival waits (and the fleet's clock with it) until one can again: the simulator cannot turn a
 * request away.
 *
 * <p><b>Late binding.</b> As in the benchmark, the selector holds a request while every worker has one of this
 * fleet's requests waiting for its first token, or its cheapest worker three ({@code holdAtWaiting} 1,
 * {@code holdAtCheapestWaiting} 3, {@link #lateBound()}); the simulator delivers it when the selector places it, at a
 * first token or a finish, cheapest at that moment first.
 */
public final class LiveFleet implements RoutingPolicy, AutoCloseable {

    /** Thrown inside the simulation's callbacks to end a run early. */
    private static final class Stopped extends RuntimeException {
        Stopped() {
            super("stopped", null, false, false);
        }
    }

    /**
     * A routed request until it finishes. Its wall-clock instants are taken when they happen, not recomputed
     * at the end from the pacing origin, which a hold moves: an arrival before a hold stays before it.
     */
    private static final class InFlight {
        final long arrivalMicros;
        final long arrivalEpochMs;
        final long dispatchedEpochMs; // later than the arrival when the arrival waited for a worker
        final int worker;
        final int isl;
        final int[] cachedPerTier;
        final String workflow;
        final String step;
        long firstTokenMicros = -1;
        long firstTokenEpochMs = -1;

        InFlight(long arrivalMicros, long arrivalEpochMs, long dispatchedEpochMs, int worker, int isl, int[] cachedPerTier,
                 String workflow, String step) {
            this.arrivalMicros = arrivalMicros;
            this.arrivalEpochMs = arrivalEpochMs;
            this.dispatchedEpochMs = dispatchedEpochMs;
            this.worker = worker;
            this.isl = isl;
            this.cachedPerTier = cachedPerTier;
            this.workflow = workflow;
            this.step = step;
        }
    }

    private final EngineConfig cfg;
    private final List<SimRequest> requests;
    private final double timeScale;
    private final String scope;
    private final FleetPublisher publisher;
    private final Selector selector;
    private final DirectIndexWriter writer;
    private final SelectorMetrics metrics;
    private final Map<String, InFlight> inFlight = new HashMap<>();
    /** The engine's completion log of a request that just finished, until {@link #onFinished} publishes it. */
    private final Map<String, Completion> realised = new HashMap<>();
    private final Histogram ttft = new Histogram(3_600_000_000L, 3);
    private final LongAdder routed = new LongAdder();
    private final LongAdder finished = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder held = new LongAdder();
    private final LongAdder lateBound = new LongAdder();
    private final LongAdder releasedOffThread = new LongAdder();
    private final LongAdder lateBoundPlaced = new LongAdder();
    private final LongAdder lateBoundRefused = new LongAdder();
    /** Held requests whose route has not completed yet (any thread completes them). */
    private final java.util.concurrent.atomic.AtomicInteger pendingHolds = new java.util.concurrent.atomic.AtomicInteger();
    /** Set on the simulation thread while {@link #route} registers a hold's callback. */
    private boolean registeringHold;
    /** When the last routing attempt of {@link #admit} began: a route's latency counts from it, not from a pause. */
    private long lastAttemptNanos;
    /** Each routed request's arrival instant as stamped at its route, until {@link #onRouted} takes it. */
    private final Map<String, Long> arrivalStamps = new HashMap<>();
    private volatile boolean waitingForAWorker;
    private final FleetView fleetView;
    /** How the simulator takes a request this fleet held ({@link #HOLD}); set before the first event. */
    private Dispatcher dispatcher;
    /**
     * Held requests whose route completed off the simulation thread (an operator's undrain drains the selector's
     * queue on an HTTP thread): delivered at the simulation thread's next callback, as the simulator is one thread.
     */
    private final ConcurrentLinkedQueue<Runnable> releasedElsewhere = new ConcurrentLinkedQueue<>();
    /** A failure inside a release, which the route's future would swallow: the next callback throws it. */
    private RuntimeException heldFailure;
    private final AtomicLong virtualMicros = new AtomicLong();
    private final Simulation sim;
    private final Thread thread;
    private final int[] scratch = new int[Tier.COUNT];
    private volatile boolean stop;
    private volatile boolean done;
    private volatile Throwable failure;
    private long startNanos;
    private long startEpochMs;
    private long originMicros;
    /** The selector's clock (virtual); volatile since HTTP threads read it too (dry runs, views). */
    private volatile long nowNanos;
    private long lastTickMicros = Long.MIN_VALUE;

    /**
     * @param cfg       the simulated engines
     * @param requests  sorted by arrival
     * @param timeScale virtual seconds per wall-clock second (1 = real time)
     * @param scope     the parameter scope of the selector and of the published records
     * @param params    the selector's parameters (hot-reloaded by whoever owns the store)
     * @param decisions where admitted decisions go (e.g. {@code DecisionPublisher}); null for none
     * @param publisher telemetry, KV events and completions
     * @param seed      the selector's seed
     */
    public LiveFleet(EngineConfig cfg, List<SimRequest> requests, double timeScale, String scope, ParameterStore params,
                     DecisionSink decisions, FleetPublisher publisher, long seed) {
        if (!(timeScale > 0)) {
            throw new IllegalArgumentException("time scale must be > 0, got " + timeScale);
        }
        this.cfg = cfg;
        this.requests = requests;
        this.timeScale = timeScale;
        this.scope = scope;
        this.publisher = publisher;
        this.sim = new Simulation(cfg, requests).onCompletion(c -> realised.put(c.request().id(), c));
        FleetView fleet = sim.fleetView();
        int n = fleet.workers();
        List<WorkerSpec> specs = new ArrayList<>(n);
        for (int w = 0; w < n; w++) {
            double[] bw = new double[Tier.COUNT];
            for (Tier t : Tier.values()) {
                bw[t.ordinal()] = t == Tier.HBM ? 0 : fleet.bandwidth(w, t);
            }
            specs.add(new WorkerSpec(FleetPublisher.worker(w), fleet.hbmCapacityBlocks(w) * fleet.blockSize(), bw, false, 0, 0));
        }
        // Late binding as in the benchmark (TierroutePolicy.HOLD_AT_WAITING, HOLD_AT_CHEAPEST_WAITING): this fleet posts
        // every first token. A held request waits in simulated time, which a drained fleet may stop: no queue wait
        // limit cuts it off.
        SelectorSettings settings = SelectorSettings.builder(specs).model(fleet.model()).blockSize(fleet.blockSize())
                .bytesPerToken(fleet.bytesPerToken()).requestMaxAge(Duration.ofDays(1)).seed(seed)
                .holdAtWaiting(io.tierroute.sim.policy.tierroute.TierroutePolicy.HOLD_AT_WAITING)
                .holdAtCheapestWaiting(io.tierroute.sim.policy.tierroute.TierroutePolicy.HOLD_AT_CHEAPEST_WAITING)
                .maxQueued(Integer.MAX_VALUE).maxQueueWait(Duration.ofDays(1)).build();
        RunPrefixIndex index = RunPrefixIndex.builder().workers(n).build();
        this.writer = new DirectIndexWriter(index);
        this.selector = new Selector(settings, index, writer, params, () -> nowNanos);
        this.fleetView = fleet;
        this.selector.inflight().ownKvAccounting(true);
        if (decisions != null) {
            this.selector.decisionSink(decisions);
        }
        // JVM collectors too: the fleet runs in the selector's process (the demo), so they describe it. They are
        // registered once per process (SelectorMetrics), so building many fleets leaks no GC listeners.
        this.metrics = new SelectorMetrics(selector, writer, true);
        this.thread = new Thread(this::runSimulation, "tierroute-live-fleet");
        this.thread.setDaemon(true);
    }

    /** The names the selector and the records use for the workers: w0, w1, ... */
    public static List<String> workerNames(int workers) {
        List<String> out = new ArrayList<>(workers);
        for (int w = 0; w < workers; w++) {
            out.add(FleetPublisher.worker(w));
        }
        return out;
    }

    /** Starts the paced simulation on its own thread. */
    public LiveFleet start() {
        thread.start();
        return this;
    }

    private void runSimulation() {
        startNanos = System.nanoTime();
        startEpochMs = System.currentTimeMillis();
        originMicros = requests.isEmpty() ? 0 : requests.get(0).arrivalMicros();
        try {
            sim.run(this, null);
        } catch (Stopped e) {
            // asked to stop
        } catch (Throwable t) {
            failure = t;
        } finally {
            publisher.flushKv();
            done = true;
        }
    }

    /** Ends the run (at the next callback) and waits for the simulation thread. */
    public void stop() throws InterruptedException {
        stop = true;
        thread.join(10_000);
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    /** Whether every request was replayed (or the run ended). */
    public boolean done() { return done; }
    /** The error that ended the simulation, or null. */
    public Throwable failure() { return failure; }
    public long routed() { return routed.sum(); }
    public long finished() { return finished.sum(); }
    public long failed() { return failed.sum(); }
    public int totalRequests() { return requests.size(); }
    public Selector selector() { return selector; }
    /** Where the selector's KV events go (applied on the simulation thread). */
    public IndexWriter indexWriter() { return writer; }
    /** The selector's metrics, with this fleet's routes counted. */
    public SelectorMetrics metrics() { return metrics; }
    /** Arrivals that waited because no worker could take requests (all drained or unhealthy). */
    public long held() { return held.sum(); }
    /** Arrivals the selector held by late binding until a worker had room (its admission queue). */
    public long lateBound() { return lateBound.sum(); }
    /** Of {@link #lateBound}, those placed so far (the rest are still held, or were refused). */
    public long lateBoundPlaced() { return lateBoundPlaced.sum(); }
    /** Of {@link #lateBound}, those refused while held (no capacity: the selector stopped). */
    public long lateBoundRefused() { return lateBoundRefused.sum(); }
    /** Held arrivals placed on another thread (an operator's undrain) and handed to the simulation thread. */
    long releasedOffThread() { return releasedOffThread.sum(); }
    /** Simulated seconds elapsed. */
    public double virtualSeconds() { return (virtualMicros.get() - originMicros) / 1e6; }

    /** TTFT quantile so far in seconds (NaN before the first token). */
    public double ttftSeconds(double quantile) {
        synchronized (ttft) {
            return ttft.getTotalCount() == 0 ? Double.NaN : ttft.getValueAtPercentile(quantile * 100) / 1e6;
        }
    }

    /** Sleeps until the wall clock reaches the virtual instant {@code micros}; stops the run when asked. */
    private void pace(long micros) {
        if (stop) {
            throw new Stopped();
        }
        virtualMicros.set(micros);
        nowNanos = micros * 1000;
        long target = wallNanos(micros);
        while (true) {
            long wait = target - System.nanoTime();
            if (wait <= 0) {
                return;
            }
            try {
                Thread.sleep(Math.min(50, Math.max(1, wait / 1_000_000)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Stopped();
            }
            if (stop) {
                throw new Stopped();
            }
        }
    }

    /** The {@code System.nanoTime()} at which the virtual instant {@code micros} is due. */
    private long wallNanos(long micros) {
        return startNanos + (long) ((micros - originMicros) * 1000 / timeScale);
    }

    /** The wall-clock epoch ms of the virtual instant {@code micros}. */
    long epochMs(long micros) {
        return startEpochMs + (long) ((micros - originMicros) / 1000.0 / timeScale);
    }

    // ---- RoutingPolicy: what the simulator tells the router ----

    @Override public String name() { return "tierroute-live"; }
    @Override public String version() { return "tierroute " + selector.parameters().current().source(); }

    @Override
    public void onKvEvent(KvEvent event, long nowMicros) {
        pace(nowMicros);
        writer.submit(List.of(event));
        publisher.kv(event, epochMs(nowMicros));
    }

    @Override
    public void onTelemetry(WorkerTelemetry t) {
        pace(t.atMicros());
        settleReleases();
        long kvUsed = Math.round(t.kvUsage() * t.hbmCapacityBlocks() * cfg.blockSize());
        selector.onTelemetry(new Telemetry(t.worker(), nowNanos, t.waiting(), t.running(), kvUsed, t.pendingPrefillTokens(),
                t.prefillTokens(), t.decodeSteps()));
        if (t.atMicros() != lastTickMicros) {
            lastTickMicros = t.atMicros();
            selector.tick();
            publisher.flushKv();
        }
        rethrowHeldFailure();
        long intervalMs = Math.max(1, t.intervalMicros() / 1000);
        List<io.tierroute.schemas.avro.TierLinkSample> links = new ArrayList<>();
        if (cfg.hasCpuTier()) {
            links.add(FleetPublisher.link(io.tierroute.schemas.avro.Tier.CPU,
                    Math.max(0, t.tierBytesMoved()[Tier.CPU.ordinal()]), intervalMs));
        }
        if (cfg.hasNvmeTier()) {
            links.add(FleetPublisher.link(io.tierroute.schemas.avro.Tier.NVME,
                    Math.max(0, t.tierBytesMoved()[Tier.NVME.ordinal()]), intervalMs));
        }
        publisher.telemetry(EngineTelemetry.newBuilder().setWorker(FleetPublisher.worker(t.worker())).setScope(scope)
                .setEngineType("fleet-sim").setHardwarePool("sim").setTimestampMs(epochMs(t.atMicros()))
                .setIntervalMs(intervalMs).setWaitingRequests(t.waiting()).setRunningRequests(t.running())
                .setKvUsedBlocks((int) Math.round(t.kvUsage() * t.hbmCapacityBlocks()))
                .setKvCapacityBlocks((int) t.hbmCapacityBlocks()).setBlockSizeTokens(cfg.blockSize()).setLinks(links)
                .setPrefillTokens(t.prefillTokens()).setPrefillBusyUs(t.prefillBusyMicros())
                .setDecodeSteps(t.decodeSteps()).setDecodeBusyUs(t.decodeBusyMicros()).build());
    }

    @Override
    public void attach(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public int route(SimRequest r, FleetView view, long nowMicros) {
        pace(nowMicros);
        settleReleases();
        publisher.flushKv();
        RouteRequest req = SimRouteRequests.of(r, false);
        arrivalStamps.put(r.id(), epochMs(r.arrivalMicros())); // before admit moves the pacing origin by a pause
        CompletableFuture<RouteDecision> f = admit(req, wallNanos(nowMicros));
        long t0 = lastAttemptNanos;
        if (!f.isDone()) {
            // Held in the selector's admission queue (late binding): a first token or a finish completes it, and the
            // simulator delivers it at that instant.
            lateBound.increment();
            pendingHolds.incrementAndGet();
            registeringHold = true;
            f.whenComplete((d, err) -> {
                // Inline here only on this thread and not during the registration itself: the simulator takes a
                // release only for a request it already holds, i.e. once this route has returned HOLD.
                if (Thread.currentThread() == thread && !registeringHold) {
                    release(r, d, err, t0);
                } else {
                    if (Thread.currentThread() != thread) {
                        releasedOffThread.increment();
                    }
                    releasedElsewhere.add(() -> release(r, d, err, t0));
                }
                pendingHolds.decrementAndGet(); // after the hand-off: see idleWhileHolding
            });
            registeringHold = false;
            return HOLD;
        }
        RouteDecision d = f.join();
        metrics.route(SelectorMetrics.RouteOutcome.ROUTED, System.nanoTime() - t0);
        routed.increment();
        return d.workerIndex();
    }

    /** A held request's route completed: it goes to its worker, or is refused as a client would be answered. */
    private void release(SimRequest r, RouteDecision d, Throwable err, long t0) {
        try {
            if (err == null) {
                metrics.route(SelectorMetrics.RouteOutcome.ROUTED, System.nanoTime() - t0);
                routed.increment();
                lateBoundPlaced.increment();
                dispatcher.dispatch(r, d.workerIndex());
            } else if (err instanceof NoCapacityException) { // the selector stopped, or every worker left meanwhile
                metrics.route(SelectorMetrics.RouteOutcome.NO_CAPACITY, System.nanoTime() - t0);
                arrivalStamps.remove(r.id());
                failed.increment();
                lateBoundRefused.increment();
                dispatcher.dispatch(r, REFUSED);
            } else {
                heldFailure = new IllegalStateException("the held route of " + r.id() + " failed", err);
            }
        } catch (RuntimeException e) {
            heldFailure = e;
        }
    }

    /** Delivers what was released off this thread, then throws a release's failure; at every callback's start. */
    private void settleReleases() {
        for (Runnable release; (release = releasedElsewhere.poll()) != null; ) {
            release.run();
        }
        rethrowHeldFailure();
    }

    private void rethrowHeldFailure() {
        if (heldFailure != null) {
            throw heldFailure;
        }
    }

    /**
     * The simulator delivered {@code r} to {@code worker}: from now on it is in flight there. Its dispatch instant and
     * what the engine holds of its prompt are taken here, at the delivery (for a held request, a DISPATCH event of its
     * own, not the middle of the step whose first token released it).
     */
    @Override
    public void onRouted(SimRequest r, int worker, long nowMicros) {
        Long arrivalEpochMs = arrivalStamps.remove(r.id());
        long dispatchedEpochMs = epochMs(nowMicros); // after a hold, the instant it left
        // The engine side (not the router): what the chosen engine holds of the prompt now, per tier, is
        // what its completion log reports as cached tokens. The selector never sees this.
        fleetView.oracle().matchedBlocks(worker, r, scratch);
        int[] cached = new int[Tier.COUNT];
        for (int t = 0; t < Tier.COUNT; t++) {
            cached[t] = scratch[t] * cfg.blockSize();
        }
        SimRequest.Agent a = r.agent();
        inFlight.put(r.id(), new InFlight(r.arrivalMicros(), arrivalEpochMs == null ? dispatchedEpochMs : arrivalEpochMs,
                dispatchedEpochMs, worker, r.promptTokens(), cached,
                a == null ? null : a.workflowId(), a == null ? null : Integer.toString(a.step())));
    }

    /**
     * Routes {@code req}: its future, done when a worker took it at once, pending while late binding holds it
     * ({@link #lastAttemptNanos}: when its last attempt began). While no worker can take requests (an operator drained
     * them all), waits and retries, then moves the pacing origin by the wait so that the fleet resumes where it
     * stopped instead of replaying the missed wall time at once. The wait is measured from {@code dueNanos}, when the
     * arrival was due, not from when this thread got to it: under CPU contention pacing runs late, and a wait
     * measured from the late start would date the dispatch that much too early.
     */
    private CompletableFuture<RouteDecision> admit(RouteRequest req, long dueNanos) {
        boolean waited = false;
        while (true) {
            long t0 = System.nanoTime();
            lastAttemptNanos = t0;
            CompletableFuture<RouteDecision> f = selector.route(req);
            if (!refusedForCapacity(f)) {
                if (waited) {
                    long pause = System.nanoTime() - dueNanos; // pace returned no earlier than dueNanos
                    startNanos += pause;
                    startEpochMs += pause / 1_000_000;
                }
                return f; // placed, held, or failed otherwise (the caller's join throws it)
            }
            if (!waited) { // counted once per request, as one refused HTTP route would be
                metrics.route(SelectorMetrics.RouteOutcome.NO_CAPACITY, System.nanoTime() - t0);
                held.increment();
                waited = true;
            }
            sleepUntilAWorkerTakesRequests();
        }
    }

    private static boolean refusedForCapacity(CompletableFuture<RouteDecision> f) {
        if (!f.isCompletedExceptionally()) {
            return false;
        }
        try {
            f.join();
            return false;
        } catch (CompletionException e) {
            return e.getCause() instanceof NoCapacityException;
        } catch (java.util.concurrent.CancellationException e) {
            return false;
        }
    }

    /**
     * The simulator has nothing left to run but the requests the selector holds, and would end with them never
     * released: while no worker takes requests (an operator drained them all), the fleet waits, its clock with it, as
     * an arrival does in {@link #admit}. Then the selector drains here, what an undrain placed on another thread is
     * delivered, and the pacing origin moves by the pause.
     */
    @Override
    public void idleWhileHolding(long nowMicros) {
        long dueNanos = wallNanos(nowMicros);
        long before = releasesDispatched();
        waitingForAWorker = true;
        try {
            // Until a release reaches the simulator: an undrain's drain on another thread claims the queue, then
            // completes the futures after its lock, so one look at the queue can fall between the two.
            while (true) {
                while (!aWorkerTakesRequests()) {
                    sleepBriefly();
                }
                selector.tick(); // places what is still queued, on this thread
                settleReleases(); // delivers what the undrain placed
                if (releasesDispatched() != before || pendingHolds.get() == 0) {
                    break;
                }
                sleepBriefly();
            }
        } finally {
            waitingForAWorker = false;
        }
        long pause = System.nanoTime() - dueNanos;
        if (pause > 0) {
            startNanos += pause;
            startEpochMs += pause / 1_000_000;
        }
    }

    /** Held requests handed to the simulator so far, placed or refused. */
    private long releasesDispatched() {
        return lateBoundPlaced.sum() + lateBoundRefused.sum();
    }

    /** The fleet waits in {@link #idleWhileHolding} for a worker to take requests (for tests and status). */
    boolean waitingForAWorker() { return waitingForAWorker; }

    private boolean aWorkerTakesRequests() {
        return selector.workers().stream().anyMatch(w -> w.healthy() && !w.draining());
    }

    /** Polls the flags rather than routing again, so the selector's rejected counter is not inflated. */
    private void sleepUntilAWorkerTakesRequests() {
        do {
            sleepBriefly();
        } while (!aWorkerTakesRequests());
    }

    private void sleepBriefly() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Stopped();
        }
        if (stop) {
            throw new Stopped();
        }
    }

    @Override
    public void onFirstToken(SimRequest r, int worker, long nowMicros) {
        pace(nowMicros);
        settleReleases();
        selector.onRequestEvent(new RequestEvent(r.id(), RequestEvent.Type.FIRST_TOKEN, 1));
        rethrowHeldFailure();
        InFlight f = inFlight.get(r.id());
        if (f != null) {
            f.firstTokenMicros = nowMicros;
            f.firstTokenEpochMs = epochMs(nowMicros);
            synchronized (ttft) {
                ttft.recordValue(Math.max(0, Math.min(ttft.getHighestTrackableValue(), nowMicros - f.arrivalMicros)));
            }
        }
    }

    /** Progress as a gateway posts it, as in the benchmark: the KV a request's output holds. */
    @Override
    public int progressEveryTokens() {
        return io.tierroute.sim.policy.tierroute.TierroutePolicy.PROGRESS_EVERY_TOKENS;
    }

    @Override
    public void onTokens(SimRequest r, int worker, int generated, long nowMicros) {
        pace(nowMicros);
        settleReleases();
        selector.onRequestEvent(new RequestEvent(r.id(), RequestEvent.Type.TOKENS, generated));
        rethrowHeldFailure();
    }

    @Override
    public void onFinished(SimRequest r, int worker, int outputTokens, long nowMicros) {
        pace(nowMicros);
        settleReleases();
        selector.onRequestEvent(new RequestEvent(r.id(), RequestEvent.Type.FINISHED, outputTokens));
        rethrowHeldFailure();
        InFlight f = inFlight.remove(r.id());
        // The engine's own log: null when the request was rejected (its prompt can never fit the worker's KV).
        Completion c = realised.remove(r.id());
        if (f == null) {
            return;
        }
        boolean ok = c != null && f.firstTokenMicros >= 0;
        List<TierTokens> cachedTokens = new ArrayList<>();
        long cachedSum = 0;
        for (int t = 0; t < Tier.COUNT; t++) {
            int tokens = (int) Math.min(f.cachedPerTier[t], Math.max(0, f.isl - 1 - cachedSum));
            if (tokens > 0) {
                cachedTokens.add(TierTokens.newBuilder().setTier(io.tierroute.schemas.avro.Tier.valueOf(Tier.ofOrdinal(t).name()))
                        .setTokens(tokens).build());
                cachedSum += tokens;
            }
        }
        // Realised phases as the engine measured them (virtual µs): queue wait + tier load + prefill = TTFT.
        publisher.completion(CompletionLog.newBuilder().setRequestId(r.id()).setWorker(FleetPublisher.worker(f.worker))
                .setScope(scope).setModel(cfg.model()).setArrivalTimeMs(f.arrivalEpochMs)
                .setDispatchedTimeMs(f.dispatchedEpochMs).setFirstTokenTimeMs(ok ? f.firstTokenEpochMs : null)
                .setFinishedTimeMs(epochMs(nowMicros)).setQueueWaitUs(ok ? c.engineQueueWaitMicros() : 0)
                .setPrefillUs(ok ? c.prefillMicros() : 0).setTierLoadUs(ok ? c.tierLoadMicros() : 0)
                .setDecodeUs(ok ? c.decodeMicros() : 0).setTtftUs(ok ? c.engineTtftMicros() : null).setInputTokens(f.isl)
                .setOutputTokens(outputTokens).setCachedTokens(cachedTokens)
                .setStatus(ok ? RequestStatus.OK : RequestStatus.FAILED)
                .setStatusDetail(ok ? null : "the prompt does not fit the worker's KV cache")
                .setWorkflowId(f.workflow).setStepId(f.step).build());
        if (ok) {
            finished.increment();
        } else {
            failed.increment();
        }
    }
}
