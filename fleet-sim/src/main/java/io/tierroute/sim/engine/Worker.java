package io.tierroute.sim.engine;

import io.tierroute.selector.protocol.Tier;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One engine worker: vLLM-style continuous batching with chunked prefill under a per-step token
 * budget, prefix caching over {@link KvCache}, CPU-tier loads over its {@link PcieLink}, and
 * recompute preemption.
 *
 * <p><b>A step.</b> Running requests go first, in admission order: a decoding request takes one token
 * of the budget, a prefilling one a chunk of what is left. A request that needs a KV block when none
 * can be freed preempts the most recently admitted running request (possibly itself): it loses its
 * blocks (computed ones stay cached) and returns to the head of the queue to recompute prompt and
 * generated tokens. Then, unless something was preempted, loaded requests and the waiting queue are
 * admitted in FCFS order while the budget, the batch limit and the KV cache allow. Admission matches
 * the prompt's computed blocks in HBM, then extends the match in the CPU and NVMe tiers, leaving ≥ 1 token
 * to compute; the extension is loaded first (the request waits, holding its blocks, while others run): its CPU
 * blocks over the PCIe link, and at the same time its NVMe blocks from the drive over the drive's link and then,
 * through host memory, over the same PCIe link (DESIGN §6: tier hits share the one PCIe link; reads and copies
 * are not pipelined chunk by chunk, so an NVMe load here is their sum). The blocks it reads are pinned in their
 * tiers until it is done. Then it competes for the budget like any other. The step that
 * completes a prefill emits the first token; its blocks become matchable (Stored) as each is fully
 * computed. A head that cannot get its blocks is refused before it touches its cached prefix, so waiting does
 * not keep that prefix fresh in the eviction order.
 *
 * <p>A decode step's {@code u} (DESIGN §6) is the blocks the running batch holds over capacity: a request joins the
 * batch's count when it is admitted to run and leaves it when it finishes or is preempted, so the blocks of a request
 * still loading, or loaded and waiting for budget, are not read by the step and do not slow it.
 */
final class Worker {

    final int id;
    private final EngineConfig cfg;
    final KvCache cache;
    final PcieLink link;
    /** The NVMe drive's read link (processor-shared like PCIe; null without an NVMe tier). */
    final PcieLink nvmeLink;
    private final EngineListener listener;
    private final int bs;
    final ArrayDeque<Sequence> waiting = new ArrayDeque<>();
    final ArrayDeque<Sequence> ready = new ArrayDeque<>();
    final ArrayList<Sequence> running = new ArrayList<>();
    /** Requests loading from the CPU or NVMe tier (for the oracle's view). */
    final ArrayList<Sequence> loadingList = new ArrayList<>();
    private final ArrayList<Sequence> scheduled = new ArrayList<>();
    /** Scratch of {@link #admitWaiting}: an offloaded extension's blocks per tier. */
    private final int[] offloadedPerTier = new int[Tier.COUNT];
    int loading;
    boolean stepping;
    /** When the step in progress ends (valid while {@link #stepping}; for the oracle's view). */
    long stepEndsAt;

    long steps;
    long busyMicros;
    long preemptions;
    long prefillTokens;
    long decodeTokens;

    /*
     * The telemetry's busy counters (EngineTelemetry's prefillTokens, prefillBusyUs, decodeSteps, decodeBusyUs),
     * cumulative; Simulation reports each interval's increase. Counted when a step completes, as an engine counts
     * its finished forward passes, so a sample's tokens and steps always come with their busy time. A step's whole
     * duration goes to prefill busy time when it computed prompt tokens and to decode busy time when it decoded: a
     * mixed step counts in both (the schema's "time spent in steps doing prefill work" and "in decode steps"; its
     * time cannot be split, the forward pass does both), so the two busy times may add up to more than busyMicros.
     * Nothing routes on these: they are only reported.
     */
    /** Prompt tokens computed by completed steps: prefill chunks, cache hits and tier loads excluded; a preempted
     *  request's recompute counts, as the engine does prefill work for it. */
    long telemetryPrefillTokens;
    /** Duration of the completed steps that computed prompt tokens (pure prefill or mixed), µs. */
    long prefillBusyMicros;
    /** Completed steps that decoded: a request past its prefill generated its next token. The first token, which
     *  the step completing a prefill emits, is that step's prefill work (StepTimeModel prices it as prefill only). */
    long decodeSteps;
    /** Duration of those decode steps (pure decode or mixed), µs. */
    long decodeBusyMicros;
    /** The step in progress (valid while {@link #stepping}): its prompt tokens, decode tokens and duration. */
    private long stepPrefill;
    private int stepDecode;
    private long stepMicros;

