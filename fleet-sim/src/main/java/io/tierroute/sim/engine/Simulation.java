package io.tierroute.sim.engine;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.OracleView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.WorkerTelemetry;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * The discrete-event simulator: replays requests (sorted by arrival) against {@link EngineConfig#workers()}
 * {@link Worker}s, asking a {@link RoutingPolicy} where each goes, on a virtual microsecond clock.
 * Deterministic: events at equal times run in the order they were scheduled, and nothing reads the
 * wall clock except the reported run time.
 *
 * <p>The policy hears what a router of its kind would hear: every KV event as the engine emits it,
 * per-worker telemetry at the period it asks for, and its requests' routed / first-token / finished
 * events. One instance runs once ({@link #run}).
 */
public final class Simulation implements EngineListener {

    /** Reports progress: requests finished (or rejected) so far out of the total. */
    @FunctionalInterface
    public interface Progress {
        void update(int done, int total);
    }

    private static final int ARRIVAL = 0;
    private static final int STEP_END = 1;
    private static final int LINK = 2;
    private static final int TELEMETRY = 3;
    /** A load over a worker's NVMe drive link may have finished (as {@link #LINK} for its PCIe link). */
    private static final int NVME_LINK = 4;
    /** A request the policy held is released ({@link RoutingPolicy.Dispatcher}); the oldest of {@link #released}. */
    private static final int DISPATCH = 5;

    private static final class Ev implements Comparable<Ev> {
        final long time;
        final long seq;
        final int type;
        final int worker;
        final long version;

        Ev(long time, long seq, int type, int worker, long version) {
            this.time = time; this.seq = seq; this.type = type; this.worker = worker; this.version = version;
        }

        @Override
        public int compareTo(Ev o) {
            int c = Long.compare(time, o.time);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final EngineConfig cfg;
    private final List<SimRequest> requests;
    private final Worker[] workers;
    private final PriorityQueue<Ev> events = new PriorityQueue<>();
    private final List<Completion> completions = new ArrayList<>();
    /** Requests the policy held ({@link RoutingPolicy#HOLD}) and has not released yet, by id. */
    private final java.util.Map<String, SimRequest> held = new java.util.HashMap<>();
    private record Release(SimRequest request, int worker) {}
    /** Releases not yet delivered, in release order: one {@link #DISPATCH} event each, at the instant of release. */
    private final java.util.ArrayDeque<Release> released = new java.util.ArrayDeque<>();
    private final long[] linkVersionScheduled;
    private final long[] nvmeVersionScheduled;
    private final double[] lastLinkBytes;
    private final long[] lastLinkBusy;
    private final double[] lastNvmeBytes;
    private final long[] lastNvmeBusy;
    private final long[] lastTelemetryAt;
    /** Each worker's busy counters at its previous sample (prefill tokens, prefill µs, decode steps, decode µs). */
    private final long[][] lastBusy;
    private final View view = new View();
    private final boolean[] dirty;
    private final int[] dirtyList;
    private int dirtyCount;
    private RoutingPolicy policy;
    private Consumer<Completion> completionHook = c -> {};
    private long seq;
    private long now;
    private long lastWorkAt;
    private int done;
    private int rejected;
    private boolean ran;

    /** @param requests sorted by arrival time; every request's block size must equal the config's */
    public Simulation(EngineConfig cfg, List<SimRequest> requests) {
        this.cfg = cfg;
        this.requests = requests;
        this.workers = new Worker[cfg.workers()];
        for (int w = 0; w < workers.length; w++) {
            workers[w] = new Worker(w, cfg, this);
        }
        dirty = new boolean[workers.length];
        dirtyList = new int[workers.length];
        linkVersionScheduled = new long[workers.length];
        java.util.Arrays.fill(linkVersionScheduled, -1);
        nvmeVersionScheduled = new long[workers.length];
        java.util.Arrays.fill(nvmeVersionScheduled, -1);
        lastLinkBytes = new double[workers.length];
        lastLinkBusy = new long[workers.length];
        lastNvmeBytes = new double[workers.length];
        lastNvmeBusy = new long[workers.length];
        lastTelemetryAt = new long[workers.length];
        lastBusy = new long[workers.length][4];
        long prev = Long.MIN_VALUE;
        for (SimRequest r : requests) {
            if (r.blockSize() != cfg.blockSize()) {
                throw new IllegalArgumentException("request " + r.id() + " has block size " + r.blockSize()
                        + ", the engines use " + cfg.blockSize());
            }
            if (r.arrivalMicros() < prev) {
                throw new IllegalArgumentException("requests must be sorted by arrival; " + r.id() + " is out of order");
            }
            prev = r.arrivalMicros();
        }
    }

    /** The fleet as policies see it (valid before and during {@link #run}). */
    public FleetView fleetView() {
        return view;
    }

    /**
     * Hands each completion log (the realised queue wait, tier-load, prefill and decode times) to
     * {@code hook} as the request finishes, before the policy's {@link RoutingPolicy#onFinished}: what an
     * engine publishes, which the live fleet forwards and a router never sees. Set before {@link #run}.
     */
    public Simulation onCompletion(Consumer<Completion> hook) {
        if (ran) {
            throw new IllegalStateException("set the completion hook before run()");
        }
        this.completionHook = java.util.Objects.requireNonNull(hook, "hook");
        return this;
    }

    /** Runs every request to completion under {@code policy}. */
    public SimResult run(RoutingPolicy policy, Progress progress) {
        if (ran) {
            throw new IllegalStateException("a Simulation runs once; create a new one");
        }
        ran = true;
        this.policy = policy;
        for (Worker w : workers) {
            w.progressEvery(policy.progressEveryTokens());
        }
        policy.attach(this::release);
        long wallStart = System.nanoTime();
        if (!requests.isEmpty()) {
            push(requests.get(0).arrivalMicros(), ARRIVAL, 0, 0);
            push(requests.get(0).arrivalMicros(), TELEMETRY, 0, 0);
        }
        int nextArrival = 0;
        int lastReported = -1;
        // Every 1 % (at most every 256 requests): a short run still passes each 10 % a log line reports.
        int reportEvery = Math.max(1, Math.min(256, requests.size() / 100));
        while (!events.isEmpty()) {
            Ev ev = events.poll();
            now = ev.time;
            if (ev.type != TELEMETRY) {
                lastWorkAt = now;
            }
            switch (ev.type) {
                case ARRIVAL -> {
                    SimRequest r = requests.get(nextArrival++);
                    if (nextArrival < requests.size()) {
                        push(requests.get(nextArrival).arrivalMicros(), ARRIVAL, 0, 0);
                    }
                    arrive(r);
                }
                case STEP_END -> {
                    workers[ev.worker].finishStep(now);
                    kick(ev.worker);
                }
                case LINK, NVME_LINK -> {
                    Worker w = workers[ev.worker];
                    PcieLink link = ev.type == LINK ? w.link : w.nvmeLink;
                    if (ev.version == link.version()) {
                        w.transfersDone(link, now);
                        // Rounding can leave the first transfer a hair short at its completion time: then nothing
                        // finished, the version stands, and the event must be set again or the link would stall.
                        (ev.type == LINK ? linkVersionScheduled : nvmeVersionScheduled)[ev.worker] = -1;
                        scheduleLink(ev.worker);
                        kick(ev.worker);
                    }
                }
                case TELEMETRY -> {
                    telemetry();
                    if (events.isEmpty() && dirtyCount == 0 && !held.isEmpty()) {
                        policy.idleWhileHolding(now); // may release them (DISPATCH events at now)
                    }
                    if (events.isEmpty() && dirtyCount == 0 && done < requests.size()) {
                        throw new IllegalStateException("the simulation stalled at " + now + " µs with "
                                + (requests.size() - done) + " requests unfinished and nothing left to run: " + describe());
                    }
                    if (done < requests.size()) {
                        push(now + policy.telemetryPeriodMicros(), TELEMETRY, 0, 0);
                    }
                }
                case DISPATCH -> {
                    Release r = released.poll();
                    deliver(r.request(), r.worker());
                }
                default -> throw new IllegalStateException("event type " + ev.type);
            }
            Ev next = events.peek();
            if (dirtyCount > 0 && (next == null || next.time > now)) {
                kickDirty(); // everything that happened at this instant is in: start the steps
            }
            if (progress != null && done != lastReported && (done % reportEvery == 0 || done == requests.size())) {
                lastReported = done;
                progress.update(done, requests.size());
            }
        }
        List<SimResult.WorkerStats> stats = new ArrayList<>(workers.length);
        for (Worker w : workers) {
            stats.add(new SimResult.WorkerStats(w.steps, w.busyMicros, w.preemptions, w.prefillTokens, w.decodeTokens,
                    w.link.busyMicros(now), w.link.bytesMoved(now), w.cache.evictions(),
                    w.nvmeLink == null ? 0 : w.nvmeLink.busyMicros(now), w.nvmeLink == null ? 0 : w.nvmeLink.bytesMoved(now)));
        }
        return new SimResult(policy.name(), policy.version(), completions, rejected, stats, lastWorkAt,
                (System.nanoTime() - wallStart) / 1_000_000);
    }

    private void arrive(SimRequest r) {
        int w = policy.route(r, view, now);
        if (w == RoutingPolicy.HOLD) {
            held.put(r.id(), r); // the policy releases it later; until then it waits, and its TTFT counts the wait
            return;
        }
        deliver(r, w);
    }

    /**
     * The policy releases a request it held: delivered as an event at this instant, after the one being handled (a
     * policy may release from inside a worker's step, whose other events must come first).
     */
    private void release(SimRequest r, int worker) {
        if (held.remove(r.id()) != r) {
            throw new IllegalStateException("policy " + policy.name() + " released " + r.id() + ", which it does not hold");
        }
        released.add(new Release(r, worker));
        push(now, DISPATCH, 0, 0);
    }

    private void deliver(SimRequest r, int w) {
        if (w == RoutingPolicy.REFUSED) {
            rejected++;
            done++;
            return;
        }
        if (w < 0 || w >= workers.length) {
            throw new IllegalStateException("policy " + policy.name() + " routed " + r.id() + " to worker " + w
                    + "; workers are 0.." + (workers.length - 1));
        }
        policy.onRouted(r, w, now);
        Sequence s = new Sequence(r, w);
        s.deliveredAt = now;
        if (workers[w].tooLarge(s)) {
            rejected++;
            done++;
            policy.onFinished(r, w, 0, now);
            return;
        }
        workers[w].enqueue(s);
        kick(w);
    }

    /** Marks {@code w} to start a step once every event of the current instant was handled. */
    private void kick(int w) {
        if (!dirty[w]) {
            dirty[w] = true;
            dirtyList[dirtyCount++] = w;
        }
    }

    private void kickDirty() {
        int n = dirtyCount;
        dirtyCount = 0;
        for (int i = 0; i < n; i++) {
            int w = dirtyList[i];
            dirty[w] = false;
            startIfIdle(w);
        }
    }

    private void startIfIdle(int w) {
        Worker worker = workers[w];
        if (!worker.stepping && worker.hasRunnableWork()) {
            long d = worker.startStep(now);
            if (d >= 0) {
                worker.stepEndsAt = now + Math.max(1, d);
                push(worker.stepEndsAt, STEP_END, w, 0);
            }
        }
        scheduleLink(w);
    }

    private void scheduleLink(int w) {
        PcieLink link = workers[w].link;
        if (link.version() != linkVersionScheduled[w] && link.activeTransfers() > 0) {
            linkVersionScheduled[w] = link.version();
            push(link.nextCompletion(now), LINK, w, link.version());
        }
        PcieLink nvme = workers[w].nvmeLink;
        if (nvme != null && nvme.version() != nvmeVersionScheduled[w] && nvme.activeTransfers() > 0) {
            nvmeVersionScheduled[w] = nvme.version();
            push(nvme.nextCompletion(now), NVME_LINK, w, nvme.version());
        }
    }

    private void telemetry() {
        for (Worker w : workers) {
            double bytes = w.link.bytesMoved(now);
            long busy = w.link.busyMicros(now);
            long interval = Math.max(1, now - lastTelemetryAt[w.id]);
            long[] moved = new long[Tier.COUNT];
            double[] util = new double[Tier.COUNT];
            moved[Tier.CPU.ordinal()] = Math.round(bytes - lastLinkBytes[w.id]);
            util[Tier.CPU.ordinal()] = Math.min(1.0, (double) (busy - lastLinkBusy[w.id]) / interval);
            lastLinkBytes[w.id] = bytes;
            lastLinkBusy[w.id] = busy;
            if (w.nvmeLink != null) {
                double nvmeBytes = w.nvmeLink.bytesMoved(now);
                long nvmeBusy = w.nvmeLink.busyMicros(now);
                moved[Tier.NVME.ordinal()] = Math.round(nvmeBytes - lastNvmeBytes[w.id]);
                util[Tier.NVME.ordinal()] = Math.min(1.0, (double) (nvmeBusy - lastNvmeBusy[w.id]) / interval);
                lastNvmeBytes[w.id] = nvmeBytes;
                lastNvmeBusy[w.id] = nvmeBusy;
            }
            lastTelemetryAt[w.id] = now;
            long[] last = lastBusy[w.id];
            long prefillTokens = w.telemetryPrefillTokens - last[0];
            long prefillBusy = w.prefillBusyMicros - last[1];
            long decodeSteps = w.decodeSteps - last[2];
            long decodeBusy = w.decodeBusyMicros - last[3];
            last[0] = w.telemetryPrefillTokens;
            last[1] = w.prefillBusyMicros;
            last[2] = w.decodeSteps;
            last[3] = w.decodeBusyMicros;
            int waiting = w.waiting.size() + w.ready.size() + w.loading;
            policy.onTelemetry(new WorkerTelemetry(w.id, now, waiting, w.running.size(),
                    (double) w.cache.referenced() / w.cache.capacity(), w.cache.resident(), w.cache.capacity(),
                    w.cache.cpuResident(), moved, interval, util, view.pendingPrefillTokens(w.id),
                    prefillTokens, prefillBusy, decodeSteps, decodeBusy));
        }
    }

    private String describe() {
        StringBuilder sb = new StringBuilder();
        for (Worker w : workers) {
            sb.append(String.format(java.util.Locale.ROOT, "[w%d waiting=%d ready=%d loading=%d running=%d stepping=%b "
                    + "resident=%d referenced=%d capacity=%d link=%d nvme=%d] ", w.id, w.waiting.size(), w.ready.size(),
                    w.loading, w.running.size(), w.stepping, w.cache.resident(), w.cache.referenced(), w.cache.capacity(),
                    w.link.activeTransfers(), w.nvmeLink == null ? 0 : w.nvmeLink.activeTransfers()));
            Sequence h = w.ready.peekFirst() != null ? w.ready.peekFirst() : w.waiting.peekFirst();
            if (h != null) {
                sb.append(String.format(java.util.Locale.ROOT, "(head %s %s held=%d computed=%d target=%d generated=%d) ",
                        h.request.id(), h.state, h.heldBlocks, h.computed, h.target, h.generated));
            }
        }
        if (!held.isEmpty()) {
            sb.append(held.size()).append(" held by the policy, never released");
        }
        return sb.toString();
    }

    private void push(long time, int type, int worker, long version) {
        events.add(new Ev(time, seq++, type, worker, version));
    }

    // ---- EngineListener ----

    @Override
    public void kvEvent(KvEvent event) {
        policy.onKvEvent(event, now);
    }

    @Override
    public void firstToken(Sequence s, long t) {
        policy.onFirstToken(s.request, s.worker, t);
    }

    @Override
    public void tokens(Sequence s, long t) {
        policy.onTokens(s.request, s.worker, s.generated, t);
    }

    @Override
    public void finished(Sequence s, long t) {
        long arrival = s.request.arrivalMicros();
        long ttft = s.firstTokenAt - arrival;
        long queue = s.firstScheduledAt - arrival;
        long prefill = Math.max(0, s.firstTokenAt - s.firstScheduledAt - s.loadMicros);
        Completion c = new Completion(s.request, s.worker, queue, s.loadMicros, prefill, t - s.firstTokenAt, ttft,
                s.generated, s.hitTokens.clone(), s.computedTokens, s.preemptions, t, s.deliveredAt - arrival);
        completions.add(c);
        completionHook.accept(c);
        done++;
        policy.onFinished(s.request, s.worker, s.generated, t);
    }

    /** The policy-facing fleet view; {@link #oracle()} exposes the exact state. */
    private final class View implements FleetView, OracleView {
        @Override public int workers() { return workers.length; }
        @Override public int blockSize() { return cfg.blockSize(); }
        @Override public double bytesPerToken() { return cfg.bytesPerToken(); }
        @Override public String model() { return cfg.model(); }
        @Override public long hbmCapacityBlocks(int worker) { return cfg.hbmCapacityBlocks(); }
        @Override public long cpuCapacityBlocks(int worker) { return cfg.cpuCapacityBlocks(); }
        @Override public int maxBatchedTokens() { return cfg.maxBatchedTokens(); }
        @Override public OracleView oracle() { return this; }

        @Override
        public double bandwidth(int worker, Tier tier) {
            return switch (tier) {
                case CPU -> cfg.hasCpuTier() ? cfg.pcieBytesPerSecond() : 0;
                case NVME -> cfg.hasNvmeTier() ? cfg.nvmeBytesPerSecond() : 0;
                default -> 0;
            };
        }

        @Override
        public void matchedBlocks(int worker, SimRequest r, int[] out) {
            java.util.Arrays.fill(out, 0);
            KvCache c = workers[worker].cache;
            int max = Math.min(r.fullBlocks(), (r.promptTokens() - 1) / cfg.blockSize());
            int h = c.matchHbm(r.blockHashes(), max);
            out[Tier.HBM.ordinal()] = h;
            c.matchOffloaded(r.blockHashes(), h, max, out);
        }

        @Override
        public long pendingTransferBytes(int w, Tier tier) {
            PcieLink link = tier == Tier.CPU ? workers[w].link : tier == Tier.NVME ? workers[w].nvmeLink : null;
            return link == null ? 0 : Math.round(link.pendingBytes(now));
        }

        /** Prompt tokens still to compute on {@code w} (not cached, not yet prefilled): the telemetry's backlog. */
        long pendingPrefillTokens(int w) {
            long sum = 0;
            Worker x = workers[w];
            for (Sequence s : x.waiting) sum += s.pendingPrefill();
            for (Sequence s : x.ready) sum += s.pendingPrefill();
            for (Sequence s : x.loadingList) sum += Math.max(0, s.target - (s.loadFrom + s.loadingBlocks) * cfg.blockSize());
            for (Sequence s : x.running) sum += s.pendingPrefill();
            return sum;
        }

        @Override public int maxRunning() { return cfg.maxRunning(); }
        @Override public long preemptionsSoFar(int w) { return workers[w].preemptions; }

        @Override
        public long stepRemainingMicros(int w) {
            Worker x = workers[w];
            return x.stepping ? Math.max(0, x.stepEndsAt - now) : 0;
        }

        /** Block → id of the blocks two requests hold or a queued request would hit (one {@link #sequences} call). */
        private final java.util.IdentityHashMap<Block, Integer> sharedIds = new java.util.IdentityHashMap<>();
        private final List<Sequence> order = new ArrayList<>();
        private final List<OracleView.Phase> phases = new ArrayList<>();

        @Override
        public void sequences(int w, SimRequest arrival, List<SeqState> out) {
            out.clear();
            order.clear();
            phases.clear();
            sharedIds.clear();
            Worker x = workers[w];
            for (Sequence s : x.running) { order.add(s); phases.add(OracleView.Phase.RUNNING); }
            for (Sequence s : x.ready) { order.add(s); phases.add(OracleView.Phase.READY); }
            for (Sequence s : x.loadingList) { order.add(s); phases.add(OracleView.Phase.LOADING); }
            for (Sequence s : x.waiting) { order.add(s); phases.add(OracleView.Phase.WAITING); }
            if (arrival != null) { order.add(new Sequence(arrival, w)); phases.add(OracleView.Phase.WAITING); }
            // first an id for every block a queued request would hit: a held one's holders then count it as
            // shared, and an unheld cached one is referenced once however many queued requests hit it
            for (int i = 0; i < order.size(); i++) {
                if (phases.get(i) != OracleView.Phase.WAITING) continue;
                Sequence s = order.get(i);
                int h = x.cache.matchHbm(s.hashes, maxHit(s));
                for (int j = 0; j < h; j++) {
                    sharedIds.putIfAbsent(x.cache.get(s.hashes[j]), sharedIds.size());
                }
            }
            for (int i = 0; i < order.size(); i++) {
                Sequence s = order.get(i);
                int computed = s.computed;
                int generated = s.generated;
                if (x.stepping && s.chunk > 0) { // Worker.finishStep's bookkeeping for the step in progress
                    computed += s.chunk;
                    if (s.decodingThisStep || computed >= s.target) generated++;
                    if (generated >= s.outputTokens) continue;
                }
                out.add(state(s, phases.get(i), computed, generated, x));
            }
        }

        private int maxHit(Sequence s) {
            return Math.min(s.fullBlocks, (s.target - 1) / cfg.blockSize());
        }

        private SeqState state(Sequence s, OracleView.Phase phase, int computed, int generated, Worker x) {
            int exclusive = 0;
            int nShared = 0;
            int[] shared = new int[s.heldBlocks];
            for (int j = 0; j < s.heldBlocks; j++) {
                Block b = j < s.fullBlocks ? s.named[j] : null;
                if (b != null && (b.refs > 1 || sharedIds.containsKey(b))) {
                    Integer id = sharedIds.get(b);
                    if (id == null) { id = sharedIds.size(); sharedIds.put(b, id); }
                    shared[nShared++] = id;
                } else {
                    exclusive++;
                }
            }
            int h = 0;
            int[] offloaded = new int[Tier.COUNT];
            int[] hitIds = new int[0];
            if (phase == OracleView.Phase.WAITING) {
                h = x.cache.matchHbm(s.hashes, maxHit(s));
                hitIds = new int[h];
                for (int j = 0; j < h; j++) {
                    hitIds[j] = sharedIds.get(x.cache.get(s.hashes[j]));
                }
                x.cache.matchOffloaded(s.hashes, h, maxHit(s), offloaded);
            }
            return new SeqState(phase, s.request.promptTokens(), computed, s.target, generated, s.outputTokens,
                    s.heldBlocks, exclusive, java.util.Arrays.copyOf(shared, nShared), h, hitIds,
                    offloaded[Tier.CPU.ordinal()], offloaded[Tier.NVME.ordinal()],
                    phase == OracleView.Phase.LOADING ? s.driveBlocks : 0);
        }
    }
}
