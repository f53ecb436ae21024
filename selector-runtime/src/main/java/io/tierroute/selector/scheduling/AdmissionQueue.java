package io.tierroute.selector.scheduling;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * Requests waiting because every candidate was over its load limit, served in order of
 * {@code priority(r) = 1 / min_w Cost(w, r)} (DESIGN.md §3: a generalised WSPT: cheap requests
 * first), ties first come first served. The priority is the one at arrival; a drain ranks the first few again by
 * their cost at that moment ({@code QueueDrain.cheapestNow}). Bounded; thread-safe.
 */
final class AdmissionQueue {

    /** @param hashes its prompt's block hashes as far as computed, which the drains' attempts reuse and extend */
    record Pending(RouteRequest request, PromptHashes hashes, double priority, long enqueuedNanos, long sequence,
                   CompletableFuture<RouteDecision> future) {}

    /** Best priority first, then arrival order; the sequence makes it total, so the set holds every request. */
    private static final Comparator<Pending> SERVICE_ORDER = Comparator.comparingDouble((Pending p) -> -p.priority)
            .thenComparingLong(Pending::sequence);

    // An ordered set, not a heap: a drain reads the first few in order without copying the queue, and a cancelled
    // request leaves in O(log n).
    private final TreeSet<Pending> queue = new TreeSet<>(SERVICE_ORDER);
    private final Set<String> ids = new HashSet<>();
    private final int capacity;
    private long sequence;
    /** Mirrors {@code queue.size()} so the route path can see "nobody waits" without the lock. */
    private volatile int size;

    AdmissionQueue(int capacity) {
        this.capacity = capacity;
    }

    /** {@code priority = 1 / minCost}; a non-positive minimum cost (bonuses exceed costs) ranks first. */
    static double priority(double minCost) {
        return minCost <= 0 ? Double.MAX_VALUE : 1.0 / minCost;
    }

    synchronized Pending offer(RouteRequest request, PromptHashes hashes, double priority, long nowNanos) {
        if (queue.size() >= capacity) {
            return null;
        }
        if (!ids.add(request.requestId())) {
            throw new IllegalStateException("request '" + request.requestId() + "' is already queued");
        }
        Pending p = new Pending(request, hashes, priority, nowNanos, sequence++, new CompletableFuture<>());
        queue.add(p);
        size = queue.size();
        return p;
    }

    synchronized Pending peek() {
        return queue.isEmpty() ? null : queue.first();
    }

    /** The first {@code n} waiting requests in the order they are served (a copy; the queue is left as it is). */
    synchronized List<Pending> firstInOrder(int n) {
        List<Pending> out = new ArrayList<>(Math.min(n, queue.size()));
        for (Pending p : queue) {
            if (out.size() == n) {
                break;
            }
            out.add(p);
        }
        return out;
    }

    /**
     * Up to {@code n} waiting requests served after {@code from}, in order ({@code from} itself excluded; it need not
     * still be waiting): a drain's scan past its first window (a copy).
     */
    synchronized List<Pending> afterInOrder(Pending from, int n) {
        List<Pending> out = new ArrayList<>(Math.min(n, queue.size()));
        for (Pending p : queue.tailSet(from, false)) {
            if (out.size() == n) {
                break;
            }
            out.add(p);
        }
        return out;
    }

    /** Whether {@code a} is served after {@code b}. */
    static boolean servedAfter(Pending a, Pending b) {
        return SERVICE_ORDER.compare(a, b) > 0;
    }

    /** Removes {@code p} if it still waits; a request already claimed (its id may be queued again) is left alone. */
    synchronized boolean remove(Pending p) {
        boolean removed = queue.remove(p);
        if (removed) {
            ids.remove(p.request().requestId());
            size = queue.size();
        }
        return removed;
    }

    synchronized boolean contains(String requestId) {
        return ids.contains(requestId);
    }

    /** Removes and returns every waiting request (the selector is stopping). */
    synchronized List<Pending> removeAll() {
        List<Pending> out = new ArrayList<>(queue);
        queue.clear();
        ids.clear();
        size = 0;
        return out;
    }

    /** Removes and returns the requests that have waited longer than {@code maxWaitNanos}. */
    synchronized List<Pending> expired(long nowNanos, long maxWaitNanos) {
        List<Pending> out = new ArrayList<>();
        queue.removeIf(p -> {
            if (nowNanos - p.enqueuedNanos > maxWaitNanos) {
                out.add(p);
                ids.remove(p.request().requestId());
                return true;
            }
            return false;
        });
        size = queue.size();
        return out;
    }

    /** Requests waiting; lock-free. */
    int size() {
        return size;
    }
}