    /** Report decode progress every this many tokens (0: never), as a router that proxies the stream sees it. */
    private int progressEvery;

    void progressEvery(int tokens) {
        this.progressEvery = Math.max(0, tokens);
    }

    Worker(int id, EngineConfig cfg, EngineListener listener) {
        this.id = id;
        this.cfg = cfg;
        this.listener = listener;
        this.bs = cfg.blockSize();
        this.cache = new KvCache(id, cfg.hbmCapacityBlocks(), cfg.cpuCapacityBlocks(), cfg.nvmeCapacityBlocks(),
                listener::kvEvent);
        this.link = new PcieLink(cfg.pcieBytesPerSecond());
        this.nvmeLink = cfg.hasNvmeTier() ? new PcieLink(cfg.nvmeBytesPerSecond()) : null;
    }

    /** True when the request can never fit this worker's HBM, even alone. */
    boolean tooLarge(Sequence s) {
        return blocksFor(s.request.promptTokens() + s.outputTokens) > cache.capacity();
    }

    void enqueue(Sequence s) {
        waiting.addLast(s);
    }

    boolean hasRunnableWork() {
        return !running.isEmpty() || !ready.isEmpty() || !waiting.isEmpty();
    }

    /** Plans the next step at {@code now}; returns its duration in µs, or -1 when there is nothing to run. */
    long startStep(long now) {
        scheduled.clear();
        int budget = cfg.maxBatchedTokens();
        long prefill = 0;
        int decode = 0;
        boolean preempted = false;
        for (int i = 0; i < running.size(); i++) {
            Sequence s = running.get(i);
            boolean pre = s.prefilling();
            int chunk = pre ? Math.min(s.target - s.computed, budget) : (budget > 0 ? 1 : 0);
            if (chunk <= 0) {
                continue;
            }
            boolean self = false;
            while (!ensureBlocks(s, s.computed + chunk)) {
                Sequence victim = running.get(running.size() - 1);
                preempt(victim);
                preempted = true;
                if (victim == s) {
                    self = true;
                    break;
                }
            }
            if (self) {
                break;
            }
            s.chunk = chunk;
            s.decodingThisStep = !pre;
            budget -= chunk;
            scheduled.add(s);
            if (pre) prefill += chunk; else decode++;
        }
        while (!preempted && budget > 0 && running.size() < cfg.maxRunning()) {
            Sequence s = !ready.isEmpty() ? ready.peekFirst() : waiting.peekFirst();
            if (s == null) {
                break;
            }
            int took = s.state == Sequence.State.READY ? admitLoaded(s, budget) : admitWaiting(s, budget, now);
            if (took < 0) {
                break; // FCFS: the head does not fit, nobody behind it goes first
            }
            if (s.state == Sequence.State.READY) ready.pollFirst(); else waiting.pollFirst();
            if (s.firstScheduledAt < 0) {
                s.firstScheduledAt = now;
            }
            if (took > 0) {
                s.state = Sequence.State.RUNNING;
                running.add(s);
                joinBatch(s);
                s.chunk = took;
                s.decodingThisStep = false;
                scheduled.add(s);
                budget -= took;
                prefill += took;
            }
        }
        if (scheduled.isEmpty()) {
            if (preempted) {
                return startStep(now); // every running request was preempted: admit again, now
            }
            if (running.isEmpty() && loading == 0 && ready.size() > 1 && unblock()) {
                return startStep(now);
            }
            return -1;
        }
        double u = (double) cache.heldByRunning() / cache.capacity();
        long micros = StepTimeModel.stepMicros(prefill, decode, u);
        stepping = true;
        steps++;
        busyMicros += micros;
        prefillTokens += prefill;
        decodeTokens += decode;
        stepPrefill = prefill;
        stepDecode = decode;
        stepMicros = micros;
        return micros;
    }

