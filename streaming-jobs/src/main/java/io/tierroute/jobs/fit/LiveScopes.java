package io.tierroute.jobs.fit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The estimators in memory of one fitting subtask, by scope, and their idle eviction: a scope without input for
 * {@link #IDLE_MS} of processing time is dropped (its keyed state stays; {@code ScopeFitFunction} rebuilds it from the
 * replay buffers if it returns, as after a restore). Scopes come from the records: a long-running job would otherwise
 * keep the estimators of every scope it ever saw. Not for the event-time mode, whose history must be a function of the
 * input alone ({@code ScopeFitFunction}, "Memory"): its callers never {@link #sweep}. Metrics: gauge
 * {@code liveScopes}, counter {@code idleScopesEvicted}.
 */
final class LiveScopes {
    private static final Logger LOG = LoggerFactory.getLogger(LiveScopes.class);

    /** A scope without input for this long (processing time) leaves memory; checked every quarter of it. */
    static final long IDLE_MS = 3_600_000;

    private final Map<String, ScopeEstimators> byScope = new HashMap<>();
    private final Counter evictions;
    /** The operator's processing time at its latest input or timer. */
    private long clockMs = Long.MIN_VALUE;
    /** When the map is next scanned for idle scopes (on {@link #clockMs}). */
    private long nextSweepMs = Long.MIN_VALUE;

    LiveScopes(MetricGroup metrics) {
        evictions = metrics.counter("idleScopesEvicted");
        metrics.gauge("liveScopes", (Gauge<Integer>) byScope::size);
    }

    ScopeEstimators get(String scope) {
        return byScope.get(scope);
    }

    /** Keeps {@code est} in memory, as having had input now. */
    void put(String scope, ScopeEstimators est) {
        est.lastInputMs(clockMs);
        byScope.put(scope, est);
    }

    /** The processing time now: the clock of {@link #inputTo} and {@link #sweep}. */
    void clock(long nowMs) {
        clockMs = nowMs;
    }

    /** {@code est} had input now. */
    void inputTo(ScopeEstimators est) {
        est.lastInputMs(clockMs);
    }

    int size() {
        return byScope.size();
    }

    long evictions() {
        return evictions.getCount();
    }

    /**
     * Drops the scopes without input for {@link #IDLE_MS}, telling {@code onEvict} each one's name (the caller drops
     * what else it keeps per scope in memory). Scans at most every quarter of the idle time.
     */
    void sweep(Consumer<String> onEvict) {
        if (clockMs < nextSweepMs || clockMs < Long.MIN_VALUE + IDLE_MS) {
            return;
        }
        nextSweepMs = clockMs > Long.MAX_VALUE - IDLE_MS / 4 ? Long.MAX_VALUE : clockMs + IDLE_MS / 4;
        long cutoff = clockMs - IDLE_MS;
        List<String> evicted = new ArrayList<>();
        var it = byScope.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, ScopeEstimators> e = it.next();
            if (e.getValue().lastInputMs() < cutoff) {
                it.remove();
                onEvict.accept(e.getKey());
                evicted.add(e.getKey());
            }
        }
        if (!evicted.isEmpty()) {
            evictions.inc(evicted.size());
            LOG.info("dropped the in-memory estimators of {} scope(s) without input for {} min (rebuilt from their replay "
                + "buffers if they return; {} left): {}", evicted.size(), IDLE_MS / 60_000, byScope.size(),
                evicted.stream().limit(10).toList() + (evicted.size() > 10 ? " …" : ""));
        }
    }
}
