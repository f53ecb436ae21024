package io.tierroute.selector.index;

import io.tierroute.selector.protocol.KvEvent;

import java.util.function.Consumer;

/**
 * Test helper: {@code index}, with {@code beforeApply} run on each event before it is applied (to stall the writer, or
 * to throw what a table growing past the heap would). Everything else goes straight to {@code index}.
 */
public final class InterceptedIndex implements PrefixIndex {

    private final PrefixIndex index;
    private final Consumer<KvEvent> beforeApply;

    public InterceptedIndex(PrefixIndex index, Consumer<KvEvent> beforeApply) {
        this.index = index;
        this.beforeApply = beforeApply;
    }

    /** {@code index}, but storing a block whose first hash is {@code fatalHash} throws an OutOfMemoryError. */
    public static InterceptedIndex outOfMemoryOn(PrefixIndex index, long fatalHash) {
        return new InterceptedIndex(index, event -> {
            if (event instanceof KvEvent.Stored s && s.blockHashes()[0] == fatalHash) {
                throw new OutOfMemoryError("Java heap space");
            }
        });
    }

    @Override
    public void apply(KvEvent event) {
        beforeApply.accept(event);
        index.apply(event);
    }

    @Override
    public void recordRouted(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos) {
        index.recordRouted(worker, blockHashes, blocks, nowNanos, ttlNanos);
    }

    @Override
    public void releaseRouted(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos) {
        index.releaseRouted(worker, blockHashes, blocks, nowNanos, ttlNanos);
    }

    @Override
    public void expire(long nowNanos) {
        index.expire(nowNanos);
    }

    @Override
    public void match(long[] blockHashes, int blocks, long nowNanos, PrefixMatch out) {
        index.match(blockHashes, blocks, nowNanos, out);
    }

    @Override
    public long blockCount() {
        return index.blockCount();
    }
}
