package io.tierroute.sim.policy.oracle;

import io.tierroute.sim.engine.StepTimeModel;
import io.tierroute.sim.policy.OracleView.Phase;
import io.tierroute.sim.policy.OracleView.SeqState;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One worker's engine run forward from its exact state, with no further arrivals, until every request on
 * it has finished: when each gets its first token and when it finishes. It replays {@code engine.Worker}
 * step by step (same budget, scheduling order, admission, block accounting, preemption rule and step
 * time); a run of decode-only steps that nothing can interrupt is advanced one O(1) step at a time.
 *
 * <p>What it cannot know exactly, and assumes: a queued request's cache hit at its admission is what it
 * would match now (blocks evicted in between are not foreseen, nor blocks another request computes in
 * between); a block a request allocates is its own (the engine's {@code allocNamed} reuses a block another
 * request computed meanwhile, e.g. two chunked prefills of one shared prefix); a preempted request re-hits
 * the prompt blocks it had computed; loads in flight end when the PCIe link's pending bytes have moved (one still
 * reading from the drive: when the drive's pending bytes have, plus its own bytes over PCIe), and loads the run
 * starts go one after another at each link's full bandwidth (the engine's {@code PcieLink} shares it equally among
 * concurrent transfers): a load's CPU blocks over PCIe, its NVMe blocks over the drive's link and then PCIe, ready
 * when both parts are.
 */
final class WorkerForecast {

    /** Safety stop (a run that has not drained by then reports the remaining requests at its end). */
    private static final long MAX_STEPS = 2_000_000;

    /** A request in the forecast (mirrors {@code engine.Sequence}). */
    static final class Seq {
        Phase phase;
        final int prompt;
        final int fullBlocks;
        int computed;
        int target;
        int generated;
        final int output;
        int held;
        /** Blocks only it holds (its release frees them). */
        int exclusive;
        /** Ids of blocks it holds with others (freed by their last holder's release). */
        int[] shared;
        int hbmHit;
        int hbmHitFree;
        int[] hbmHitHeld;
        int cpuHit;
        int nvmeHit;
        /** LOADING: blocks still being read from the drive. */
        final int driveBlocks;
        double readyAt;
        int chunk;
        boolean decoding;
        /** µs from the forecast's start; -1 until it happens. */
        double firstTokenAt = -1;
        double finishedAt = -1;
        int preemptions;
        final boolean hadFirstToken;

        Seq(SeqState s, int bs) {
            phase = s.phase();
            prompt = s.promptTokens();
            fullBlocks = s.promptTokens() / bs;
            computed = s.computed();
            target = s.target();
            generated = s.generated();
            output = s.outputTokens();
            held = s.heldBlocks();
            exclusive = s.exclusiveBlocks();
            shared = s.sharedBlocks();
            hbmHit = s.hbmHitBlocks();
            hbmHitFree = 0; // every hit block of the snapshot has an id (OracleView.SeqState#hbmHitBlockIds)
            hbmHitHeld = s.hbmHitBlockIds();
            cpuHit = s.cpuHitBlocks();
            nvmeHit = s.nvmeHitBlocks();
            driveBlocks = s.driveBlocks();
            hadFirstToken = generated > 0;
        }

        boolean prefilling() { return computed < target; }
    }

    private final int bs;
    private final double capBlocks;
    private final int budgetMax;
    private final int maxRunning;
    private final double bytesPerToken;
    private final double linkBytesPerMicro;
    private final double nvmeBytesPerMicro;

    private final ArrayList<Seq> all = new ArrayList<>();
    private final ArrayList<Seq> running = new ArrayList<>();
    private final ArrayList<Seq> loading = new ArrayList<>();
    private final ArrayDeque<Seq> ready = new ArrayDeque<>();
    private final ArrayDeque<Seq> waiting = new ArrayDeque<>();
    private final ArrayList<Seq> scheduled = new ArrayList<>();
    private final int[] needAt;
    /** Holders per shared block id. */
    private int[] refs = new int[0];
    /** Holders per shared block id among the running batch. */
    private int[] runRefs = new int[0];
    private double used;
    /** The blocks the running batch holds: the decode step's u (engine {@code KvCache.heldByRunning}). */
    private double runningUsed;
    private double t;
    private double linkFreeAt;
    private double nvmeFreeAt;
    private long steps;
    private int preemptions;

