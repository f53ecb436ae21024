package io.tierroute.sim.engine;

/**
 * One named (hash-addressed) KV block resident in a worker's HBM. Unreferenced computed blocks sit in
 * the cache's eviction list through the intrusive {@code prev}/{@code next} links.
 */
final class Block {
    final long hash;
    int refs;
    /** Holders among the running batch: the decode step reads the block while this is above 0. */
    int runningRefs;
    /** True once its KV was computed or loaded: only then can another request match it. */
    boolean computed;
    Block prev;
    Block next;
    boolean inFreeList;

    Block(long hash) {
        this.hash = hash;
    }
}