    /** Admits the head of the waiting queue: returns its prefill chunk, 0 when it went to load, -1 when it cannot. */
    private int admitWaiting(Sequence s, int budget, long now) {
        int maxHit = Math.min(s.fullBlocks, (s.target - 1) / bs);
        int h = cache.matchHbm(s.hashes, maxHit);
        java.util.Arrays.fill(offloadedPerTier, 0);
        int c = cache.matchOffloaded(s.hashes, h, maxHit, offloadedPerTier);
        long newBlocks = c > 0 ? c : blocksFor(h * bs + Math.min(s.target - h * bs, budget)) - h;
        if (!cache.canAdmit(s.hashes, h, newBlocks)) {
            return -1;
        }
        for (int j = 0; j < h; j++) {
            Block b = cache.get(s.hashes[j]);
            cache.acquire(b);
            s.named[j] = b;
        }
        s.heldBlocks = h;
        s.announcedBlocks = h;
        s.computed = h * bs;
        if (c > 0) {
            // pinned first: the HBM blocks the reservation evicts must not push the ones r is about to read out of
            // their tier (the CPU tier's overflow would otherwise take its LRU blocks, possibly these)
            cache.pinOffloaded(s.hashes, h, h + c);
            if (!cache.reserve(c)) {
                throw new IllegalStateException("request " + s.request.id() + ": canAdmit admitted a load reserve refused");
            }
            for (int j = h; j < h + c; j++) {
                s.named[j] = cache.allocNamed(s.hashes[j]);
            }
            s.heldBlocks = h + c;
            s.loadFrom = h;
            s.loadingBlocks = c;
            cache.touchOffloaded(s.hashes, h, h + c);
            int fromCpu = offloadedPerTier[Tier.CPU.ordinal()];
            int fromNvme = offloadedPerTier[Tier.NVME.ordinal()];
            s.pendingLoads = 0;
            s.driveBlocks = fromNvme;
            if (fromCpu > 0) {
                link.start(now, (double) fromCpu * bs * cfg.bytesPerToken(), s);
                s.pendingLoads++;
            }
            if (fromNvme > 0) {
                nvmeLink.start(now, (double) fromNvme * bs * cfg.bytesPerToken(), s);
                s.pendingLoads++; // one load: the drive read, then its copy over PCIe
            }
            s.loadStartedAt = now;
            s.state = Sequence.State.LOADING;
            loading++;
            loadingList.add(s);
            setHits(s, h, fromCpu, fromNvme);
            return 0;
        }
        int chunk = Math.min(s.target - s.computed, budget);
        if (!ensureBlocks(s, s.computed + chunk)) {
            throw new IllegalStateException("request " + s.request.id() + ": canAdmit admitted a chunk reserve refused");
        }
        setHits(s, h, 0, 0);
        return chunk;
    }

    private int admitLoaded(Sequence s, int budget) {
        int chunk = Math.min(s.target - s.computed, budget);
        return ensureBlocks(s, s.computed + chunk) ? chunk : -1;
    }

    /** Hits of the first admission (a preempted request re-hitting its own blocks is not a cache win). */
    private void setHits(Sequence s, int hbmBlocks, int cpuBlocks, int nvmeBlocks) {
        if (s.firstScheduledAt >= 0) {
            return;
        }
        s.hitTokens[Tier.HBM.ordinal()] = hbmBlocks * bs;
        s.hitTokens[Tier.CPU.ordinal()] = cpuBlocks * bs;
        s.hitTokens[Tier.NVME.ordinal()] = nvmeBlocks * bs;
    }

    /** Completes the step that started at {@code now − duration}. */
    void finishStep(long now) {
        stepping = false;
        if (stepPrefill > 0) {
            telemetryPrefillTokens += stepPrefill;
            prefillBusyMicros += stepMicros;
        }
        if (stepDecode > 0) { // a mixed step lands here too: its whole duration is also decode time
            decodeSteps++;
            decodeBusyMicros += stepMicros;
        }
        stepPrefill = 0;
        stepDecode = 0;
        stepMicros = 0;
        for (int i = 0; i < scheduled.size(); i++) {
            Sequence s = scheduled.get(i);
            if (s.decodingThisStep) {
                s.computed += 1;
                s.generated += 1;
                if (progressEvery > 0 && s.generated % progressEvery == 0 && s.generated < s.outputTokens) {
                    listener.tokens(s, now);
                }
            } else {
                s.computed += s.chunk;
                s.computedTokens += s.chunk;
                announce(s);
                if (!s.prefilling()) {
                    s.generated += 1;
                    if (s.firstTokenAt < 0) {
                        s.firstTokenAt = now;
                        listener.firstToken(s, now);
                    }
                }
            }
            s.chunk = 0;
            if (s.generated >= s.outputTokens) {
                running.remove(s);
                leaveBatch(s);
                releaseAll(s);
                s.state = Sequence.State.FINISHED;
                listener.finished(s, now);
            }
        }
        scheduled.clear();
    }

