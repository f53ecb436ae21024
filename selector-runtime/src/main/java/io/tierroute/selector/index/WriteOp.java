package io.tierroute.selector.index;

import java.util.ArrayList;

/**
 * The writer's current operation, from {@link #begin} to {@link #end}: the change it makes to a holder
 * set ({@link #transform}, memoised for the last holder set it saw) and its application to a chain of
 * blocks ({@link #update}) or to whole runs ({@link #rewriteWhole}). Which runs get cut, grown or
 * created is decided here; how, in the order readers rely on, is {@link RunLayout}'s. Writer thread only.
 */
final class WriteOp {

    static final int OP_STORE = 0;
    static final int OP_REMOVE = 1;
    static final int OP_APPROX = 2;
    static final int OP_CLEAR = 3;
    static final int OP_EXPIRE = 4;
    static final int OP_RELEASE = 5;
    /** Tier {@code opTier} to tier {@code opArg}, in one step per block: a reader sees the old or the new tier. */
    static final int OP_MOVE = 6;

    private final RunPrefixIndex index;
    private final RunLayout layout;
    private final Holders emptyHolders;

    private int opCode;
    private int opWorker;
    private int opTier;
    private long opArg;
    private Holders memoIn;
    private Holders memoOut;

    WriteOp(RunPrefixIndex index, RunLayout layout, Holders emptyHolders) {
        this.index = index;
        this.layout = layout;
        this.emptyHolders = emptyHolders;
    }

    void begin(int op, int worker, int tier, long arg) {
        opCode = op;
        opWorker = worker;
        opTier = tier;
        opArg = arg;
        memoIn = null;
        memoOut = null;
    }

    void end() {
        memoIn = null;
        memoOut = null;
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
            case OP_MOVE -> h.withoutReal(opWorker, opTier).withReal(opWorker, (int) opArg);
            default -> throw new IllegalStateException("op " + opCode);
        };
        memoIn = h;
        memoOut = r;
        return r;
    }

    /** Applies the current op to blocks {@code hs[0, n)}, taken as a chain (only a speed hint). */
    void update(long[] hs, int n, boolean create, boolean hasParent, long parent) {
        final long ep = index.writerEpoch();
        final boolean isStore = opCode == OP_STORE || opCode == OP_APPROX || opCode == OP_MOVE; // LRU: a use
        final Holders created = create ? transform(emptyHolders) : null;
        Run target = null;
        Run tail = null; // the run this op last appended to: a new run takes its array's spare slots first
        int scannedTo = 0; // hs[.., scannedTo) were unindexed when the last look-ahead passed them: not scanned again
        if (create && hasParent) {
            Run pr = index.table.get(parent);
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
            final Run r = index.table.get(h);
            if (r == null) {
                if (create) {
                    if (target == null || !target.tailOwner) {
                        if (scannedTo <= j) {
                            scannedTo = j + 1 + unindexed(hs, j + 1, n);
                        }
                        target = layout.newRun(created, tail, scannedTo - j, ep);
                    }
                    target = layout.append(target, h);
                    tail = target;
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
                m = layout.split(r, p, p + k, nh, isStore ? ep : r.lastUsed(), opCode == OP_MOVE);
            }
            // m may continue the chain only if it ends with the last block just visited (a compacted m has its own array).
            target = create && m != null && m.tailOwner && m.end > m.start && m.arr[m.end - 1] == hs[j + k - 1]
                    && m.holders.equals(created) ? m : null;
            j += k;
        }
    }

    /**
     * How many of {@code hs[from, n)} in a row are not indexed: what a new run needs room for. Not {@code n - from}:
     * an event over a chain with holes would then give each hole's run an array for the rest of the event, O(n²).
     * (A duplicate inside the event counts twice; the spare slots go to the event's next new run, whose capacity comes
     * from the same scan: each block is looked ahead at once per event, so a repeating event stays O(n).)
     */
    private int unindexed(long[] hs, int from, int n) {
        final BlockTable t = index.table;
        int i = from;
        while (i < n && t.get(hs[i]) == null) {
            i++;
        }
        return i - from;
    }

    /** Applies the current op to every block of every run in {@code runs} (Cleared, expire). */
    void rewriteWhole(ArrayList<Run> runs) {
        // Downwards: kill() swaps the last run into the freed index, and new runs go to the end,
        // both of which are already visited.
        for (int i = runs.size() - 1; i >= 0; i--) {
            if (i >= runs.size()) {
                continue;
            }
            Run r = runs.get(i);
            Holders nh = transform(r.holders);
            if (nh != r.holders && !nh.equals(r.holders)) {
                layout.split(r, r.start, r.end, nh, r.lastUsed(), false);
            }
        }
    }
}
