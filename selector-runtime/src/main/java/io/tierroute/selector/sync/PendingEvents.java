package io.tierroute.selector.sync;

import io.tierroute.selector.sequences.RequestEvent;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Request events that came before their request's admission (a gateway posts a first token to one replica before the
 * replica that routed the request has told it), kept by request id until the admission comes, for at most
 * {@code maxAgeNanos} and {@code maxEvents} in all (the oldest request's go first). Not thread-safe: {@link ReplicaSync}
 * guards it (its counts alone may be read without the lock).
 */
final class PendingEvents {

    private record Parked(RequestEvent event, long atNanos) {}

    private final Map<String, List<Parked>> byRequest = new LinkedHashMap<>(); // oldest request first
    private final long maxAgeNanos;
    private final int maxEvents;
    // Written under ReplicaSync's lock, read by metrics without it.
    private volatile int size;
    private volatile long expired;
    private volatile long dropped;

    PendingEvents(long maxAgeNanos, int maxEvents) {
        if (maxAgeNanos <= 0 || maxEvents <= 0) {
            throw new IllegalArgumentException("pending events need a positive age and count, got " + maxAgeNanos
                    + " ns and " + maxEvents);
        }
        this.maxAgeNanos = maxAgeNanos;
        this.maxEvents = maxEvents;
    }

    /** Keeps {@code event} until its request's admission; when full, the oldest request's events are dropped. */
    void park(RequestEvent event, long atNanos) {
        while (size >= maxEvents) {
            Iterator<List<Parked>> oldest = byRequest.values().iterator();
            List<Parked> first = oldest.next();
            dropped += first.size();
            size -= first.size();
            oldest.remove();
        }
        byRequest.computeIfAbsent(event.requestId(), id -> new ArrayList<>(2)).add(new Parked(event, atNanos));
        size++;
    }

    /** The events waiting for {@code requestId}, in the order they came; forgotten here. */
    List<RequestEvent> take(String requestId) {
        return take(requestId, Long.MIN_VALUE);
    }

    /**
     * The events waiting for {@code requestId} that were parked at or after {@code sinceNanos}, in the order they came;
     * all of its events are forgotten here, the older ones too.
     */
    List<RequestEvent> take(String requestId, long sinceNanos) {
        List<Parked> parked = byRequest.remove(requestId);
        if (parked == null) {
            return List.of();
        }
        size -= parked.size();
        List<RequestEvent> out = new ArrayList<>(parked.size());
        for (Parked p : parked) {
            if (p.atNanos() >= sinceNanos) {
                out.add(p.event());
            }
        }
        return out;
    }

    /** Forgets requests whose first event waited longer than the maximum age; returns the events forgotten. */
    int expire(long nowNanos) {
        int n = 0;
        for (Iterator<List<Parked>> it = byRequest.values().iterator(); it.hasNext(); ) {
            List<Parked> parked = it.next();
            if (nowNanos - parked.get(0).atNanos() <= maxAgeNanos) {
                break; // requests are in the order their first event came
            }
            n += parked.size();
            it.remove();
        }
        size -= n;
        expired += n;
        return n;
    }

    int size() { return size; }
    /** Events whose admission never came within the maximum age. */
    long expired() { return expired; }
    /** Events dropped because too many waited. */
    long dropped() { return dropped; }
}
