package io.tierroute.jobs.fit;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whose turn it is on a subtask's one forest-training thread ({@link ForestTraining}): one scope holds the thread from
 * the start of its training until its keyed poll collects the model; the others wait in the order they asked, holding
 * no rows (a scope copies its up to 20 000 rows only when its turn comes, so a subtask with many scopes holds one copy
 * at a time, not one per scope queued behind the thread). Waiting scopes ask again at each of their polls; the first
 * in line takes a free thread. A first in line that has not asked within {@code claimGraceNanos} of the thread coming
 * free (or of the place before it being lost) loses its place: it would otherwise stall every scope behind it; alive,
 * it asks again at its next poll, at the tail. Keyed callbacks only (but {@link #waitingCount}): not thread-safe. Lost
 * on a restore, as the trainings are: the scopes' next polls (restored with their state) ask again.
 */
final class TrainerTurns {
    private final long claimGraceNanos;
    /** The scope whose training runs or waits to be collected, or null when the thread is free. */
    private String holder;
    /** When the thread came free (or this was created), for the first in line's grace. */
    private long freeSinceNanos;
    /** Waiting scopes, in the order they first asked, with when they did. */
    private final LinkedHashMap<String, Long> waiting = new LinkedHashMap<>();
    /** {@code waiting.size()} for the metrics reporter's thread (the map is the keyed thread's). */
    private volatile int waitingCount;

    TrainerTurns(long claimGraceNanos, long nowNanos) {
        this.claimGraceNanos = claimGraceNanos;
        this.freeSinceNanos = nowNanos;
    }

    /**
     * {@code scope} asks for the thread: true when it takes it now (the caller starts its training), false when it
     * waits (in line from its first ask).
     */
    boolean ask(String scope, long nowNanos) {
        if (scope.equals(holder)) {
            throw new IllegalStateException("scope " + scope + " already holds the training thread");
        }
        if (holder == null && mayTake(scope, nowNanos)) {
            waiting.remove(scope);
            waitingCount = waiting.size();
            holder = scope;
            return true;
        }
        waiting.putIfAbsent(scope, nowNanos);
        waitingCount = waiting.size();
        return false;
    }

    /** Whether the free thread goes to {@code scope}: it is first in line, or the first in line let its grace pass. */
    private boolean mayTake(String scope, long nowNanos) {
        Iterator<Map.Entry<String, Long>> first = waiting.entrySet().iterator();
        if (!first.hasNext()) {
            return true;
        }
        String head = first.next().getKey();
        if (head.equals(scope)) {
            return true;
        }
        if (nowNanos - freeSinceNanos > claimGraceNanos) {
            // One place lost per grace: the next in line gets a grace of its own from now.
            first.remove();
            waitingCount = waiting.size();
            freeSinceNanos = nowNanos;
            return waiting.isEmpty() || waiting.keySet().iterator().next().equals(scope);
        }
        return false;
    }

    /** {@code scope}'s training was collected (or failed): the thread is free for the next in line. */
    void release(String scope, long nowNanos) {
        if (!scope.equals(holder)) {
            throw new IllegalStateException("scope " + scope + " does not hold the training thread (" + holder + " does)");
        }
        holder = null;
        freeSinceNanos = nowNanos;
    }

    /** {@code scope} no longer wants a turn (its rows fell below the minimum while it waited). */
    void withdraw(String scope) {
        waiting.remove(scope);
        waitingCount = waiting.size();
    }

    boolean holds(String scope) {
        return scope.equals(holder);
    }

    boolean isWaiting(String scope) {
        return waiting.containsKey(scope);
    }

    /** Scopes waiting for the thread: the {@code forestTrainingsWaiting} gauge (read from any thread). */
    int waitingCount() {
        return waitingCount;
    }

    /** How long {@code scope} has waited for its turn, ns (0 when it is not waiting). */
    long waitedNanos(String scope, long nowNanos) {
        Long since = waiting.get(scope);
        return since == null ? 0 : nowNanos - since;
    }
}
