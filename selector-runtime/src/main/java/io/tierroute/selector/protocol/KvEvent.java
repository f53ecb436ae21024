package io.tierroute.selector.protocol;

/**
 * A change to the KV blocks one worker holds, as engines report it (DESIGN.md §4). Workers are
 * dense indices assigned by {@link WorkerRegistry}; block hashes are the chained 64-bit hashes of
 * {@link BlockHasher}, so a hash names a whole prefix, not just one block's tokens.
 */
public sealed interface KvEvent permits KvEvent.Stored, KvEvent.Removed, KvEvent.Cleared, KvEvent.Moved {

    int worker();

    /**
     * Blocks now held on {@code tier}; {@code blockHashes[0]} extends the block {@code parentHash}
     * (when {@code hasParent}), each later block extends the one before it.
     */
    record Stored(int worker, Tier tier, boolean hasParent, long parentHash, long[] blockHashes)
            implements KvEvent {}

    /** Blocks no longer held on {@code tier}. */
    record Removed(int worker, Tier tier, long[] blockHashes) implements KvEvent {}

    /** The worker dropped everything on every tier (restart, cache reset). */
    record Cleared(int worker) implements KvEvent {}

    /** Blocks moved from one tier to another: a Removed on {@code from} plus a Stored on {@code to}. */
    record Moved(int worker, Tier from, Tier to, long[] blockHashes) implements KvEvent {}
}