    WorkerForecast(int blockSize, long capacityBlocks, int maxBatchedTokens, int maxRunning, double bytesPerToken,
                   double linkBytesPerSecond, double nvmeBytesPerSecond) {
        this.bs = blockSize;
        this.capBlocks = capacityBlocks;
        this.budgetMax = maxBatchedTokens;
        this.maxRunning = maxRunning;
        this.bytesPerToken = bytesPerToken;
        this.linkBytesPerMicro = linkBytesPerSecond / 1e6;
        this.nvmeBytesPerMicro = nvmeBytesPerSecond / 1e6;
        this.needAt = new int[blockSize];
    }

    /**
     * Runs the worker from {@code states} (its requests in scheduling order) plus {@code extra} (null: none)
     * at the tail of its waiting queue; the step in progress ends at {@code startMicros}, loads in flight
     * have {@code pendingLinkBytes} left on the PCIe link and {@code pendingNvmeBytes} on the drive's. Returns the
     * requests, {@code states}' order then {@code extra}.
     */
    List<Seq> run(List<SeqState> states, SeqState extra, double startMicros, double pendingLinkBytes,
                  double pendingNvmeBytes) {
        all.clear(); running.clear(); loading.clear(); ready.clear(); waiting.clear(); scheduled.clear();
        used = 0;
        runningUsed = 0;
        t = startMicros;
        steps = 0;
        preemptions = 0;
        linkFreeAt = pendingLinkBytes > 0 && linkBytesPerMicro > 0 ? pendingLinkBytes / linkBytesPerMicro : 0;
        nvmeFreeAt = pendingNvmeBytes > 0 && nvmeBytesPerMicro > 0 ? pendingNvmeBytes / nvmeBytesPerMicro : 0;
        int ids = 0;
        for (SeqState s : states) ids = Math.max(ids, maxId(s) + 1);
        if (extra != null) ids = Math.max(ids, maxId(extra) + 1);
        if (refs.length < ids) {
            refs = new int[Math.max(ids, 2 * refs.length)];
            runRefs = new int[refs.length];
        }
        java.util.Arrays.fill(refs, 0, ids, 0);
        java.util.Arrays.fill(runRefs, 0, ids, 0);
        for (SeqState s : states) add(new Seq(s, bs));
        if (extra != null) add(new Seq(extra, bs));
        while ((!running.isEmpty() || !ready.isEmpty() || !waiting.isEmpty() || !loading.isEmpty()) && steps < MAX_STEPS) {
            loadsDone();
            if (fastForward()) continue;
            long d = startStep();
            if (d < 0) {
                if (loading.isEmpty()) break; // wedged (the engine would stall too)
                t = Math.max(t, nextReady());
                continue;
            }
            steps++;
            t += Math.max(1, d);
            finishStep();
        }
        for (Seq s : all) { // a wedged or cut-off run: what is left ends when the run stopped
            if (s.firstTokenAt < 0 && !s.hadFirstToken) s.firstTokenAt = t;
            if (s.finishedAt < 0) s.finishedAt = t;
        }
        return all;
    }

    /** Preemptions the last run caused. */
    int preemptions() { return preemptions; }

    private static int maxId(SeqState s) {
        int m = -1;
        for (int id : s.sharedBlocks()) m = Math.max(m, id);
        for (int id : s.hbmHitBlockIds()) m = Math.max(m, id);
        return m;
    }

