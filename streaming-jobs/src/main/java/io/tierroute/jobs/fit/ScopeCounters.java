package io.tierroute.jobs.fit;

/**
 * Small per-scope bookkeeping of {@link ScopeFitFunction}, kept in one value state: the layout of the
 * two replay buffers (sealed chunks {@code [first, next)} in map state plus a short tail in list
 * state, so sealing and trimming need no scan), whether anything arrived since the last snapshot, and
 * the pending processing-time timers (0 = none).
 */
public class ScopeCounters {
    /** Joined rows buffered in total (sealed chunks + tail). */
    public long bufferedRows;
    public long rowTail;
    public long firstRowChunk;
    public long nextRowChunk;
    /** Telemetry samples buffered in total (sealed chunks + tail). */
    public long bufferedTelemetry;
    public long telemetryTail;
    public long firstTelemetryChunk;
    public long nextTelemetryChunk;
    /** Rows added since the forest was last trained (or tried). */
    public long rowsSinceForest;
    public boolean dirty;
    public long nextPublishMs;
    public long nextForestMs;
    /** Poll timer of a forest training in the background. */
    public long nextForestPollMs;

    public ScopeCounters() {}
}
