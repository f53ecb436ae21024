package io.tierroute.selector.index;

import io.tierroute.selector.protocol.Tier;

/**
 * The answer of a prefix lookup: for every worker, how many leading blocks of the request it holds,
 * cumulatively by tier. {@code cumulativeBlocks(w, t)} is the length of the longest prefix (from
 * block 0) whose every block {@code w} holds on tier {@code t} or a faster one, so it never decreases
 * with {@code t}. {@code H_t} of DESIGN.md §3 is the difference between consecutive tiers.
 *
 * <p>Reusable: a caller keeps one per thread and the index overwrites it, so a lookup allocates
 * nothing.
 */
public final class PrefixMatch {

    private final int workers;
    private final int[] cumulative; // [worker * Tier.COUNT + tier]
    private int requestBlocks;
    /** Working space for {@link RunPrefixIndex#match}; not part of the answer. */
    private long[] scratch;
    /** Where {@link PrefixIndex#matchMore} may continue (-1: start over), and for which index. */
    int resumeFrom = -1;
    Object resumeOwner;

    public PrefixMatch(int workers) {
        this.workers = workers;
        this.cumulative = new int[workers * Tier.COUNT];
        this.scratch = new long[((workers + 63) >>> 6) * (Tier.COUNT + 1)];
    }

    public int workers() {
        return workers;
    }

    /** Number of full blocks in the request that was looked up. */
    public int requestBlocks() {
        return requestBlocks;
    }

    /** Blocks of the contiguous prefix held on {@code tier} or any faster tier. */
    public int cumulativeBlocks(int worker, int tier) {
        return cumulative[worker * Tier.COUNT + tier];
    }

    /** Blocks of the prefix held on {@code tier} beyond what faster tiers hold ({@code H_t} in blocks). */
    public int blocksOnTier(int worker, int tier) {
        int base = worker * Tier.COUNT;
        return tier == 0 ? cumulative[base] : cumulative[base + tier] - cumulative[base + tier - 1];
    }

    /** Blocks of the prefix held on any tier. */
    public int totalBlocks(int worker) {
        return cumulative[worker * Tier.COUNT + Tier.COUNT - 1];
    }

    // ---- written by the index ----

    /** Clears every depth and records the request length; called by the index before it fills. */
    public void reset(int requestBlocks) {
        this.requestBlocks = requestBlocks;
        this.resumeFrom = -1;
        this.resumeOwner = null;
        java.util.Arrays.fill(cumulative, 0);
    }

    /** Extends the recorded request length when an index continues a match. */
    void extend(int requestBlocks) {
        this.requestBlocks = requestBlocks;
    }

    public void set(int worker, int tier, int blocks) {
        cumulative[worker * Tier.COUNT + tier] = blocks;
    }

    /** Scratch words for an index's lookup, at least {@code length} long; reused across calls. */
    long[] scratch(int length) {
        if (scratch.length < length) {
            scratch = new long[length];
        }
        return scratch;
    }
}
