package io.tierroute.cli;

import io.tierroute.schemas.Topics;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.kafka.DecisionPublisher;
import io.tierroute.selector.kafka.ParameterLoader;
import io.tierroute.selector.kafka.SnapshotConverter;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerView;
import io.tierroute.selector.server.EmbeddedSelectorApi;
import io.tierroute.sim.live.FleetPublisher;
import io.tierroute.sim.live.LiveFleet;
import io.tierroute.sim.live.LiveWorkload;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;

/**
 * The simulated fleet in live mode on a Kafka that carries the tierroute topics, routed by the real selector: the
 * selector's parameter loader (hot reload from tierroute.params / tierroute.control) and decision publisher
 * (tierroute.decisions), the fleet's publisher of engine telemetry, KV event batches and completion logs, the
 * {@link LiveFleet} itself and the selector's HTTP API ({@link DemoSelectorApi}). {@code demo} runs it on its own
 * broker beside the fitting job and the dashboard; {@code fleet} runs it on an operator's Kafka, to feed a fitting
 * job on a session cluster. Its status line and summary are what both print.
 */
final class FleetRun implements AutoCloseable {

    /**
     * Where and how: {@code selectorPort} 0 = any free port; {@code token} the operator token of the selector API's
     * admin calls (null: refused), read from {@code tokenEnv}; {@code fromTrace} whether the requests replay a trace
     * (the summary says "of N in the trace") or a generated workload; {@code kafkaClient} the settings every Kafka client
     * of the run gets (security.protocol, sasl.*, ssl.* …; none for a plain broker).
     */
    record Settings(String bootstrap, Map<String, String> kafkaClient, int workers, double timeScale, String scope,
                    long seed, int selectorPort, String token, String tokenEnv, boolean fromTrace) {
        Settings {
            kafkaClient = Map.copyOf(kafkaClient);
        }

        /** Never the operator token: whatever logs or prints the settings must not leak it. */
        @Override
        public String toString() {
            return "Settings[bootstrap=" + bootstrap + ", kafkaClient=" + new java.util.TreeSet<>(kafkaClient.keySet())
                    + " (values not shown), workers=" + workers + ", timeScale=" + timeScale + ", scope="
                    + scope + ", seed=" + seed + ", selectorPort=" + selectorPort + ", token="
                    + (token == null || token.isEmpty() ? "unset" : "set") + ", tokenEnv=" + tokenEnv + ", fromTrace="
                    + fromTrace + "]";
        }
    }

    /** A stop was asked (Ctrl-C) while the fleet was starting; what had started is stopped. */
    static final class StoppedDuringStart extends RuntimeException {
        StoppedDuringStart() {
            super("stopped during start-up", null, false, false);
        }
    }

    /** How long the selector's loader may take to read the parameter topics before the fleet gives up starting. */
    static final Duration LOADER_READY = Duration.ofSeconds(60);

    private final Settings settings;
    private final LiveWorkload work;
    private final long startedNanos;
    /** When {@link #startFleet} began the replay (0 before); the demo's start-up goes on for a while after it. */
    private volatile long replayStartedNanos;
    /**
     * When the start-up ended ({@link #endStartUp}: the URLs are printed, the status loop begins; 0 before): the status
     * line's and summary's wall seconds and {@code --duration} count from here.
     */
    private volatile long startUpEndedNanos;
    /** When {@link #stopFleet} ended it (0 before): the summary's wall seconds end there, not after the shutdown. */
    private volatile long replayStoppedNanos;
    private final Closers closers = new Closers("tierroute: the fleet");
    private ParameterStore store;
    private ParameterLoader loader;
    private DecisionPublisher decisions;
    private FleetPublisher publisher;
    private LiveFleet fleet;
    private EmbeddedSelectorApi api;
    /** The gate's reasons for a version, when the run's Kafka stops with it (the demo's); null: look them up there. */
    private volatile LongFunction<Optional<List<String>>> gateReasons;

    private FleetRun(Settings settings, LiveWorkload work, long startedNanos) {
        this.settings = settings;
        this.work = work;
        this.startedNanos = startedNanos;
    }

    /**
     * Starts the selector's Kafka parts, the fleet (not yet running: {@link #startFleet}) and the selector API;
     * {@code startedNanos} is when the command's start-up began (the summary reports the start-up apart from the run,
     * whose wall seconds count from {@link #startFleet}). On failure stops what had started.
     */
    static FleetRun start(Settings s, LiveWorkload work, long startedNanos, BooleanSupplier stopRequested) {
        FleetRun run = new FleetRun(s, work, startedNanos);
        try {
            run.startParts(stopRequested);
            return run;
        } catch (RuntimeException | Error e) {
            run.close();
            throw e;
        }
    }

