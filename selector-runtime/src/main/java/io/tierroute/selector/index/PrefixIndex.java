package io.tierroute.selector.index;

import io.tierroute.selector.protocol.KvEvent;

/**
 * Which worker holds which prefix on which tier (DESIGN.md §4).
 *
 * <p>Concurrency contract: exactly one thread applies events and approximate inserts (the writer);
 * any number of threads call {@link #match} concurrently with it, without taking a global lock. A
 * reader sees every event that completed before its call began, and for events racing with it
 * either the old or the new holdings of each block.
 */
public interface PrefixIndex {

    /** Applies one engine event. Writer thread only. */
    void apply(KvEvent event);

    /**
     * Approximate mode: records that {@code worker} will hold the first {@code blocks} blocks of
     * {@code blockHashes} on HBM because the selector just sent it that request; the entry expires
     * {@code ttlNanos} after {@code nowNanos} unless refreshed. Writer thread only.
     */
    void recordRouted(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos);

    /**
     * Withdraws what {@link #recordRouted} made with these same arguments (a computing claim of a request that failed):
     * {@code worker}'s approximate entry on each of the blocks whose expiry is still the one that call gave it; one a
     * later insert extended stays. Real holdings (events) are never touched. Writer thread only.
     */
    void releaseRouted(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos);

    /** The expiry {@link #recordRouted} gives its entries: {@code nowNanos + ttlNanos} (saturated), now for ttl ≤ 0. */
    static long routedExpiry(long nowNanos, long ttlNanos) {
        long expiry = ttlNanos <= 0 ? nowNanos : nowNanos + ttlNanos;
        return expiry < nowNanos ? Long.MAX_VALUE : expiry; // saturate on overflow
    }

    /** Drops approximate entries whose TTL has passed. Writer thread only. */
    void expire(long nowNanos);

    /**
     * Fills {@code out} with every worker's cumulative matched depth per tier for the first
     * {@code blocks} chained hashes of a request. Any thread; allocation-free.
     */
    void match(long[] blockHashes, int blocks, long nowNanos, PrefixMatch out);

    /**
     * Continues the last {@link #match} into {@code out} for a longer prefix of the same request:
     * {@code blockHashes[0, out.requestBlocks())} must be what that call was given. The answer is
     * the one {@code match(blockHashes, blocks, nowNanos, out)} would give (with racing events seen
     * either way, as for {@code match}). Lets a caller hash a long prompt in stages and stop early.
     * The default matches again from block 0.
     */
    default void matchMore(long[] blockHashes, int blocks, long nowNanos, PrefixMatch out) {
        match(blockHashes, blocks, nowNanos, out);
    }

    /** Number of distinct blocks currently indexed (for the cap and for metrics). */
    long blockCount();
}
