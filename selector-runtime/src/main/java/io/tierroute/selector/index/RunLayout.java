package io.tierroute.selector.index;

import java.util.ArrayList;

/**
 * The writer's run structure: the live runs (and, for {@code expire}, those with approximate entries),
 * the count of indexed blocks, and every operation that creates, appends to, grows, splits, compacts,
 * drops or retires a run and re-points the table's slots accordingly. Each keeps the order readers
 * rely on ({@code package-info.java}): blocks are published in their new run before the run they left
 * shrinks or is marked dead. The table itself stays in {@link RunPrefixIndex}, where readers load it.
 * Writer thread only.
 */
final class RunLayout {

    /** Arrays shorter than this are never copied out: the copy would save less than it costs. */
    static final int COMPACT_MIN_ARRAY = 64;
    /** A run holding fewer than 1/COMPACT_RATIO of its array's slots gets an array of its own. */
    static final int COMPACT_RATIO = 4;

    private final RunPrefixIndex index;
    final ArrayList<Run> live = new ArrayList<>();
    final ArrayList<Run> approxRuns = new ArrayList<>();
    private long count;
    /**
     * Blocks that left their run's array since the last {@link #sweepHints}: a killed run's, and those dropped from or
     * copied out of a run that lives on (an engine evicting a chain down to its first block kills a 1-block run whose
     * array held the whole chain). A block may count twice (dropped from a run, then that run killed), never more, and
     * each count was paid for by a publish, copy or drop: the sweep stays O(1) per block.
     */
    private long killedBlocks;

    RunLayout(RunPrefixIndex index) {
        this.index = index;
    }

    /** Indexed blocks. */
    long count() {
        return count;
    }

    /**
     * Slots of the distinct arrays the index keeps reachable: the live runs' and those of the runs their next-run
     * hints lead to (the index's hash storage, in longs). For tests; writer thread only.
     */
    long arraySlots() {
        java.util.Set<long[]> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        java.util.Set<Run> visited = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        long slots = 0;
        for (Run r : live) {
            for (Run h = r; h != null && visited.add(h); h = h.nextHint()) {
                if (seen.add(h.arr)) {
                    slots += h.arr.length;
                }
            }
        }
        return slots;
    }

    /**
     * An empty run that owns its array's tail: the rest of {@code spare}'s array when {@code spare} owns a tail with
     * room for {@code capacity} blocks (it then stops appending: elements are written once), else a new array for
     * {@code capacity} blocks (a smaller tail would make the run grow by doubling, republishing its blocks each time).
     */
    Run newRun(Holders holders, Run spare, int capacity, long ep) {
        Run r;
        if (spare != null && spare.tailOwner && spare.arr.length - spare.end >= capacity) {
            spare.tailOwner = false;
            r = new Run(spare.arr, spare.end, spare.end, holders, ep);
        } else {
            r = new Run(new long[Math.max(4, capacity)], 0, 0, holders, ep);
        }
        r.tailOwner = true;
        addLive(r);
        return r;
    }

    /** Appends {@code h} (not yet indexed) to the tail-owning run {@code r}; returns the run now holding it. */
    Run append(Run r, long h) {
        if (r.end == r.arr.length) {
            r = grow(r);
        }
        index.ensureCapacity(count);
        int e = r.end;
        r.arr[e] = h;
        r.end = e + 1; // volatile: the element is visible before the new end
        index.table.put(h, r);
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
     * new runs are published slot by slot first; only then does {@code r} shrink its end. With {@code own}, a part
     * of {@code r} gets an array of its own (a Moved's: the tiers of one event's blocks part ways, the faster part is
     * evicted first, and a shared array would keep its slots).
     */
    Run split(Run r, int a, int b, Holders nh, long lastUsed, boolean own) {
        final int end = r.end;
        final boolean prefix = a > r.start;
        final boolean suffix = b < end;
        Run m = null;
        if (!nh.isEmpty()) {
            if (own && (prefix || suffix)) {
                m = new Run(java.util.Arrays.copyOfRange(r.arr, a, b), 0, b - a, nh, lastUsed);
                m.tailOwner = true;
                killedBlocks += b - a; // their slots in r's array are left to r's other parts (and hints)
            } else {
                m = new Run(r.arr, a, b, nh, lastUsed);
                m.tailOwner = !suffix && r.tailOwner;
            }
            addLive(m);
            publish(m, m.start, m.end);
            m = compactIfSparse(m);
        } else {
            for (int i = a; i < b; i++) {
                index.table.put(r.arr[i], null);
            }
            count -= b - a;
            killedBlocks += b - a;
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
        BlockTable t = index.table;
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
        r.unhint(r.nextHint()); // so dead runs do not chain (a reader crossing r late may set it again)
        killedBlocks += r.end - r.start;
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

    /**
     * Drops the live runs' hints to dead runs, once more blocks left their runs' arrays since the last sweep than are
     * indexed ({@link #killedBlocks}): a hint is only a cache, but one to a dead run keeps its array reachable until the hinting run dies
     * (a chain evicted down to its head would keep the whole chain's array). The sweep visits the live runs, no more
     * than the indexed blocks, so it costs O(1) per killed block; what hints keep stays O(indexed blocks).
     */
    void sweepHintsIfDue() {
        if (killedBlocks > count) {
            sweepHints();
        }
    }

    void sweepHints() {
        for (int i = 0, n = live.size(); i < n; i++) {
            Run r = live.get(i);
            Run h = r.nextHint();
            if (h != null && h.dead) {
                r.unhint(h);
            }
        }
        killedBlocks = 0;
    }

    /** Removes all of {@code r}'s blocks from the index and retires it; returns how many it held. */
    int drop(Run r) {
        int end = r.end;
        for (int i = r.start; i < end; i++) {
            index.table.put(r.arr[i], null);
        }
        count -= end - r.start;
        kill(r);
        return end - r.start;
    }
}
