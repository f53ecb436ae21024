package io.tierroute.selector.sync;

import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.sequences.RequestEvent;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Numbers and dates each outgoing message once ({@link NumberedMessage}) and hands it to every path: Kafka always (lossless,
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
        toEveryPath(new NumberedMessage(last.incrementAndGet(), admission, null, System.currentTimeMillis()));
    }

    @Override
    public void event(RequestEvent event) {
        toEveryPath(new NumberedMessage(last.incrementAndGet(), null, event, System.currentTimeMillis()));
    }

    private void toEveryPath(NumberedMessage m) {
        RuntimeException first = null;
        for (NumberedTransport p : paths) {
            try {
                p.send(m);
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