    private void add(Seq s) {
        all.add(s);
        used += s.exclusive;
        for (int id : s.shared) if (refs[id]++ == 0) used++;
        switch (s.phase) {
            case RUNNING -> {
                running.add(s);
                joinBatch(s);
            }
            case READY -> ready.addLast(s);
            case LOADING -> {
                s.readyAt = s.driveBlocks == 0 ? linkFreeAt
                        : Math.max(linkFreeAt, nvmeFreeAt + s.driveBlocks * bs * bytesPerToken / linkBytesPerMicro);
                loading.add(s);
            }
            case WAITING -> waiting.addLast(s);
        }
    }

    private double nextReady() {
        double min = Double.POSITIVE_INFINITY;
        for (Seq s : loading) min = Math.min(min, s.readyAt);
        return min;
    }

    /** Worker.transfersDone: loads whose bytes have moved make their requests ready (in completion order). */
    private void loadsDone() {
        while (!loading.isEmpty()) {
            Seq first = null;
            for (Seq s : loading) if (s.readyAt <= t && (first == null || s.readyAt < first.readyAt)) first = s;
            if (first == null) return;
            loading.remove(first);
            first.computed = first.held * bs; // its HBM hits and the loaded blocks (a snapshot's LOADING request has only held)
            first.hbmHit = 0;
            first.cpuHit = 0;
            first.nvmeHit = 0;
            first.phase = Phase.READY;
            ready.addLast(first);
        }
    }

    /** Worker.startStep: returns the step's µs, or -1 when nothing can run. */
    private long startStep() {
        scheduled.clear();
        int budget = budgetMax;
        long prefill = 0;
        int decode = 0;
        boolean preempted = false;
        for (int i = 0; i < running.size(); i++) {
            Seq s = running.get(i);
            boolean pre = s.prefilling();
            int chunk = pre ? Math.min(s.target - s.computed, budget) : (budget > 0 ? 1 : 0);
            if (chunk <= 0) continue;
            boolean self = false;
            while (!ensureBlocks(s, s.computed + chunk)) {
                Seq victim = running.get(running.size() - 1);
                preempt(victim);
                preempted = true;
                if (victim == s) { self = true; break; }
            }
            if (self) break;
            s.chunk = chunk;
            s.decoding = !pre;
            budget -= chunk;
            scheduled.add(s);
            if (pre) prefill += chunk; else decode++;
        }
        while (!preempted && budget > 0 && running.size() < maxRunning) {
            Seq s = !ready.isEmpty() ? ready.peekFirst() : waiting.peekFirst();
            if (s == null) break;
            int took = s.phase == Phase.READY ? admitLoaded(s, budget) : admitWaiting(s, budget);
            if (took < 0) break; // FCFS
            if (s.phase == Phase.READY) ready.pollFirst(); else waiting.pollFirst();
            if (took > 0) {
                s.phase = Phase.RUNNING;
                running.add(s);
                joinBatch(s);
                s.chunk = took;
                s.decoding = false;
                scheduled.add(s);
                budget -= took;
                prefill += took;
            }
        }
        if (scheduled.isEmpty()) {
            if (preempted) return startStep();
            if (running.isEmpty() && loading.isEmpty() && ready.size() > 1) {
                unblock();
                return startStep();
            }
            return -1;
        }
        return StepTimeModel.stepMicros(prefill, decode, runningUsed / capBlocks);
    }

    /** Worker.joinBatch: {@code s} runs from now on, so the decode step reads its blocks. */
    private void joinBatch(Seq s) {
        runningUsed += s.exclusive;
        for (int id : s.shared) if (runRefs[id]++ == 0) runningUsed++;
    }

    /** Worker.leaveBatch: {@code s} finished or was preempted (before it releases its blocks). */
    private void leaveBatch(Seq s) {
        runningUsed -= s.exclusive;
        for (int id : s.shared) if (--runRefs[id] == 0) runningUsed--;
    }

