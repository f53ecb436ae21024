package io.tierroute.selector.scheduling;

import io.tierroute.selector.sequences.DuplicateRequestException;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * Requests waiting because every candidate was over its load limit (or held by late binding), in order of
 * {@code key(r) = min_w Cost(w, r) + g·t_arrival(r)}, lowest first, ties first come first served: DESIGN.md §3's
 * priority {@code 1 / min_w Cost} (a generalised WSPT: cheap requests first) with the request's wait counted against
 * its cost at {@code g} = {@link SelectorSettings#queueAgeWeight} µs of cost per µs waited. At {@code g = 0} an
 * expensive request waits while cheaper ones keep arriving, possibly until {@code maxQueueWait} refuses it; at
 * {@code g > 0} the order is an earliest deadline ({@code t_arrival + cost/g}): a request q arriving after r is ordered
 * ahead of r only if it arrives less than {@code (cost(r) − cost(q))/g} after r, so r is overtaken for a bounded time
 * (within {@code maxQueueWait} when {@code cost(r) − cost(q) < g·maxQueueWait}: 9 s of cost at the defaults). Costs
 * are ordered by value, a negative one (bonuses exceed costs) first at {@code g = 0}, as if it had arrived |cost|/g
 * earlier otherwise. The key is the one at arrival; a drain ranks the first few again by their cost at that moment,
 * less the same credit for their wait so far ({@link #rankNow} = {@code key − g·(t_now − origin)} when the cost has not
 * moved, so the two orders agree; {@code QueueDrain.cheapestNow}). Under overload that bound is minutes; a drain
 * therefore places first a request that has waited {@link SelectorSettings#queueOverdueAfter} and can be placed now, the
 * longest-waiting first, from the same requests in arrival order ({@link #firstArrived}). Bounded; thread-safe.
 */
final class AdmissionQueue {

    /** @param hashes its prompt's block hashes as far as computed, which the drains' attempts reuse and extend */
    record Pending(RouteRequest request, PromptHashes hashes, double key, long enqueuedNanos, long sequence,
                   CompletableFuture<RouteDecision> future) {}

    /** Lowest key first, then arrival order; the sequence makes it total, so the set holds every request. */
    private static final Comparator<Pending> SERVICE_ORDER = Comparator.comparingDouble(Pending::key)
            .thenComparingLong(Pending::sequence);

    // An ordered set, not a heap: a drain reads the first few in order without copying the queue, and a cancelled
    // request leaves in O(log n).
    private final TreeSet<Pending> queue = new TreeSet<>(SERVICE_ORDER);
    /** The same requests in arrival order, so a drain finds the overdue ones without walking the queue. */
    private final TreeSet<Pending> byArrival = new TreeSet<>(Comparator.comparingLong(Pending::sequence));
    private final Set<String> ids = new HashSet<>();
    private final int capacity;
    private final double ageWeight;
    private final long originNanos;
    private long sequence;
    /** Mirrors {@code queue.size()} so the route path can see "nobody waits" without the lock. */
    private volatile int size;

    /**
     * @param capacity    requests it holds at most
     * @param ageWeight   {@code g}: µs of cost a µs of waiting makes up for (≥ 0)
     * @param originNanos the clock at the selector's start: arrival times are counted from it, to keep keys small
     */
    AdmissionQueue(int capacity, double ageWeight, long originNanos) {
        this.capacity = capacity;
        this.ageWeight = ageWeight;
        this.originNanos = originNanos;
    }

    /** {@code minCost + g·t_arrival} (µs): the queue's order, fixed at a request's arrival. */
    private double serviceKey(double minCost, long arrivalNanos) {
        return minCost + ageWeight * (arrivalNanos - originNanos) / 1e3;
    }

    /** {@code costNow − g·waited} (µs): a drain's rank of a waiting request it has just scored again, lowest first. */
    double rankNow(Pending p, double costNow, long nowNanos) {
        return costNow - ageWeight * (nowNanos - p.enqueuedNanos()) / 1e3;
    }

    /** Queues {@code request}, whose cheapest worker costs {@code minCost} now; null when the queue is full. */
    synchronized Pending offer(RouteRequest request, PromptHashes hashes, double minCost, long nowNanos) {
        if (queue.size() >= capacity) {
            return null;
        }
        if (!ids.add(request.requestId())) {
            throw new DuplicateRequestException("request '" + request.requestId() + "' is already queued");
        }
        Pending p = new Pending(request, hashes, serviceKey(minCost, nowNanos), nowNanos, sequence++, new CompletableFuture<>());
        queue.add(p);
        byArrival.add(p);
        size = queue.size();
        return p;
    }

    synchronized Pending peek() {
        return queue.isEmpty() ? null : queue.first();
    }

    /** The first {@code n} waiting requests in the order they are served (a copy; the queue is left as it is). */
    synchronized List<Pending> firstInOrder(int n) {
        return firstOf(queue, n);
    }

    /**
     * Up to {@code n} waiting requests served after {@code from}, in order ({@code from} itself excluded; it need not
     * still be waiting): a drain's scan past its first window (a copy).
     */
    synchronized List<Pending> afterInOrder(Pending from, int n) {
        return firstOf(queue.tailSet(from, false), n);
    }

    /** The first {@code n} waiting requests in arrival order, the longest-waiting first (a copy). */
    synchronized List<Pending> firstArrived(int n) {
        return firstOf(byArrival, n);
    }

    /** The first {@code n} of {@code ordered}, a view of the waiting requests (its size() may walk it: not asked). */
    private List<Pending> firstOf(SortedSet<Pending> ordered, int n) {
        List<Pending> out = new ArrayList<>(Math.min(n, queue.size()));
        for (Pending p : ordered) {
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
            byArrival.remove(p);
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
        byArrival.clear();
        ids.clear();
        size = 0;
        return out;
    }

    /** The request that has waited longest, or null when none waits. */
    synchronized Pending longestWaiting() {
        return byArrival.isEmpty() ? null : byArrival.first();
    }

    /** Removes and returns the requests that have waited longer than {@code maxWaitNanos}, from the longest-waiting on. */
    synchronized List<Pending> expired(long nowNanos, long maxWaitNanos) {
        List<Pending> out = new ArrayList<>();
        while (!byArrival.isEmpty() && nowNanos - byArrival.first().enqueuedNanos > maxWaitNanos) {
            Pending p = byArrival.pollFirst();
            queue.remove(p);
            ids.remove(p.request().requestId());
            out.add(p);
        }
        size = queue.size();
        return out;
    }

    /** Requests waiting; lock-free. */
    int size() {
        return size;
    }
}
