package io.tierroute.selector.ingest;

import io.tierroute.selector.protocol.KvEvent;

import java.util.List;

/**
 * The one way into the prefix index's write side, which admits a single writer at a time.
 * {@link DirectIndexWriter} applies on the caller's thread under a lock (simulator, tests);
 * {@link KvEventPipeline} hands everything to one writer thread so a route never waits for it.
 */
public interface IndexWriter extends AutoCloseable {

    /**
     * Submits engine events, applied in order. Returns false, taking none of them, when the writer is
     * full: the caller must answer with back-pressure (HTTP 503, a consumer pause), never drop them. Throws
     * {@link IllegalStateException}, saying why, when the writer has failed for good and would never apply them.
     */
    boolean submit(List<KvEvent> events);

    /**
     * The selector sent {@code worker} a request with these block hashes (approximate mode: the whole prompt; an
     * event-mode worker with computing claims: the blocks it will compute). May be dropped under overload (it is
     * only a hint); drops are counted in {@link #droppedRouted()}.
     */
    void routed(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos);

    /**
     * The request whose {@link #routed} call had these arguments failed before computing its blocks: its computing
     * claims are withdrawn ({@code PrefixIndex.releaseRouted}). Dropped like {@link #routed} under overload (the claims
     * then lapse at their TTL), counted in {@link #droppedRouted()}.
     */
    void released(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos);

    /** Expires approximate entries past their TTL. */
    void expire(long nowNanos);

    /** Approximate inserts (approximate mode, computing claims) and releases dropped because the writer was full. */
    long droppedRouted();

    /** Engine events applied so far. */
    long appliedEvents();

    /** Why the writer stopped for good (it takes no more events), or null while it works. */
    default String failure() {
        return null;
    }

    @Override
    default void close() {}
}
