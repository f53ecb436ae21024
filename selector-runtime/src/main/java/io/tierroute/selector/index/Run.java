package io.tierroute.selector.index;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A run: a sequence of blocks, usually a stretch of one hash chain, that all have the same
 * {@link Holders}. The blocks are {@code arr[start, end)}; a lookup that lands on a run compares the
 * request's following hashes against the run sequentially, so a long shared prefix costs one random
 * memory access per run instead of one per block.
 *
 * <p>Immutability rules that the readers rely on: {@code arr}, {@code start} and {@code holders} are
 * final; each element of {@code arr} is written once, before any run's {@code end} covers it; {@code
 * end} only changes by the writer appending (growing it over freshly written elements, only for the
 * run that owns the array's tail) or by a split shrinking it (after the cut-off blocks were
 * re-published in their new runs). So every view a reader can take is a valid old or new state.
 */
final class Run {

    private static final VarHandle LAST_USED;
    private static final VarHandle NEXT;

    static {
        try {
            LAST_USED = MethodHandles.lookup().findVarHandle(Run.class, "lastUsed", long.class);
            NEXT = MethodHandles.lookup().findVarHandle(Run.class, "next", Run.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long[] arr;
    final int start;
    volatile int end;
    final Holders holders;
    /** Copies of {@code holders.bits} and {@code holders.minExpiry}: a lookup reads no Holders object. */
    final long[] bits;
    final long minExpiry;

    /**
     * Set (volatile) once the writer has re-published all of this run's blocks elsewhere or dropped
     * them; only then. A run that is not dead holds {@code arr[start, end)} as the index's current
     * (or, for a racing reader, immediately previous) state.
     */
    volatile boolean dead;

    /**
     * Hint: a run that began with the block a lookup wanted right after this run's last block. Any
     * thread may set it; a reader trusts it only if the hinted run is not dead and starts with the
     * hash it wants, which makes it exactly the run the table would return. Saves the two table
     * cache misses per run boundary on a hot path. The writer drops hints to dead runs
     * ({@link RunLayout#sweepHints}): they would keep the dead runs' arrays reachable.
     */
    @SuppressWarnings("unused")
    private Run next;

    /** Writer epoch of the last store or match; readers write it with opaque stores (LRU is a heuristic). */
    @SuppressWarnings("unused")
    private long lastUsed;

    // ---- writer-only bookkeeping ----
    /** This run's end is the high-water mark of {@code arr}: only it may append. */
    boolean tailOwner;
    int liveIndex = -1;
    int approxIndex = -1;

    Run(long[] arr, int start, int end, Holders holders, long lastUsed) {
        this.arr = arr;
        this.start = start;
        this.end = end;
        this.holders = holders;
        this.bits = holders.bits;
        this.minExpiry = holders.minExpiry;
        this.lastUsed = lastUsed;
    }

    long lastUsed() {
        return (long) LAST_USED.getOpaque(this);
    }

    void touch(long epoch) {
        if ((long) LAST_USED.getOpaque(this) < epoch) {
            LAST_USED.setOpaque(this, epoch);
        }
    }

    Run nextHint() {
        return (Run) NEXT.getAcquire(this);
    }

    void hintNext(Run r) {
        if (NEXT.getOpaque(this) != r) {
            NEXT.setRelease(this, r);
        }
    }

    /** Drops the hint if it still names {@code r} (a reader may have set a newer one meanwhile). */
    void unhint(Run r) {
        NEXT.compareAndSet(this, r, null);
    }

    /** Absolute position of {@code hash} in {@code arr[start, end)}, or -1. */
    int find(long hash, int end) {
        long[] a = arr;
        for (int i = start; i < end; i++) {
            if (a[i] == hash) {
                return i;
            }
        }
        return -1;
    }
}