    private void startParts(BooleanSupplier stopRequested) {
        List<String> workers = LiveFleet.workerNames(settings.workers());
        KafkaSettings ks = KafkaSettings.defaults(settings.bootstrap()).withScope(settings.scope())
                .withProperties(settings.kafkaClient())
                .withKvEvents(new KafkaSettings.KvEvents(false, "latest"));
        // The defaults in the run's scope, as the standalone selector starts: its decisions before the first snapshot
        // of the scope would otherwise be published under "default", and a fitting job would fit that scope from them.
        store = new ParameterStore(ParameterSet.defaults(settings.workers()).toBuilder().scope(settings.scope())
                .build());
        loader = new ParameterLoader(ks, store, new SnapshotConverter(new WorkerRegistry(workers), CostParameters.DEFAULTS, 0.5))
                .start();
        closers.add(loader);
        try {
            // In slices, so that Ctrl-C is not kept waiting for the whole minute (the shutdown hook waits no longer).
            long deadline = System.nanoTime() + LOADER_READY.toNanos();
            while (!loader.awaitReady(Duration.ofMillis(200))) {
                if (stopRequested.getAsBoolean()) {
                    throw new StoppedDuringStart();
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the selector's parameter loader did not catch up with " + Topics.PARAMS
                            + " at " + settings.bootstrap() + " within " + LOADER_READY.toSeconds() + " s");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the selector's parameter loader read " + Topics.PARAMS, e);
        }
        if (stopRequested.getAsBoolean()) {
            throw new StoppedDuringStart();
        }
        decisions = new DecisionPublisher(ks, work.engines().model()).start();
        closers.add(decisions);
        publisher = new FleetPublisher(settings.bootstrap(), settings.kafkaClient(), settings.workers(),
                work.engines().model());
        closers.add(publisher);
        fleet = new LiveFleet(work.engines(), work.requests(), settings.timeScale(), settings.scope(), store, decisions,
                publisher, settings.seed());
        closers.add(fleet);
        // The selector's HTTP API, stopped before the fleet (closers run newest first).
        api = DemoSelectorApi.start(fleet, loader, decisions, publisher, settings.bootstrap(), settings.selectorPort(),
                settings.token(), settings.tokenEnv());
        closers.add(api);
    }

    /** Starts replaying the requests, paced to the wall clock. */
    void startFleet() {
        replayStartedNanos = System.nanoTime();
        fleet.start();
    }

    /** When {@link #startFleet} began the replay ({@link System#nanoTime}), 0 before. */
    long replayStartedNanos() {
        return replayStartedNanos;
    }

    /**
     * The start-up ended (the URLs are printed and the status loop begins): {@code --duration} and the run's wall seconds
     * count from here, the replay that ran during the start-up not included. Returns that instant.
     */
    long endStartUp() {
        if (startUpEndedNanos == 0) {
            startUpEndedNanos = System.nanoTime();
        }
        return startUpEndedNanos;
    }

    /** Stops replaying: the run's wall seconds end here. */
    void stopFleet() throws InterruptedException {
        if (replayStoppedNanos == 0) {
            replayStoppedNanos = System.nanoTime();
        }
        fleet.stop();
    }

    /**
     * Wall seconds the run ran: since the start-up ended (before that, since the replay began, or the start-up did);
     * until the stop, or now while it runs.
     */
    private double wallSeconds() {
        long since = startUpEndedNanos != 0 ? startUpEndedNanos : replayStartedNanos != 0 ? replayStartedNanos : startedNanos;
        long until = replayStoppedNanos != 0 ? replayStoppedNanos : System.nanoTime();
        return (until - since) / 1e9;
    }

    LiveFleet fleet() { return fleet; }
    ParameterStore store() { return store; }
    DecisionPublisher decisions() { return decisions; }
    FleetPublisher publisher() { return publisher; }
    URI selectorUri() { return api.uri(); }
    String workloadDescription() { return work.description(); }

    /** Active snapshot version per scope as the selector's loader sees them, e.g. {@code default=v3}. */
    String versions() {
        Map<String, ParameterLoader.ScopeStatus> scopes = loader.status().scopes();
        if (scopes.isEmpty()) {
            return settings.scope() + "=defaults";
        }
        StringBuilder b = new StringBuilder();
        scopes.values().stream().sorted(Comparator.comparing(ParameterLoader.ScopeStatus::scope)).forEach(s -> {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(s.scope()).append('=').append(s.activeVersion() == null ? "-" : "v" + s.activeVersion());
            if (s.pinned()) {
                b.append("(pinned)");
            }
            if (s.newestRejected() != null) {
                b.append(" (v").append(s.newestRejected()).append(" rejected)");
            }
        });
        return b.toString();
    }

    /**
     * The live status line. Its numbers may stand still, and a note at its end says why: {@code · Kafka unreachable for
     * N s} while the selector's parameter loader has no contact with Kafka, {@link #pausedNote} while no worker takes
     * requests.
     */
    String statusLine() {
        ParameterSet p = store.current();
        return String.format(Locale.ROOT, "[%4.0fs | sim %6.0fs] routed %d, done %d | TTFT p50 %s p99 %s | snapshots %s (serving v%d) | α_p %.3g α_d %.3g",
                wallSeconds(), fleet.virtualSeconds(), fleet.routed(), fleet.finished(),
                secs(fleet.ttftSeconds(0.5)), secs(fleet.ttftSeconds(0.99)), versions(), p.version(),
                p.cost().alphaP(), p.cost().alphaD()) + kafkaContact(loader)
                + pausedNote(fleet.selector().workers(), fleet.held()) + fleetRecordsNote(publisher.sendFailures());
    }

    /**
     * {@code  · paused: every worker drained; arrivals wait until one takes requests again (N arrivals held so far this
     * run)} while no
     * worker can take a request (an operator drained them, or marked them unhealthy, through the selector API), else
     * empty. The fleet then holds the next arrival, and its clock with it; {@code held} counts the arrivals that
     * waited so far ({@link LiveFleet#held}).
     */
    static String pausedNote(List<WorkerView> workers, long held) {
        if (workers.isEmpty() || workers.stream().anyMatch(w -> w.healthy() && !w.draining())) {
            return "";
        }
        String why = workers.stream().allMatch(WorkerView::draining) ? "drained"
                : workers.stream().noneMatch(WorkerView::healthy) ? "unhealthy" : "drained or unhealthy";
        return " · paused: every worker " + why + "; arrivals wait until one takes requests again ("
                + Plural.of(held, "arrival") + " held so far this run)";
    }

    /**
     * {@code  · N fleet records failed to send} once the fleet's publisher lost records (a Kafka outage longer than its
     * timeouts, a topic it may not write to): the fitting job never sees them. Empty while none failed.
     */
    static String fleetRecordsNote(long failed) {
        return failed == 0 ? "" : " · " + Plural.of(failed, "fleet record") + " failed to send";
    }

    /** {@code  · Kafka unreachable for N s} while {@code loader} has no contact with Kafka, else empty. */
    static String kafkaContact(ParameterLoader loader) {
        return loader.kafkaConnected() ? ""
                : " · Kafka unreachable for " + loader.kafkaUnreachableMillis() / 1000 + " s";
    }

    private static String secs(double s) {
        return Double.isNaN(s) ? "-" : String.format(Locale.ROOT, "%.3fs", s);
    }

    /**
     * Waits (at most {@code max}) until every decision offered so far was acknowledged, dropped or failed, so that
     * the summary counts the ones still on their way to the broker as such rather than as unacknowledged.
     */
    void awaitDecisionsSettled(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        decisions.flushSoon(); // a --command-config linger.ms longer than the wait would hold them past it
        while (decisionsInFlight() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    /**
     * Closes the fleet's publisher once the fleet stopped, so that the summary counts its records' outcomes for good:
     * acknowledged, failed, or dropped by the close (what it still held after 5 s). While the simulation thread still
     * runs (it did not stop within its join), the publisher is left to {@link #close} and the summary says how many are
     * still in flight.
     */
    void settleFleetRecords() {
        if (fleet.done()) {
            try {
                publisher.close();
            } catch (RuntimeException e) { // the summary still prints: the close's counts are settled either way
                System.err.println("tierroute: closing the fleet's Kafka producer: " + e);
            }
        }
    }

    /**
     * What Kafka did not confirm once the run stopped and settled (decisions awaited up to 5 s, the fleet's publisher
     * closed, which drops what it still holds after its 5 s), e.g. {@code 30 fleet records and 2 decisions did not reach
     * Kafka (see the summary)}: fleet records that failed or that the publisher's close dropped, decisions dropped or
     * failed; and, said apart, what is still unacknowledged then: decisions past that wait, fleet records of a publisher
     * left open (its simulation thread did not stop). Null when every record and decision was acknowledged.
     */
    String lostNote() {
        FleetPublisher.Counts c = publisher.counts();
        return lostNote(c.failed() + c.dropped(), decisions.droppedBufferFull() + decisions.droppedClosed()
                + decisions.sendFailed() + decisions.encodeFailed(), c.inFlight(), decisionsInFlight());
    }

    static String lostNote(long fleetRecords, long decisionsLost, long fleetRecordsUnacknowledged,
                           long decisionsUnacknowledged) {
        String lost = records(fleetRecords, decisionsLost);
        String unacknowledged = records(fleetRecordsUnacknowledged, decisionsUnacknowledged);
        if (lost.isEmpty() && unacknowledged.isEmpty()) {
            return null;
        }
        return (lost.isEmpty() ? "" : lost + " did not reach Kafka") + (lost.isEmpty() || unacknowledged.isEmpty()
                ? "" : ", ") + (unacknowledged.isEmpty() ? "" : unacknowledged + " still unacknowledged at the stop")
                + " (see the summary)";
    }

    /** {@code 30 fleet records and 2 decisions}, either alone when the other is 0; empty when both are. */
    private static String records(long fleetRecords, long decisionsCount) {
        String records = fleetRecords == 0 ? "" : Plural.of(fleetRecords, "fleet record");
        String decided = decisionsCount == 0 ? "" : Plural.of(decisionsCount, "decision");
        return records + (records.isEmpty() || decided.isEmpty() ? "" : " and ") + decided;
    }

    private long decisionsInFlight() {
        return decisions.offered() - decisions.acknowledged() - decisions.droppedBufferFull() - decisions.droppedClosed()
                - decisions.sendFailed() - decisions.encodeFailed();
    }

    /** The summary printed at the end. */
    List<String> summary() {
        ParameterSet p = store.current();
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "ran %.0f s wall%s, %.0f s simulated; %s", wallSeconds(),
                startUp(startedNanos, replayStartedNanos, startUpEndedNanos), fleet.virtualSeconds(), work.description()));
        lines.add(requests(fleet.routed(), fleet.finished(), fleet.failed(), fleet.inFlight(), fleet.lateBoundRefused(),
                fleet.totalRequests(), settings.fromTrace()));
        if (fleet.held() > 0) {
            lines.add(Plural.of(fleet.held(), "arrival") + " waited while every worker was drained or unhealthy (selector API)");
        }
        if (fleet.lateBound() > 0) {
            long refused = fleet.lateBoundRefused();
            long stillHeld = fleet.lateBound() - fleet.lateBoundPlaced() - refused;
            SelectorSettings binding = fleet.selector().settings();
            lines.add(Plural.of(fleet.lateBound(), "arrival") + " held by late binding (routing.holdAtWaiting "
                    + binding.holdAtWaiting() + ", holdAtCheapestWaiting " + binding.holdAtCheapestWaiting()
                    + ") until a worker had room, placed cheapest first, aged by their wait (overdue ones first): " + fleet.lateBoundPlaced() + " placed"
                    + (refused > 0 ? ", " + refused + " refused" : "")
                    + (stillHeld > 0 ? ", " + stillHeld + " still held at the stop" : ""));
        }
        lines.add(String.format(Locale.ROOT, "TTFT: p50 %s, p90 %s, p99 %s", secs(fleet.ttftSeconds(0.5)),
                secs(fleet.ttftSeconds(0.9)), secs(fleet.ttftSeconds(0.99))));
        long lost = decisions.droppedBufferFull() + decisions.droppedClosed() + decisions.sendFailed() + decisions.encodeFailed();
        lines.add(String.format(Locale.ROOT, "decisions published: %d acknowledged of %d offered (%d dropped or failed, %d still"
                        + " in flight)", decisions.acknowledged(), decisions.offered(), lost, decisionsInFlight()));
        lines.add(fleetRecords(publisher));
        lines.add(String.format(Locale.ROOT, "snapshots: %s; the selector swapped %s and ended on v%d (%s): α_p %.4g α_d %.4g",
                versions(), Plural.of(loader.swaps(), "time"), p.version(), p.source(), p.cost().alphaP(), p.cost().alphaD()));
        ParameterLoader.ScopeStatus served = loader.status().scopes().get(settings.scope());
        if (served != null && served.newestRejected() != null) {
            lines.addAll(rejected(served.newestRejected()));
        }
        return lines;
    }

    /**
     * The summary's start-up, from the command's start to the end of the start-up (the URLs printed), e.g.
     * {@code  after a 18 s start-up (the replay began 7 s before its end)}: the replay runs during the demo's start-up
     * (its fitting job needs completions first), so the simulated seconds count from earlier than the wall seconds.
     * Empty if the start-up did not end; without the replay's head start when it is under a second.
     */
    static String startUp(long startedNanos, long replayStartedNanos, long startUpEndedNanos) {
        if (startUpEndedNanos == 0) {
            return "";
        }
        String s = String.format(Locale.ROOT, " after a %.0f s start-up", (startUpEndedNanos - startedNanos) / 1e9);
        double headStart = replayStartedNanos == 0 ? 0 : (startUpEndedNanos - replayStartedNanos) / 1e9;
        return headStart < 1 ? s : s + String.format(Locale.ROOT, " (the replay began %.0f s before its end)", headStart);
    }

    /**
     * The summary's requests, which add up: routed = completed + failed + in flight at the stop; held requests refused
     * before they were routed are said apart, e.g. {@code requests: 749 routed, 742 completed, 0 failed, 7 in flight at
     * the stop (of 12031 in the trace)}.
     */
    static String requests(long routed, long finished, long failed, long inFlight, long refusedWhileHeld, int total,
                           boolean fromTrace) {
        return String.format(Locale.ROOT, "requests: %d routed, %d completed, %d failed, %d in flight at the stop%s (of %d in the %s)",
                routed, finished, failed, inFlight,
                refusedWhileHeld == 0 ? "" : "; " + refusedWhileHeld + " refused while held, before routing",
                total, fromTrace ? "trace" : "workload");
    }

    /**
     * The summary's fleet records, as its decisions are said: acknowledged of sent, what failed, what the publisher's
     * close dropped (or, before it, what is still on its way), and the acknowledged ones by kind, e.g. {@code fleet
     * records: 2403 acknowledged of 2403 sent (0 failed, 0 dropped at the close): 160 telemetry, 1494 KV batches, 749
     * completions}.
     */
    static String fleetRecords(FleetPublisher p) {
        FleetPublisher.Counts c = p.counts(); // one reading: the line adds up while records settle
        String outcome = c.closed() ? c.failed() + " failed, " + c.dropped() + " dropped at the close"
                : c.failed() + " failed, " + c.inFlight() + " still in flight";
        return String.format(Locale.ROOT, "fleet records: %d acknowledged of %d sent (%s): %d telemetry, %d KV batches, %d completions",
                c.acknowledged(), c.sent(), outcome, c.telemetryAcknowledged(), c.kvBatchesAcknowledged(),
                c.completionsAcknowledged());
    }

    /**
     * The summary's lines on the newest fit, {@code version}, the gate rejected: its reasons when {@link #gateReasonsFrom}
     * gave where to find them, else the command that shows them on the run's Kafka.
     */
    private List<String> rejected(long version) {
        String head = "the validation gate rejected the newest fit, v" + version;
        LongFunction<Optional<List<String>>> reasons = gateReasons;
        if (reasons == null) {
            return List.of(head + ": 'tierroute snapshots show " + version + " --bootstrap " + settings.bootstrap()
                    + ("default".equals(settings.scope()) ? "" : " --scope " + ShellWords.quote(settings.scope()))
                    + (settings.kafkaClient().isEmpty() ? "" : " --command-config FILE") + "' says why while that Kafka runs");
        }
        List<String> said = reasons.apply(version).orElse(List.of());
        // Its "held: ..." reasons are parameters the gate kept at their active values (a dozen lines): not why it
        // rejected the fit.
        List<String> why = said.stream().filter(r -> !r.startsWith("held: ")).toList();
        if (why.isEmpty()) {
            return List.of(head + " (its reasons were not read before the run stopped)");
        }
        List<String> lines = new ArrayList<>(List.of(head + ":"));
        why.forEach(r -> lines.add("  rejected: " + r));
        return lines;
    }

    /**
     * Where the summary reads the gate's reasons for a rejected version: for a run whose Kafka stops with it (the
     * demo's), where a 'snapshots show' after the run would find nothing.
     */
    void gateReasonsFrom(LongFunction<Optional<List<String>>> reasons) {
        gateReasons = reasons;
    }

    /** What the summary would read of {@code version}'s gate reasons; empty when it reads none (it names the command). */
    Optional<List<String>> gateReasonsOf(long version) {
        LongFunction<Optional<List<String>>> reasons = gateReasons;
        return reasons == null ? Optional.empty() : reasons.apply(version);
    }

    /** Stops the API, the fleet, its publisher, the decision publisher and the loader, in that order; safe twice. */
    @Override
    public void close() {
        closers.close();
    }
}
