package io.tierroute.selector.sync;

import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.sequences.RequestEvent;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ObjLongConsumer;

/**
 * Numbers each outgoing message once ({@link MessageId#sequence}) and hands it to every path: Kafka always (lossless,
 * and what a starting replica reads back), the direct datagram path when configured (fast, may lose). A path that
 * throws does not keep the message from the others; the first failure is rethrown after all were tried, so the
 * selector counts it as an outbox error.
 */
public final class NumberingTransport implements ReplicaSync.Transport {

    private final AtomicLong last = new AtomicLong();
    private final List<NumberedTransport> paths;

    public NumberingTransport(List<NumberedTransport> paths) {
        if (paths.isEmpty()) {
            throw new IllegalArgumentException("at least one path");
        }
        this.paths = List.copyOf(paths);
    }

    @Override
    public void admitted(ReplicaAdmission admission) {
        toEveryPath((path, n) -> path.admitted(n, admission));
    }

    @Override
    public void event(RequestEvent event) {
        toEveryPath((path, n) -> path.event(n, event));
    }

    private void toEveryPath(ObjLongConsumer<NumberedTransport> send) {
        long n = last.incrementAndGet();
        RuntimeException first = null;
        for (NumberedTransport p : paths) {
            try {
                send.accept(p, n);
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Messages numbered so far. */
    public long numbered() { return last.get(); }
}
