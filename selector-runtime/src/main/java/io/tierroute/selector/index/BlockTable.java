package io.tierroute.selector.index;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Open-addressing map from block hash to the {@link Run} that holds the block, over primitive arrays,
 * with one writer and lock-free readers.
 *
 * <p>A slot's key is written once (release, after its run) and never changes for the life of the
 * table, so a reader that finds the key reads a run published for it (acquire). Removing a block
 * nulls the run but keeps the key as a reserved tombstone; the owner rebuilds a fresh table (and
 * publishes it through a volatile field) when live keys plus tombstones pass the load factor. Hash 0
 * is the empty marker, so the block with hash 0 lives in its own field.
 */
final class BlockTable {

    private static final VarHandle KEYS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle RUNS = MethodHandles.arrayElementVarHandle(Run[].class);
    static final double LOAD_FACTOR = 0.5;

    private final long[] keys;
    private final Run[] runs;
    private final int mask;
    private final int shift;
    private volatile Run zeroRun;
    /** Slots whose key is set (live or tombstone). Writer only. */
    private int used;

    BlockTable(int capacity) {
        int cap = Integer.highestOneBit(Math.max(16, capacity - 1)) << 1;
        keys = new long[cap];
        runs = new Run[cap];
        mask = cap - 1;
        shift = 64 - Integer.numberOfTrailingZeros(cap);
    }

    int capacity() {
        return keys.length;
    }

    /** True when one more key would pass the load factor. */
    boolean full() {
        return used + 1 > keys.length * LOAD_FACTOR;
    }

    private int home(long hash) {
        return (int) ((hash * 0x9E3779B97F4A7C15L) >>> shift);
    }

    /** The run holding {@code hash}, or null. Any thread. */
    Run get(long hash) {
        if (hash == 0) {
            return zeroRun;
        }
        final long[] k = keys;
        final int m = mask;
        for (int i = home(hash); ; i = (i + 1) & m) {
            long key = (long) KEYS.getAcquire(k, i);
            if (key == hash) {
                return (Run) RUNS.getAcquire(runs, i);
            }
            if (key == 0) {
                return null;
            }
        }
    }

    /** Maps {@code hash} to {@code run} (null removes). Writer only; the caller ensures capacity. */
    void put(long hash, Run run) {
        if (hash == 0) {
            zeroRun = run;
            return;
        }
        final long[] k = keys;
        for (int i = home(hash); ; i = (i + 1) & mask) {
            long key = k[i];
            if (key == hash) {
                RUNS.setRelease(runs, i, run);
                return;
            }
            if (key == 0) {
                if (run == null) {
                    return;
                }
                RUNS.setRelease(runs, i, run);
                KEYS.setRelease(k, i, hash);
                used++;
                return;
            }
        }
    }

    /** Copies every live mapping into {@code target}. Writer only. */
    void copyLiveTo(BlockTable target) {
        for (int i = 0; i < keys.length; i++) {
            Run r = runs[i];
            if (r != null) {
                target.put(keys[i], r);
            }
        }
        if (zeroRun != null) {
            target.put(0, zeroRun);
        }
    }
}
