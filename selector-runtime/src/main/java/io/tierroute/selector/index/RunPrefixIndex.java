package io.tierroute.selector.index;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;

/**
 * The production {@link PrefixIndex}: blocks grouped into {@link Run}s (stretches of a hash chain with
 * identical holders) and a lock-free hash table from block hash to run. A match costs one table probe
 * (or a verified next-run hint) per run on the request's path plus a sequential comparison of hashes
 * inside each run, and stops as soon as no worker matches any more; answers are exact (equal to
 * {@link NaiveReferenceIndex}) for any event sequence, because runs are only a layout: hashes are
 * compared, never inferred from parents. See {@code package-info.java} for the concurrency argument,
 * the approximate-mode rule and the cap.
 *
 * <p>Built with {@link #builder()}; the worker count is fixed at construction.
 */
public final class RunPrefixIndex implements PrefixIndex {

    private static final VarHandle EPOCH;

    static {
        try {
            EPOCH = MethodHandles.lookup().findVarHandle(RunPrefixIndex.class, "epoch", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int OP_STORE = 0;
    private static final int OP_REMOVE = 1;
    private static final int OP_APPROX = 2;
    private static final int OP_CLEAR = 3;
    private static final int OP_EXPIRE = 4;
    private static final int OP_RELEASE = 5;

    /** Construction options. */
    public record Config(int workers, long maxBlocks, double pruneToFraction, int expectedBlocks) {
        public Config {
            if (workers <= 0) {
                throw new IllegalArgumentException("workers must be positive: " + workers);
            }
            if (maxBlocks <= 0) {
                throw new IllegalArgumentException("maxBlocks must be positive: " + maxBlocks);
            }
            if (!(pruneToFraction > 0 && pruneToFraction <= 1)) {
                throw new IllegalArgumentException("pruneToFraction must be in (0, 1]: " + pruneToFraction);
            }
        }
    }

    /** Builder; only {@code workers} is required. */
    public static final class Builder {
        private int workers;
        private long maxBlocks = 4_000_000;
        private double pruneToFraction = 0.9;
        private int expectedBlocks = 1 << 16;

        /** Number of workers (dense indices {@code 0..workers-1}); fixed for the index's life. */
        public Builder workers(int workers) {
            this.workers = workers;
            return this;
        }

        /** Cap on indexed blocks; past it the writer prunes least recently used runs. Default 4 M. */
        public Builder maxBlocks(long maxBlocks) {
            this.maxBlocks = maxBlocks;
            return this;
        }

        /** A prune brings the count down to {@code maxBlocks * fraction} (batching). Default 0.9. */
        public Builder pruneToFraction(double fraction) {
            this.pruneToFraction = fraction;
            return this;
        }

        /** Initial table sizing hint (the table grows as needed). Default 65 536. */
        public Builder expectedBlocks(int expectedBlocks) {
            this.expectedBlocks = expectedBlocks;
            return this;
        }

        public RunPrefixIndex build() {
            return new RunPrefixIndex(new Config(workers, maxBlocks, pruneToFraction, expectedBlocks));
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    private final Config config;
    private final int workers;
    private final int words;
    private final long[] fullMask;
    private final Holders emptyHolders;

    private volatile BlockTable table;
    /** Writer's operation counter; the LRU clock. Written by the writer, read opaquely by readers. */
    @SuppressWarnings("unused")
    private long epoch;
    private volatile long publishedCount;

    // ---- writer-only state ----
    private long count;
    private final ArrayList<Run> live = new ArrayList<>();
    private final ArrayList<Run> approxRuns = new ArrayList<>();
    private int opCode;
    private int opWorker;
    private int opTier;
    private long opArg;
    private Holders memoIn;
    private Holders memoOut;
    private long prunedBlocks;

    public RunPrefixIndex(Config config) {
        this.config = config;
        this.workers = config.workers();
        this.words = (workers + 63) >>> 6;
        this.fullMask = new long[words];
        for (int w = 0; w < workers; w++) {
            fullMask[w >>> 6] |= 1L << w;
        }
        this.emptyHolders = Holders.empty(words);
        this.table = new BlockTable((int) Math.min(1 << 30, Math.max(16L, config.expectedBlocks() * 2L)));
    }

    public Config config() {
        return config;
    }

    public int workers() {
        return workers;
    }

    @Override
    public long blockCount() {
        return publishedCount;
    }

    /** Number of runs (for metrics and tests). Writer thread only. */
    public int runCount() {
        return live.size();
    }

    /** Slots of the distinct arrays the live runs hold (the index's hash storage, in longs). Writer thread only. */
    long arraySlots() {
        java.util.Set<long[]> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        long slots = 0;
        for (Run r : live) {
            if (seen.add(r.arr)) {
                slots += r.arr.length;
            }
        }
        return slots;
    }

    /** Blocks dropped by the cap since construction. Writer thread only. */
    public long prunedBlocks() {
        return prunedBlocks;
    }

    // =====================================================================================
    // read path
    // =====================================================================================

    /**
     * {@inheritDoc}
     *
     * <p>Allocation-free (after the first call with a given {@code out}, which sizes its scratch
     * space); lock-free; marks the runs it matched as used for the LRU cap with an opaque write.
     */
    @Override
    public void match(long[] blockHashes, int blocks, long nowNanos, PrefixMatch out) {
        if (out.workers() < workers) {
            throw new IllegalArgumentException(
                    "PrefixMatch sized for " + out.workers() + " workers; index has " + workers);
        }
        final int n = Math.min(blocks, blockHashes.length);
        out.reset(Math.max(0, n));
        if (n <= 0) {
            return;
        }
        final int words = this.words;
        final long[] active = out.scratch(Tier.COUNT * words + words);
        for (int t = 0; t < Tier.COUNT; t++) {
            System.arraycopy(fullMask, 0, active, t * words, words);
        }
        walk(blockHashes, 0, n, nowNanos, out, active);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Continues the walk where the last {@code match} on {@code out} reached the end of the blocks
     * it was given with some worker still matching: the live masks wait in {@code out}'s scratch.
     */
    @Override
    public void matchMore(long[] blockHashes, int blocks, long nowNanos, PrefixMatch out) {
        final int n = Math.min(blocks, blockHashes.length);
        final int from = out.resumeFrom;
        if (from <= 0 || out.resumeOwner != this || out.workers() < workers) {
            match(blockHashes, blocks, nowNanos, out);
            return;
        }
        out.extend(Math.max(n, from));
        if (n <= from) {
            return;
        }
        walk(blockHashes, from, n, nowNanos, out, out.scratch(Tier.COUNT * words + words));
    }

    /**
     * The walk from block {@code pos} to {@code n}: {@code active} holds, per tier, the workers still
     * matching at {@code pos}; each that drops gets its depth written to {@code out}.
     */
    /** Re-reads of one block's slot while a writer keeps moving it, before the walk gives up on it. */
    private static final int MAX_RETRIES = 1_000;

    private void walk(long[] blockHashes, int pos, final int n, long nowNanos, PrefixMatch out, final long[] active) {
        out.resumeFrom = -1;
        out.resumeOwner = null;
        final int words = this.words;
        final int tiers = Tier.COUNT;
        final int apOff = tiers * words;
        BlockTable tab = table;
        final long ep = (long) EPOCH.getOpaque(this);
        Run prev = null; // the run whose end the walk just reached, for the next-run hint
        walk:
        while (pos < n) {
            final long h = blockHashes[pos];
            Run r = null;
            int p = 0;
            int end = 0;
            if (prev != null) {
                Run hint = prev.nextHint();
                if (hint != null && !hint.dead) {
                    end = hint.end;
                    p = hint.start;
                    if (p < end && hint.arr[p] == h) {
                        r = hint;
                    }
                }
            }
            int retries = 0;
            while (r == null) {
                r = tab.get(h);
                if (r == null) {
                    break walk;
                }
                end = r.end;
                p = r.start;
                if (p < end && r.arr[p] == h) {
                    break;
                }
                p = r.find(h, end);
                if (p >= 0) {
                    break;
                }
                // Raced with a split that moved h to a new run: the slot already names it, but
                // possibly only in a table grown since this walk began, so read the table again.
                r = null;
                tab = table;
                if (++retries > MAX_RETRIES) {
                    break walk; // a writer outpacing us this long: answer with what matched so far
                }
            }
            if (prev != null && p == r.start) {
                prev.hintNext(r);
            }
            final long[] arr = r.arr;
            final int lim = Math.min(n - pos, end - p);
            int k = 1;
            while (k < lim && arr[p + k] == blockHashes[pos + k]) {
                k++;
            }
            final long[] bits = r.bits;
            final long[] ap;
            if (nowNanos < r.minExpiry) { // no approximate entry has expired: take them all
                ap = bits;
            } else {
                r.holders.approxValidAt(nowNanos, active, apOff);
                ap = active;
            }
            long any = 0;
            for (int t = 0; t < tiers; t++) {
                final int base = t * words;
                for (int w = 0; w < words; w++) {
                    long a = active[base + w];
                    if (a == 0) {
                        continue;
                    }
                    long eff = bits[base + w] | ap[apOff + w];
                    long drop = a & ~eff;
                    while (drop != 0) {
                        out.set((w << 6) + Long.numberOfTrailingZeros(drop), t, pos);
                        drop &= drop - 1;
                    }
                    a &= eff;
                    active[base + w] = a;
                    any |= a;
                }
            }
            if (any == 0) {
                return;
            }
            r.touch(ep);
            pos += k;
            prev = p + k == end ? r : null;
        }
        if (pos >= n) {
            // Every block given matched for someone: a longer prefix may go deeper.
            out.resumeFrom = n;
            out.resumeOwner = this;
        }
        for (int t = 0; t < tiers; t++) {
            final int base = t * words;
            for (int w = 0; w < words; w++) {
                long a = active[base + w];
                while (a != 0) {
                    out.set((w << 6) + Long.numberOfTrailingZeros(a), t, pos);
                    a &= a - 1;
                }
            }
        }
    }

    // =====================================================================================
    // write path (single writer)
    // =====================================================================================

    @Override
    public void apply(KvEvent event) {
        checkWorker(event.worker());
        nextEpoch();
        if (event instanceof KvEvent.Stored s) {
            begin(OP_STORE, s.worker(), s.tier().ordinal(), 0);
            update(s.blockHashes(), s.blockHashes().length, true, s.hasParent(), s.parentHash());
        } else if (event instanceof KvEvent.Removed r) {
            begin(OP_REMOVE, r.worker(), r.tier().ordinal(), 0);
            update(r.blockHashes(), r.blockHashes().length, false, false, 0);
        } else if (event instanceof KvEvent.Moved m) {
            begin(OP_REMOVE, m.worker(), m.from().ordinal(), 0);
            update(m.blockHashes(), m.blockHashes().length, false, false, 0);
            begin(OP_STORE, m.worker(), m.to().ordinal(), 0);
            update(m.blockHashes(), m.blockHashes().length, true, false, 0);
        } else if (event instanceof KvEvent.Cleared c) {
            begin(OP_CLEAR, c.worker(), 0, 0);
            rewriteWhole(live);
        }
        finishOp();
    }

    @Override
    public void recordRouted(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos) {
        checkWorker(worker);
        nextEpoch();
        begin(OP_APPROX, worker, 0, PrefixIndex.routedExpiry(nowNanos, ttlNanos));
        update(blockHashes, Math.min(blocks, blockHashes.length), true, false, 0);
        finishOp();
    }

    @Override
    public void releaseRouted(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos) {
        checkWorker(worker);
        nextEpoch();
        begin(OP_RELEASE, worker, 0, PrefixIndex.routedExpiry(nowNanos, ttlNanos));
        update(blockHashes, Math.min(blocks, blockHashes.length), false, false, 0);
        finishOp();
    }

    @Override
    public void expire(long nowNanos) {
        begin(OP_EXPIRE, 0, 0, nowNanos);
        rewriteWhole(approxRuns);
        finishOp();
    }

    private void checkWorker(int worker) {
        if (worker < 0 || worker >= workers) {
            throw new IllegalArgumentException("worker " + worker + " outside 0.." + (workers - 1));
        }
    }

    private void nextEpoch() {
        EPOCH.setOpaque(this, epoch + 1);
    }

    private void begin(int op, int worker, int tier, long arg) {
        opCode = op;
        opWorker = worker;
        opTier = tier;
        opArg = arg;
        memoIn = null;
        memoOut = null;
    }

    private void finishOp() {
        memoIn = null;
        memoOut = null;
        if (count > config.maxBlocks()) {
            prune();
        }
        publishedCount = count;
    }

    private Holders transform(Holders h) {
        if (h == memoIn) {
            return memoOut;
        }
        Holders r = switch (opCode) {
            case OP_STORE -> h.withReal(opWorker, opTier);
            case OP_REMOVE -> h.withoutReal(opWorker, opTier);
            case OP_APPROX -> h.withApprox(opWorker, opArg);
            case OP_CLEAR -> h.withoutWorker(opWorker);
            case OP_EXPIRE -> h.withoutExpired(opArg);
            case OP_RELEASE -> h.withoutApprox(opWorker, opArg);
            default -> throw new IllegalStateException("op " + opCode);
        };
        memoIn = h;
        memoOut = r;
        return r;
    }

    /** Applies the current op to blocks {@code hs[0, n)}, taken as a chain (only a speed hint). */
    private void update(long[] hs, int n, boolean create, boolean hasParent, long parent) {
        final long ep = epoch;
        final boolean isStore = opCode == OP_STORE || opCode == OP_APPROX;
        final Holders created = create ? transform(emptyHolders) : null;
        Run target = null;
        if (create && hasParent) {
            Run pr = table.get(parent);
            if (pr != null && pr.tailOwner) {
                int e = pr.end;
                if (e > pr.start && pr.arr[e - 1] == parent && pr.holders.equals(created)) {
                    target = pr;
                }
            }
        }
        int j = 0;
        while (j < n) {
            final long h = hs[j];
            final Run r = table.get(h);
            if (r == null) {
                if (create) {
                    if (target == null || !target.tailOwner) {
                        target = newRun(created, n - j, ep);
                    }
                    target = append(target, h);
                    target.touch(ep);
                } else {
                    target = null;
                }
                j++;
                continue;
            }
            final int end = r.end;
            final int p = r.find(h, end);
            int k = 1;
            while (j + k < n && p + k < end && r.arr[p + k] == hs[j + k]) {
                k++;
            }
            final Holders nh = transform(r.holders);
            final Run m;
            if (nh == r.holders || nh.equals(r.holders)) {
                m = r;
                if (isStore) {
                    r.touch(ep);
                }
            } else {
                m = split(r, p, p + k, nh, isStore ? ep : r.lastUsed());
            }
            // m may continue the chain only if it ends with the last block just visited (a compacted m has its own array).
            target = create && m != null && m.tailOwner && m.end > m.start && m.arr[m.end - 1] == hs[j + k - 1]
                    && m.holders.equals(created) ? m : null;
            j += k;
        }
    }

    /** Applies the current op to every block of every run in {@code runs} (Cleared, expire). */
    private void rewriteWhole(ArrayList<Run> runs) {
        // Downwards: kill() swaps the last run into the freed index, and new runs go to the end,
        // both of which are already visited.
        for (int i = runs.size() - 1; i >= 0; i--) {
            if (i >= runs.size()) {
                continue;
            }
            Run r = runs.get(i);
            Holders nh = transform(r.holders);
            if (nh != r.holders && !nh.equals(r.holders)) {
                split(r, r.start, r.end, nh, r.lastUsed());
            }
        }
    }

    private Run newRun(Holders holders, int capacityHint, long ep) {
        Run r = new Run(new long[Math.max(4, capacityHint)], 0, 0, holders, ep);
        r.tailOwner = true;
        addLive(r);
        return r;
    }

    /** Appends {@code h} (not yet indexed) to the tail-owning run {@code r}; returns the run now holding it. */
    private Run append(Run r, long h) {
        if (r.end == r.arr.length) {
            r = grow(r);
        }
        ensureCapacity();
        int e = r.end;
        r.arr[e] = h;
        r.end = e + 1; // volatile: the element is visible before the new end
        table.put(h, r);
        count++;
        return r;
    }

    private Run grow(Run r) {
        int len = r.end - r.start;
        long[] arr = new long[Math.max(8, len * 2)];
        System.arraycopy(r.arr, r.start, arr, 0, len);
        Run g = new Run(arr, 0, len, r.holders, r.lastUsed());
        g.tailOwner = true;
        addLive(g);
        publish(g, 0, len);
        kill(r);
        return g;
    }

    /**
     * Gives blocks {@code [a, b)} of {@code r} the holders {@code nh} (dropping them from the index when
     * {@code nh} is empty). Returns the run now holding them, or null. Order matters for readers: the
     * new runs are published slot by slot first; only then does {@code r} shrink its end.
     */
    private Run split(Run r, int a, int b, Holders nh, long lastUsed) {
        final int end = r.end;
        final boolean prefix = a > r.start;
        final boolean suffix = b < end;
        Run m = null;
        if (!nh.isEmpty()) {
            m = new Run(r.arr, a, b, nh, lastUsed);
            m.tailOwner = !suffix && r.tailOwner;
            addLive(m);
            publish(m, a, b);
            m = compactIfSparse(m);
        } else {
            for (int i = a; i < b; i++) {
                table.put(r.arr[i], null);
            }
            count -= b - a;
        }
        if (suffix) {
            Run s = new Run(r.arr, b, end, r.holders, r.lastUsed());
            s.tailOwner = r.tailOwner;
            addLive(s);
            publish(s, b, end);
            compactIfSparse(s);
        }
        if (prefix) {
            r.tailOwner = false;
            r.end = a;
            compactIfSparse(r);
        } else {
            kill(r);
        }
        return m;
    }

    /** Arrays shorter than this are never copied out: the copy would save less than it costs. */
    static final int COMPACT_MIN_ARRAY = 64;
    /** A run holding fewer than 1/COMPACT_RATIO of its array's slots gets an array of its own. */
    static final int COMPACT_RATIO = 4;

    /**
     * Splits share their run's array, so without this one surviving block could keep a whole event's array alive
     * (an engine evicts a chain leaf first: a Stored of 512 blocks, then Removed of all but the first, leaves 1 block
     * holding 512 slots), and {@code maxBlocks} would not bound memory. A run much shorter than its array gets a copy
     * of its blocks, published before the old run is killed (the order readers rely on); returns the run holding them.
     */
    private Run compactIfSparse(Run r) {
        int len = r.end - r.start;
        if (r.arr.length < COMPACT_MIN_ARRAY || (long) len * COMPACT_RATIO >= r.arr.length) {
            return r;
        }
        Run c = new Run(java.util.Arrays.copyOfRange(r.arr, r.start, r.end), 0, len, r.holders, r.lastUsed());
        c.tailOwner = true; // the end of its own array
        addLive(c);
        publish(c, 0, len);
        kill(r);
        return c;
    }

    private void publish(Run r, int from, int to) {
        long[] arr = r.arr;
        BlockTable t = table;
        for (int i = from; i < to; i++) {
            t.put(arr[i], r);
        }
    }

    private void addLive(Run r) {
        r.liveIndex = live.size();
        live.add(r);
        if (r.holders.hasApprox()) {
            r.approxIndex = approxRuns.size();
            approxRuns.add(r);
        }
    }

    private void kill(Run r) {
        r.dead = true; // after its blocks were re-published or dropped (callers' order)
        removeAt(live, r.liveIndex, true);
        r.liveIndex = -1;
        if (r.approxIndex >= 0) {
            removeAt(approxRuns, r.approxIndex, false);
            r.approxIndex = -1;
        }
        r.tailOwner = false;
    }

    private static void removeAt(ArrayList<Run> list, int i, boolean liveList) {
        int last = list.size() - 1;
        Run moved = list.get(last);
        list.set(i, moved);
        list.remove(last);
        if (i != last) {
            if (liveList) {
                moved.liveIndex = i;
            } else {
                moved.approxIndex = i;
            }
        }
    }

    private void ensureCapacity() {
        BlockTable t = table;
        if (t.full()) {
            BlockTable bigger = new BlockTable((int) Math.min(1 << 30, Math.max(t.capacity(), (count + 1) * 4)));
            t.copyLiveTo(bigger);
            table = bigger;
        }
    }

    /**
     * Drops least recently used runs (by the epoch of their last store or match) until the count is
     * at {@code maxBlocks * pruneToFraction}. O(runs log runs) per prune; prunes are batched by the
     * fraction, so the cost per indexed block is logarithmic.
     */
    private void prune() {
        final long target = (long) Math.floor(config.maxBlocks() * config.pruneToFraction());
        final long need = count - target;
        if (need <= 0) {
            return;
        }
        final int n = live.size();
        final long[] stamps = new long[n];
        final int[] lengths = new int[n];
        for (int i = 0; i < n; i++) {
            Run r = live.get(i);
            stamps[i] = r.lastUsed();
            lengths[i] = r.end - r.start;
        }
        final long[] sorted = stamps.clone();
        Arrays.sort(sorted);
        int lo = 0;
        int hi = n - 1;
        while (lo < hi) { // smallest threshold whose runs at or below it cover the need
            int mid = (lo + hi) >>> 1;
            if (blocksAtOrBelow(stamps, lengths, sorted[mid]) >= need) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        final long threshold = sorted[lo];
        final ArrayList<Run> older = new ArrayList<>();
        final ArrayList<Run> atThreshold = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (stamps[i] < threshold) {
                older.add(live.get(i));
            } else if (stamps[i] == threshold) {
                atThreshold.add(live.get(i));
            }
        }
        for (Run r : older) {
            drop(r);
        }
        for (int i = 0; i < atThreshold.size() && count > target; i++) {
            drop(atThreshold.get(i));
        }
    }

    private static long blocksAtOrBelow(long[] stamps, int[] lengths, long threshold) {
        long sum = 0;
        for (int i = 0; i < stamps.length; i++) {
            if (stamps[i] <= threshold) {
                sum += lengths[i];
            }
        }
        return sum;
    }

    private void drop(Run r) {
        int end = r.end;
        for (int i = r.start; i < end; i++) {
            table.put(r.arr[i], null);
        }
        count -= end - r.start;
        prunedBlocks += end - r.start;
        kill(r);
    }
}