    /**
     * Transfers over {@code from} (this worker's {@link #link} or {@link #nvmeLink}) finished by {@code now}: a
     * drive read goes on over PCIe; a request whose every load is done has its blocks computed and is ready to run.
     */
    void transfersDone(PcieLink from, long now) {
        List<PcieLink.Transfer> done = from.complete(now);
        for (PcieLink.Transfer t : done) {
            Sequence s = (Sequence) t.owner();
            if (from == nvmeLink) {
                link.start(now, (double) s.driveBlocks * bs * cfg.bytesPerToken(), s);
                s.driveBlocks = 0;
                continue;
            }
            if (--s.pendingLoads > 0) {
                continue; // its other load is still moving
            }
            int end = s.loadFrom + s.loadingBlocks;
            cache.unpinOffloaded(s.hashes, s.loadFrom, end);
            s.computed = end * bs;
            s.announcedBlocks = s.loadFrom;
            markComputed(s, end);
            if (s.firstTokenAt < 0) {
                // The tier-load phase of its TTFT; a reload after a preemption past the first token is decode time.
                s.loadMicros += now - s.loadStartedAt;
            }
            s.loadingBlocks = 0;
            s.state = Sequence.State.READY;
            ready.addLast(s);
            loading--;
            loadingList.remove(s);
        }
    }

    private void announce(Sequence s) {
        markComputed(s, Math.min(s.computed / bs, s.fullBlocks));
    }

    /** Marks slots [announced, upTo) computed and emits Stored HBM for the newly computed runs. */
    private void markComputed(Sequence s, int upTo) {
        int j = s.announcedBlocks;
        while (j < upTo) {
            while (j < upTo && (s.named[j] == null || s.named[j].computed)) {
                j++;
            }
            int start = j;
            while (j < upTo && s.named[j] != null && !s.named[j].computed) {
                s.named[j].computed = true;
                j++;
            }
            if (j > start) {
                cache.stored(start > 0, start > 0 ? s.hashes[start - 1] : 0L,
                        java.util.Arrays.copyOfRange(s.hashes, start, j));
            }
        }
        s.announcedBlocks = Math.max(s.announcedBlocks, upTo);
    }

    private long blocksFor(long tokens) {
        return (tokens + bs - 1) / bs;
    }

    /** Holds enough blocks for {@code tokens} tokens; false (holding no more than before) when KV is full. */
    private boolean ensureBlocks(Sequence s, int tokens) {
        int need = (int) blocksFor(tokens) - s.heldBlocks;
        if (need <= 0) {
            return true;
        }
        if (!cache.reserve(need)) {
            return false;
        }
        for (int k = 0; k < need; k++) {
            int j = s.heldBlocks;
            if (j < s.fullBlocks) {
                s.named[j] = cache.allocNamed(s.hashes[j]);
            } else {
                cache.allocPrivate(1);
            }
            if (s.state == Sequence.State.RUNNING) {
                cache.runningHolds(heldBlock(s, j));
            }
            s.heldBlocks++;
        }
        return true;
    }

    /** Slot {@code j}'s named block, or null for a private one (a duplicate being computed, or past the prompt). */
    private static Block heldBlock(Sequence s, int j) {
        return j < s.fullBlocks ? s.named[j] : null;
    }

    /** {@code s} starts running: the decode step reads its blocks from now on. */
    private void joinBatch(Sequence s) {
        for (int j = 0; j < s.heldBlocks; j++) {
            cache.runningHolds(heldBlock(s, j));
        }
    }

    /** {@code s} stops running (finished or preempted), before it gives its blocks back. */
    private void leaveBatch(Sequence s) {
        for (int j = 0; j < s.heldBlocks; j++) {
            cache.runningReleases(heldBlock(s, j));
        }
    }

    /** Releases every block of {@code s}, deepest first (so the eviction list stays leaf-first). */
    private void releaseAll(Sequence s) {
        for (int j = s.heldBlocks - 1; j >= 0; j--) {
            if (j < s.fullBlocks && s.named[j] != null) {
                cache.release(s.named[j]);
                s.named[j] = null;
            } else {
                cache.releasePrivate(1);
            }
        }
        s.heldBlocks = 0;
    }

    /**
     * Nothing runs or loads, yet the head of the loaded queue cannot get its blocks because requests
     * loaded behind it hold them: those give their blocks back (as a preemption) and requeue, so the
     * head (which fits alone, see {@link #tooLarge}) can run. Returns whether anything was released.
     */
    private boolean unblock() {
        boolean released = false;
        while (ready.size() > 1) {
            requeueForRecompute(ready.pollLast());
            released = true;
        }
        return released;
    }

    private void preempt(Sequence s) {
        running.remove(s);
        leaveBatch(s);
        requeueForRecompute(s);
    }

    /** A preemption: s gives its blocks back and waits at the head of the queue to recompute what it had. */
    private void requeueForRecompute(Sequence s) {
        releaseAll(s);
        s.target = s.request.promptTokens() + s.generated;
        s.computed = 0;
        s.announcedBlocks = 0;
        s.state = Sequence.State.WAITING;
        waiting.addFirst(s);
        s.preemptions++;
        preemptions++;
    }
}
