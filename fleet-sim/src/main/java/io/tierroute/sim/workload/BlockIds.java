package io.tierroute.sim.workload;

import java.util.Arrays;

/**
 * Builds a prompt's per-block content ids from named segments (a shared system prompt, a tool
 * catalog, a private history): equal segments at equal offsets give equal ids, so the chained hashes
 * share exactly the shared prefix. A segment that does not end on a block boundary makes the block
 * it shares with the next segment private (its content mixes both).
 */
final class BlockIds {

    private final int blockSize;
    private long[] ids = new long[16];
    private int tokens;
    private int full;
    private long nextPrivate;

    /** @param privateBase first id of the private ids this builder hands out */
    BlockIds(int blockSize, long privateBase) {
        this.blockSize = blockSize;
        this.nextPrivate = privateBase;
    }

    /** Appends {@code n} tokens of segment {@code segment}: its block ids are {@code segment·2^20 + k}. */
    BlockIds shared(long segment, int n) {
        int start = tokens;
        tokens += n;
        int nowFull = tokens / blockSize;
        grow(nowFull);
        for (int b = full; b < nowFull; b++) {
            boolean alignedStart = b * blockSize >= start;
            ids[b] = alignedStart ? (segment << 20) + (b - start / blockSize) : nextPrivate++;
        }
        full = nowFull;
        return this;
    }

    /** Appends {@code n} private tokens (fresh ids). */
    BlockIds unique(int n) {
        tokens += n;
        int nowFull = tokens / blockSize;
        grow(nowFull);
        for (int b = full; b < nowFull; b++) {
            ids[b] = nextPrivate++;
        }
        full = nowFull;
        return this;
    }

    /** A copy of this prompt so far that appends its own private ids from {@code privateBase} (a forked context). */
    BlockIds fork(long privateBase) {
        BlockIds f = new BlockIds(blockSize, privateBase);
        f.ids = Arrays.copyOf(ids, ids.length);
        f.tokens = tokens;
        f.full = full;
        return f;
    }

    int tokens() {
        return tokens;
    }

    long[] ids() {
        return Arrays.copyOf(ids, full);
    }

    long nextPrivate() {
        return nextPrivate;
    }

    private void grow(int n) {
        if (ids.length < n) {
            ids = Arrays.copyOf(ids, Math.max(n, ids.length * 2));
        }
    }
}
