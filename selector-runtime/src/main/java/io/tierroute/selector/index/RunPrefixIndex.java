package io.tierroute.selector.index;

import static io.tierroute.selector.index.WriteOp.OP_APPROX;
import static io.tierroute.selector.index.WriteOp.OP_CLEAR;
import static io.tierroute.selector.index.WriteOp.OP_EXPIRE;
import static io.tierroute.selector.index.WriteOp.OP_MOVE;
import static io.tierroute.selector.index.WriteOp.OP_RELEASE;
import static io.tierroute.selector.index.WriteOp.OP_REMOVE;
import static io.tierroute.selector.index.WriteOp.OP_STORE;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

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
 * <p>This class owns what readers load (the table, the epoch, the published count) and every write
 * of those fields, the lock-free read path, and the public write entry points, which turn events into
 * {@link WriteOp}s. The writer's run structure is {@link RunLayout}'s, the cap {@link LruPruner}'s.
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

    public static RunPrefixIndexConfig.Builder builder() {
        return new RunPrefixIndexConfig.Builder();
    }

    private final RunPrefixIndexConfig config;
    private final int workers;
    private final int words;
    private final long[] fullMask;

    /** Readers load it; after construction only {@link #ensureCapacity} replaces it (table growth). */
    volatile BlockTable table;
    /** Writer's operation counter; the LRU clock. Written by the writer, read opaquely by readers. */
    @SuppressWarnings("unused")
    private long epoch;
    private volatile long publishedCount;

    // ---- writer-only state ----
    private final RunLayout layout;
    private final WriteOp op;
    private final LruPruner pruner;

    public RunPrefixIndex(RunPrefixIndexConfig config) {
        this.config = config;
        this.workers = config.workers();
        this.words = (workers + 63) >>> 6;
        this.fullMask = new long[words];
        for (int w = 0; w < workers; w++) {
            fullMask[w >>> 6] |= 1L << w;
        }
        this.table = new BlockTable((int) Math.min(1 << 30, Math.max(16L, config.expectedBlocks() * 2L)));
        this.layout = new RunLayout(this);
        this.op = new WriteOp(this, layout, Holders.empty(words));
        this.pruner = new LruPruner(config, layout);
    }

    public RunPrefixIndexConfig config() {
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
        return layout.live.size();
    }

    /** Slots of the distinct arrays reachable from the live runs, hints included. For tests; writer thread only. */
    long arraySlots() {
        return layout.arraySlots();
    }

    /** Blocks dropped by the cap since construction. Writer thread only. */
    public long prunedBlocks() {
        return pruner.prunedBlocks();
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
            op.begin(OP_STORE, s.worker(), s.tier().ordinal(), 0);
            op.update(s.blockHashes(), s.blockHashes().length, true, s.hasParent(), s.parentHash());
        } else if (event instanceof KvEvent.Removed r) {
            op.begin(OP_REMOVE, r.worker(), r.tier().ordinal(), 0);
            op.update(r.blockHashes(), r.blockHashes().length, false, false, 0);
        } else if (event instanceof KvEvent.Moved m) {
            // One op, not Removed then Stored: in between, a reader would see the blocks on neither tier.
            op.begin(OP_MOVE, m.worker(), m.from().ordinal(), m.to().ordinal());
            op.update(m.blockHashes(), m.blockHashes().length, true, false, 0);
        } else if (event instanceof KvEvent.Cleared c) {
            op.begin(OP_CLEAR, c.worker(), 0, 0);
            op.rewriteWhole(layout.live);
        }
        finishOp();
    }

    @Override
    public void recordRouted(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos) {
        checkWorker(worker);
        nextEpoch();
        op.begin(OP_APPROX, worker, 0, PrefixIndex.routedExpiry(nowNanos, ttlNanos));
        op.update(blockHashes, Math.min(blocks, blockHashes.length), true, false, 0);
        finishOp();
    }

    @Override
    public void releaseRouted(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos) {
        checkWorker(worker);
        nextEpoch();
        op.begin(OP_RELEASE, worker, 0, PrefixIndex.routedExpiry(nowNanos, ttlNanos));
        op.update(blockHashes, Math.min(blocks, blockHashes.length), false, false, 0);
        finishOp();
    }

    @Override
    public void expire(long nowNanos) {
        op.begin(OP_EXPIRE, 0, 0, nowNanos);
        op.rewriteWhole(layout.approxRuns);
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

    /** The current epoch, as the writer sees it (plain read). Writer thread only. */
    long writerEpoch() {
        return epoch;
    }

    private void finishOp() {
        op.end();
        if (layout.count() > config.maxBlocks()) {
            pruner.prune();
        }
        layout.sweepHintsIfDue();
        publishedCount = layout.count();
    }

    /**
     * Makes room in the table for one more key, given {@code count} indexed blocks: growth builds a
     * complete new table and only then publishes it through the volatile field. Writer thread only.
     */
    void ensureCapacity(long count) {
        BlockTable t = table;
        if (t.full()) {
            BlockTable bigger = new BlockTable((int) Math.min(1 << 30, Math.max(t.capacity(), (count + 1) * 4)));
            t.copyLiveTo(bigger);
            table = bigger;
        }
    }
}
