package io.tierroute.sim.live;

import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.ingest.IndexWriter;
import io.tierroute.selector.metrics.SelectorMetrics;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.scheduling.DecisionSink;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sequences.Telemetry;
import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.engine.Simulation;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.WorkerTelemetry;
import io.tierroute.sim.policy.tierroute.SimRouteRequests;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The fleet simulator in live mode: the discrete-event {@link Simulation} paced to the wall clock
 * ({@code timeScale} simulated seconds per wall second), routed by the real {@link Selector} (its
 * parameters from a {@link ParameterStore} that a {@code ParameterLoader} hot-reloads, its decisions
 * to a {@link DecisionSink} such as the {@code DecisionPublisher}), publishing what real engines
 * publish through a {@link FleetPublisher}: 1 Hz telemetry per worker, KV event batches, completion logs.
 *
 * <p><b>Time.</b> The simulation runs on its virtual clock; {@link FleetPacer} sleeps in the simulator's callbacks
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
 *
 * <p><b>Pieces.</b> This class owns the simulation thread and the {@link RoutingPolicy} callbacks, and wires the
 * package-private pieces: {@link FleetPacer} (wall-clock pacing, the selector's clock, stopping),
 * {@link LiveSelectorSettings} (the selector's settings), {@link FleetAdmission} (routing an arrival, waiting while no
 * worker takes requests), {@link HeldRoutes} (late binding's held requests and their release),
 * {@link InFlightRequests} (each routed request's instants until its completion log), {@link EngineRecords} (the
 * telemetry and completion records) and {@link FleetCounters} (counts and TTFT).
 */
public final class LiveFleet implements RoutingPolicy, AutoCloseable {

    private final EngineConfig cfg;
    private final List<SimRequest> requests;
    private final String scope;
    private final FleetPublisher publisher;
    private final Selector selector;
    private final DirectIndexWriter writer;
    private final SelectorMetrics metrics;
    private final FleetView fleetView;
    private final FleetPacer pacer;
    private final FleetCounters counters = new FleetCounters();
    private final InFlightRequests inFlight;
    private final HeldRoutes holds;
    private final FleetAdmission admission;
    private final Simulation sim;
    private final Thread thread;
    private volatile boolean done;
    private volatile Throwable failure;
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
        this.scope = scope;
        this.publisher = publisher;
        this.pacer = new FleetPacer(timeScale);
        this.inFlight = new InFlightRequests(cfg, scope, publisher, pacer, counters);
        this.sim = new Simulation(cfg, requests).onCompletion(inFlight::realised);
        FleetView fleet = sim.fleetView();
        SelectorSettings settings = LiveSelectorSettings.of(fleet, seed);
        RunPrefixIndex index = RunPrefixIndex.builder().workers(fleet.workers()).build();
        this.writer = new DirectIndexWriter(index);
        this.selector = new Selector(settings, index, writer, params, pacer::nowNanos);
        this.fleetView = fleet;
        if (decisions != null) {
            this.selector.decisionSink(decisions);
        }
        // JVM collectors too: the fleet runs in the selector's process (the demo), so they describe it. They are
        // registered once per process (SelectorMetrics), so building many fleets leaks no GC listeners.
        this.metrics = new SelectorMetrics(selector, writer, true);
        this.thread = new Thread(this::runSimulation, "tierroute-live-fleet");
        this.thread.setDaemon(true);
        this.holds = new HeldRoutes(thread, metrics, counters, inFlight);
        this.admission = new FleetAdmission(selector, metrics, counters, pacer, holds);
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
        pacer.begin(requests);
        try {
            sim.run(this, null);
        } catch (FleetPacer.Stopped e) {
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
        pacer.requestStop();
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
    public long routed() { return counters.routed.sum(); }
    public long finished() { return counters.finished.sum(); }
    /** Routed requests that failed (a held request refused before it was routed is {@link #lateBoundRefused}). */
    public long failed() { return counters.failed.sum(); }

    /** Routed requests neither finished nor failed yet: {@link #routed} - {@link #finished} - {@link #failed}. */
    public long inFlight() {
        // The outcomes first: a request is counted routed before it finishes, so this never goes below 0.
        long ended = finished() + failed();
        return Math.max(0, routed() - ended);
    }
    public int totalRequests() { return requests.size(); }
    public Selector selector() { return selector; }
    /** Where the selector's KV events go (applied on the simulation thread). */
    public IndexWriter indexWriter() { return writer; }
    /** The selector's metrics, with this fleet's routes counted. */
    public SelectorMetrics metrics() { return metrics; }
    /** Arrivals that waited because no worker could take requests (all drained or unhealthy). */
    public long held() { return counters.held.sum(); }
    /** Arrivals the selector held by late binding until a worker had room (its admission queue). */
    public long lateBound() { return counters.lateBound.sum(); }
    /** Of {@link #lateBound}, those placed so far (the rest are still held, or were refused). */
    public long lateBoundPlaced() { return counters.lateBoundPlaced.sum(); }
    /** Of {@link #lateBound}, those refused while held (no capacity: the selector stopped). */
    public long lateBoundRefused() { return counters.lateBoundRefused.sum(); }
    /** Held arrivals placed on another thread (an operator's undrain) and handed to the simulation thread. */
    long releasedOffThread() { return counters.releasedOffThread.sum(); }
    /** Simulated seconds elapsed. */
    public double virtualSeconds() { return pacer.virtualSeconds(); }

    /** TTFT quantile so far in seconds (NaN before the first token). */
    public double ttftSeconds(double quantile) {
        return counters.ttftSeconds(quantile);
    }

    /** The fleet waits in {@link #idleWhileHolding} for a worker to take requests (for tests and status). */
    boolean waitingForAWorker() { return admission.waitingForAWorker(); }

    // ---- RoutingPolicy: what the simulator tells the router ----

    @Override public String name() { return "tierroute-live"; }
    @Override public String version() { return "tierroute " + selector.parameters().current().source(); }

    @Override
    public void onKvEvent(KvEvent event, long nowMicros) {
        pacer.pace(nowMicros);
        writer.submit(List.of(event));
        publisher.kv(event, pacer.epochMs(nowMicros));
    }

    @Override
    public void onTelemetry(WorkerTelemetry t) {
        pacer.pace(t.atMicros());
        holds.settle();
        long kvUsed = Math.round(t.kvUsage() * t.hbmCapacityBlocks() * cfg.blockSize());
        selector.onTelemetry(new Telemetry(t.worker(), pacer.nowNanos(), t.waiting(), t.running(), kvUsed,
                t.pendingPrefillTokens(), t.prefillTokens(), t.decodeSteps()));
        if (t.atMicros() != lastTickMicros) {
            lastTickMicros = t.atMicros();
            selector.tick();
            publisher.flushKv();
        }
        holds.rethrowFailure();
        publisher.telemetry(EngineRecords.telemetry(t, cfg, scope, pacer.epochMs(t.atMicros())));
    }

    @Override
    public void attach(Dispatcher dispatcher) {
        holds.attach(dispatcher);
    }

    @Override
    public int route(SimRequest r, FleetView view, long nowMicros) {
        pacer.pace(nowMicros);
        holds.settle();
        publisher.flushKv();
        RouteRequest req = SimRouteRequests.of(r, false);
        inFlight.stampArrival(r); // before admit moves the pacing origin by a pause
        CompletableFuture<RouteDecision> f = admission.admit(req, pacer.wallNanos(nowMicros));
        long t0 = admission.lastAttemptNanos();
        if (!f.isDone()) {
            // Held in the selector's admission queue (late binding): a first token or a finish completes it, and the
            // simulator delivers it at that instant.
            holds.hold(r, f, t0);
            return HOLD;
        }
        RouteDecision d = f.join();
        metrics.route(SelectorMetrics.RouteOutcome.ROUTED, System.nanoTime() - t0);
        counters.routed.increment();
        return d.workerIndex();
    }

    /**
     * The simulator delivered {@code r} to {@code worker}: from now on it is in flight there. Its dispatch instant and
     * what the engine holds of its prompt are taken here, at the delivery (for a held request, a DISPATCH event of its
     * own, not the middle of the step whose first token released it).
     */
    @Override
    public void onRouted(SimRequest r, int worker, long nowMicros) {
        inFlight.routed(r, worker, nowMicros, fleetView);
    }

    /**
     * The simulator has nothing left to run but the requests the selector holds, and would end with them never
     * released: while no worker takes requests (an operator drained them all), the fleet waits for one
     * ({@link FleetAdmission#idleWhileHolding}).
     */
    @Override
    public void idleWhileHolding(long nowMicros) {
        admission.idleWhileHolding(nowMicros);
    }

    @Override
    public void onFirstToken(SimRequest r, int worker, long nowMicros) {
        pacer.pace(nowMicros);
        holds.settle();
        selector.onRequestEvent(new RequestEvent(r.id(), RequestEvent.Type.FIRST_TOKEN, 1));
        holds.rethrowFailure();
        inFlight.firstToken(r, nowMicros);
    }

    /** Progress as a gateway posts it, as in the benchmark: the KV a request's output holds. */
    @Override
    public int progressEveryTokens() {
        return io.tierroute.sim.policy.tierroute.TierroutePolicy.PROGRESS_EVERY_TOKENS;
    }

    @Override
    public void onTokens(SimRequest r, int worker, int generated, long nowMicros) {
        pacer.pace(nowMicros);
        holds.settle();
        selector.onRequestEvent(new RequestEvent(r.id(), RequestEvent.Type.TOKENS, generated));
        holds.rethrowFailure();
    }

    @Override
    public void onFinished(SimRequest r, int worker, int outputTokens, long nowMicros) {
        pacer.pace(nowMicros);
        holds.settle();
        selector.onRequestEvent(new RequestEvent(r.id(), RequestEvent.Type.FINISHED, outputTokens));
        holds.rethrowFailure();
        inFlight.finished(r, outputTokens, nowMicros);
    }
}
