package io.tierroute.sim.workload;

import java.util.Arrays;

/**
 * Builds a prompt's per-block content ids from named segments (a shared system prompt, a tool
 * catalog, a private history): equal segments at equal offsets give equal ids, so the chained hashes
 * share exactly the shared prefix. A block that two segments share gets an id from its content: from
 * the segments and offsets it holds when all of them are shared (an agent's system prompt running
 * into its tool catalog is the same block in every session of that agent), a private one when any
 * part of it is private (its content mixes in the session's own tokens).
 */
final class BlockIds {

    /** The partial block holds private tokens: whatever completes it is a private block. */
    private static final long PRIVATE = Long.MIN_VALUE;
    /** No partial block: the prompt so far ends on a block boundary. */
    private static final long EMPTY = 0;
    /** Ids of blocks mixed from shared segments carry this bit: apart from segment ids and private ids. */
    private static final long MIXED = 1L << 62;

    private final int blockSize;
    private long[] ids = new long[16];
    private int tokens;
    private int full;
    private long nextPrivate;
    /** The content of the partial block after the full ones: a key of its shared parts, {@link #PRIVATE} or {@link #EMPTY}. */
    private long partial = EMPTY;

    /** @param privateBase first id of the private ids this builder hands out */
    BlockIds(int blockSize, long privateBase) {
        this.blockSize = blockSize;
        this.nextPrivate = privateBase;
    }

    /** Appends {@code n} tokens of segment {@code segment}: its block ids are {@code segment·2^20 + k}. */
    BlockIds shared(long segment, int n) {
        if (n == 0) {
            return this; // an empty segment adds no content: it must not change the partial block's key
        }
        int start = tokens;
        tokens += n;
        int nowFull = tokens / blockSize;
        grow(nowFull);
        for (int b = full; b < nowFull; b++) {
            if (b * blockSize >= start) {
                ids[b] = (segment << 20) + (b - start / blockSize);
            } else { // the partial block so far, completed by this segment's first tokens
                ids[b] = partial == PRIVATE ? nextPrivate++ : MIXED | (mix(partial, segment, 0, (b + 1) * blockSize - start) >>> 2);
            }
        }
        int partialStart = nowFull * blockSize;
        if (partialStart == tokens) {
            partial = EMPTY;
        } else if (partialStart >= start) { // this segment's tail alone
            partial = mix(EMPTY, segment, partialStart - start, tokens - start);
        } else if (partial != PRIVATE) { // the segment fits inside the partial block
            partial = mix(partial, segment, 0, n);
        }
        full = nowFull;
        return this;
    }

    /** A key of {@code key} followed by tokens {@code [from, to)} of {@code segment} (SplitMix64's finaliser). */
    private static long mix(long key, long segment, int from, int to) {
        long h = key * 0x9E3779B97F4A7C15L + segment;
        h = h * 0x9E3779B97F4A7C15L + ((long) from << 32 | to);
        h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
        h = (h ^ (h >>> 27)) * 0x94D049BB133111EBL;
        h ^= h >>> 31;
        return h == PRIVATE || h == EMPTY ? h + 1 : h;
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
        if (n > 0) {
            partial = tokens % blockSize == 0 ? EMPTY : PRIVATE;
        }
        return this;
    }

    /** A copy of this prompt so far that appends its own private ids from {@code privateBase} (a forked context). */
    BlockIds fork(long privateBase) {
        BlockIds f = new BlockIds(blockSize, privateBase);
        f.ids = Arrays.copyOf(ids, ids.length);
        f.tokens = tokens;
        f.full = full;
        f.partial = partial;
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