    private int admitWaiting(Seq s, int budget) {
        int maxHit = Math.min(s.fullBlocks, (s.target - 1) / bs);
        int h = Math.min(s.hbmHit, maxHit);
        int c = Math.min(s.cpuHit + s.nvmeHit, maxHit - h);
        acquireHits(s, h);
        if (c > 0) {
            if (used + c > capBlocks) { release(s); return -1; }
            used += c;
            s.exclusive += c;
            s.held += c;
            s.hbmHit = h;
            int fromCpu = Math.min(s.cpuHit, c);
            int fromNvme = c - fromCpu;
            s.cpuHit = fromCpu;
            s.nvmeHit = fromNvme;
            s.readyAt = t;
            if (fromCpu > 0) {
                linkFreeAt = Math.max(t, linkFreeAt) + fromCpu * bs * bytesPerToken / linkBytesPerMicro;
                s.readyAt = linkFreeAt;
            }
            if (fromNvme > 0) { // the drive read, then the copy over PCIe
                nvmeFreeAt = Math.max(t, nvmeFreeAt) + fromNvme * bs * bytesPerToken / nvmeBytesPerMicro;
                linkFreeAt = Math.max(nvmeFreeAt, linkFreeAt) + fromNvme * bs * bytesPerToken / linkBytesPerMicro;
                s.readyAt = Math.max(s.readyAt, linkFreeAt);
            }
            s.phase = Phase.LOADING;
            loading.add(s);
            return 0;
        }
        int chunk = Math.min(s.target - s.computed, budget);
        if (!ensureBlocks(s, s.computed + chunk)) { release(s); return -1; }
        return chunk;
    }

    private int admitLoaded(Seq s, int budget) {
        int chunk = Math.min(s.target - s.computed, budget);
        return ensureBlocks(s, s.computed + chunk) ? chunk : -1;
    }

    private boolean ensureBlocks(Seq s, int tokens) {
        int need = (tokens + bs - 1) / bs - s.held;
        if (need <= 0) return true;
        if (used + need > capBlocks + 1e-9) return false;
        used += need;
        if (s.phase == Phase.RUNNING) runningUsed += need;
        s.exclusive += need;
        s.held += need;
        return true;
    }

    /** Admission's HBM match of {@code h} blocks: held ones gain a holder, unheld cached ones become referenced. */
    private void acquireHits(Seq s, int h) {
        int heldHits = Math.min(s.hbmHitHeld.length, h);
        s.shared = heldHits == s.hbmHitHeld.length ? s.hbmHitHeld : java.util.Arrays.copyOf(s.hbmHitHeld, heldHits);
        for (int id : s.shared) if (refs[id]++ == 0) used++; // its holders left: cached, now referenced again
        s.exclusive = Math.min(s.hbmHitFree, h - heldHits);
        used += s.exclusive;
        s.held = h;
        s.computed = h * bs;
    }

    /** Worker.releaseAll. */
    private void release(Seq s) {
        used -= s.exclusive;
        for (int id : s.shared) if (--refs[id] == 0) used--;
        s.exclusive = 0;
        s.shared = NONE;
        s.held = 0;
        s.computed = 0;
    }

    private static final int[] NONE = new int[0];

    /** After a preemption or unblock: admission will re-hit the prompt blocks it had (held ones shared again). */
    private static void requeueHits(Seq s, int cachedPromptBlocks, int[] sharedBefore) {
        s.hbmHit = cachedPromptBlocks;
        s.hbmHitHeld = sharedBefore.length <= cachedPromptBlocks ? sharedBefore : java.util.Arrays.copyOf(sharedBefore, cachedPromptBlocks);
        s.hbmHitFree = cachedPromptBlocks - s.hbmHitHeld.length;
        s.cpuHit = 0;
        s.nvmeHit = 0;
    }

    /** Worker.preempt: loses its blocks, requeues at the head, recomputes prompt and output (its prompt blocks stay cached). */
    private void preempt(Seq s) {
        running.remove(s);
        leaveBatch(s);
        requeueAtHead(s);
    }

    /** Worker.unblock: requests loaded behind the head of the loaded queue give their blocks back. */
    private void unblock() {
        while (ready.size() > 1) {
            requeueAtHead(ready.pollLast());
        }
    }

