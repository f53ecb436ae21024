package io.tierroute.selector.scheduling;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which workers hold a warm prefix for which tools: {@code ExpectedHits(w, r)} of {@code B_tools}.
 * A worker becomes warm for a tool when the selector sends it a request that expects to call that
 * tool next (the request's context then carries the tool catalog and the call), and stays warm for
 * a configured time.
 */
public final class ToolAffinity {

    /** Tools remembered per worker; past it the coldest are forgotten (a bound on hostile input). */
    static final int MAX_TOOLS_PER_WORKER = 4096;
    /** What a worker past the cap keeps: the warmest half. */
    static final int KEEP_AFTER_PRUNING = MAX_TOOLS_PER_WORKER / 2;

    private final ConcurrentHashMap<String, Long>[] warmUntil;
    private final long warmNanos;

    @SuppressWarnings("unchecked")
    public ToolAffinity(int workers, long warmNanos) {
        this.warmUntil = new ConcurrentHashMap[workers];
        for (int w = 0; w < workers; w++) {
            warmUntil[w] = new ConcurrentHashMap<>();
        }
        this.warmNanos = warmNanos;
    }

    /** How many of {@code tools} are warm on {@code worker} now. */
    public int hits(int worker, List<String> tools, long nowNanos) {
        ConcurrentHashMap<String, Long> warm = warmUntil[worker];
        if (warm.isEmpty()) {
            return 0;
        }
        int hits = 0;
        for (String tool : tools) {
            Long until = warm.get(tool);
            if (until != null && until > nowNanos) {
                hits++;
            }
        }
        return hits;
    }

    /** {@code worker} was sent a request that expects {@code tools} next. */
    public void routed(int worker, List<String> tools, long nowNanos) {
        ConcurrentHashMap<String, Long> warm = warmUntil[worker];
        for (String tool : tools) {
            warm.put(tool, nowNanos + warmNanos);
        }
        if (warm.size() > MAX_TOOLS_PER_WORKER) {
            forgetColdest(warm, nowNanos);
        }
    }

    /**
     * Forgets the expired tools, then the coldest down to {@link #KEEP_AFTER_PRUNING}: half the cap, so that the sort
     * (on the routing thread) runs at most once per 2,048 new tools, not every other route of a client that names 256
     * new ones each time.
     */
    private static void forgetColdest(ConcurrentHashMap<String, Long> warm, long nowNanos) {
        warm.values().removeIf(until -> until <= nowNanos);
        int excess = warm.size() - KEEP_AFTER_PRUNING;
        if (excess > 0) {
            // Removed only as seen: a tool a concurrent route warmed again since the sort keeps its new time.
            warm.entrySet().stream()
                    .sorted(java.util.Map.Entry.comparingByValue())
                    .limit(excess)
                    .map(e -> java.util.Map.entry(e.getKey(), e.getValue()))
                    .toList()
                    .forEach(e -> warm.remove(e.getKey(), e.getValue()));
        }
    }

    /** Tools remembered for {@code worker} (for tests and metrics). */
    public int size(int worker) {
        return warmUntil[worker].size();
    }

    public void expire(long nowNanos) {
        for (ConcurrentHashMap<String, Long> warm : warmUntil) {
            warm.values().removeIf(until -> until <= nowNanos);
        }
    }
}
