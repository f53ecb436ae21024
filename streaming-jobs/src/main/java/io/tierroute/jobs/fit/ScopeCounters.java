package io.tierroute.jobs.fit;

/**
 * Small per-scope bookkeeping of {@link ScopeFitFunction}, kept in one value state: the sizes of the
 * two replay buffers (so trimming needs no scan), whether anything arrived since the last snapshot,
 * and the pending processing-time timers (0 = none).
 */
public class ScopeCounters {
    public long bufferedRows;
    public long bufferedTelemetry;
    public boolean dirty;
    public long nextPublishMs;
    public long nextForestMs;

    public ScopeCounters() {}
}