    /** What preempt and unblock share: the blocks go back, the request waits at the queue's head to recompute. */
    private void requeueAtHead(Seq s) {
        int cachedPromptBlocks = Math.min(s.fullBlocks, s.computed / bs);
        int[] sharedBefore = s.shared;
        release(s);
        s.target = s.prompt + s.generated;
        requeueHits(s, cachedPromptBlocks, sharedBefore);
        s.phase = Phase.WAITING;
        waiting.addFirst(s);
        s.preemptions++;
        preemptions++;
    }

    /** Worker.finishStep. */
    private void finishStep() {
        for (int i = 0; i < scheduled.size(); i++) {
            Seq s = scheduled.get(i);
            if (s.decoding) {
                s.computed += 1;
                s.generated += 1;
            } else {
                s.computed += s.chunk;
                if (!s.prefilling()) {
                    s.generated += 1;
                    if (s.firstTokenAt < 0 && !s.hadFirstToken) s.firstTokenAt = t;
                }
            }
            s.chunk = 0;
            if (s.generated >= s.output) {
                running.remove(s);
                leaveBatch(s);
                release(s);
                s.finishedAt = t;
            }
        }
        scheduled.clear();
    }

    /**
     * A run of decode-only steps nothing interrupts (no prefill running, nothing ready, the queue's head
     * cannot be admitted, no load ending, no decoder finishing, KV enough for the blocks the decoders
     * grow into), advanced with the same per-step arithmetic as the engine but O(1) per step. Returns
     * false (nothing done) when the next step is not such a step.
     */
    private boolean fastForward() {
        if (running.isEmpty() || !ready.isEmpty()) return false;
        int minLeft = Integer.MAX_VALUE;
        java.util.Arrays.fill(needAt, 0);
        for (Seq s : running) {
            if (s.prefilling()) return false;
            int room = s.held * bs - s.computed; // tokens it can add before it needs a block
            if (room >= bs || room < 0) return false;
            needAt[room]++;
            minLeft = Math.min(minLeft, s.output - s.generated);
        }
        int nd = running.size();
        if (nd > budgetMax) return false;
        long k = minLeft - 1L; // the step where a decoder finishes is replayed exactly
        if (k <= 0) return false;
        if (!waiting.isEmpty() && budgetMax - nd > 0 && running.size() < maxRunning && headFits(budgetMax - nd)) return false;
        double until = loading.isEmpty() ? Double.POSITIVE_INFINITY : nextReady();
        long j = 0;
        double u0 = used;
        double r0 = runningUsed;
        while (j < k && t < until) {
            int need = needAt[(int) (j % bs)];
            if (used + need > capBlocks + 1e-9) break;
            used += need;
            runningUsed += need; // every decoder grows, and every decoder runs
            t += Math.max(1, StepTimeModel.stepMicros(0, nd, runningUsed / capBlocks));
            j++;
            steps++;
        }
        if (j == 0) {
            used = u0;
            runningUsed = r0;
            return false;
        }
        for (Seq s : running) {
            int room = s.held * bs - s.computed;
            long blocks = j > room ? (j - 1 - room) / bs + 1 : 0;
            s.held += (int) blocks;
            s.exclusive += (int) blocks;
            s.computed += (int) j;
            s.generated += (int) j;
        }
        return true;
    }

    /** Whether admission would take the queue's head now (without changing anything). */
    private boolean headFits(int budget) {
        Seq s = waiting.peekFirst();
        int maxHit = Math.min(s.fullBlocks, (s.target - 1) / bs);
        int h = Math.min(s.hbmHit, maxHit);
        int c = Math.min(s.cpuHit + s.nvmeHit, maxHit - h);
        int heldHits = Math.min(s.hbmHitHeld.length, h);
        double need = Math.min(s.hbmHitFree, h - heldHits);
        for (int i = 0; i < heldHits; i++) if (refs[s.hbmHitHeld[i]] == 0) need++;
        if (c > 0) need += c;
        else need += (h * bs + Math.min(s.target - h * bs, budget) + bs - 1) / bs - h;
        return used + need <= capBlocks + 1e-9;
    }
}
