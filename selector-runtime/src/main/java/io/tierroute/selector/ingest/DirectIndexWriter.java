package io.tierroute.selector.ingest;

import io.tierroute.selector.index.PrefixIndex;
import io.tierroute.selector.protocol.KvEvent;

import java.util.List;

/**
 * Applies writes on the caller's thread, one caller at a time (the lock keeps the index's single
 * writer rule and publishes each write to the next writer). For the simulator and tests, where one
 * thread drives everything; a server uses {@link KvEventPipeline}.
 */
public final class DirectIndexWriter implements IndexWriter {

    private final PrefixIndex index;
    private long applied;

    public DirectIndexWriter(PrefixIndex index) {
        this.index = index;
    }

    @Override
    public synchronized boolean submit(List<KvEvent> events) {
        for (KvEvent e : events) {
            index.apply(e);
        }
        applied += events.size();
        return true;
    }

    @Override
    public synchronized void routed(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos) {
        index.recordRouted(worker, blockHashes, blocks, nowNanos, ttlNanos);
    }

    @Override
    public synchronized void released(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos) {
        index.releaseRouted(worker, blockHashes, blocks, nowNanos, ttlNanos);
    }

    @Override
    public synchronized void expire(long nowNanos) {
        index.expire(nowNanos);
    }

    @Override
    public long droppedRouted() {
        return 0;
    }

    @Override
    public synchronized long appliedEvents() {
        return applied;
    }
}
