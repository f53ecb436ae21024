package io.tierroute.selector.scheduling;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where each agent workflow ran its last step and when that step ended: the {@code last_worker(r)}
 * and {@code t_since_last(r)} of {@code B_wf}. The idle clock starts when the step finishes (the
 * tool call begins), or at routing while the step is still running. Entries older than a
 * configured age are forgotten (their bonus {@code e^{−λt}} is negligible by then), and the map
 * is capped.
 */
public final class WorkflowAffinity {

    /** The last step of a workflow. */
    public record LastStep(int worker, long endedNanos, String requestId) {}

    private final ConcurrentHashMap<String, LastStep> byWorkflow = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, String> workflowOfRequest = new ConcurrentHashMap<>();
    private final long maxAgeNanos;
    private final int maxWorkflows;

    public WorkflowAffinity(long maxAgeNanos, int maxWorkflows) {
        this.maxAgeNanos = maxAgeNanos;
        this.maxWorkflows = maxWorkflows;
    }

    /** The workflow's previous step, or null when unknown or expired. */
    public LastStep last(String workflowId, long nowNanos) {
        LastStep s = byWorkflow.get(workflowId);
        return s == null || nowNanos - s.endedNanos > maxAgeNanos ? null : s;
    }

    /** A step of {@code workflowId} was just routed to {@code worker}. */
    public void routed(String workflowId, String requestId, int worker, long nowNanos) {
        byWorkflow.put(workflowId, new LastStep(worker, nowNanos, requestId));
        workflowOfRequest.put(requestId, workflowId);
    }

    /** The request finished: its workflow's idle time starts now. */
    public void finished(String requestId, long nowNanos) {
        String workflowId = workflowOfRequest.remove(requestId);
        if (workflowId != null) {
            byWorkflow.computeIfPresent(workflowId, (id, s) ->
                    s.requestId.equals(requestId) ? new LastStep(s.worker, nowNanos, requestId) : s);
        }
    }

    /** Forgets expired workflows, then the oldest ones while over the cap. */
    public void expire(long nowNanos) {
        byWorkflow.entrySet().removeIf(e -> nowNanos - e.getValue().endedNanos > maxAgeNanos);
        if (byWorkflow.size() > maxWorkflows) {
            byWorkflow.entrySet().stream()
                    .sorted(Map.Entry.comparingByValue((a, b) -> Long.compare(a.endedNanos, b.endedNanos)))
                    .limit(byWorkflow.size() - (long) maxWorkflows)
                    .map(Map.Entry::getKey)
                    .toList()
                    .forEach(byWorkflow::remove);
        }
        workflowOfRequest.values().removeIf(w -> !byWorkflow.containsKey(w));
    }

    public int size() {
        return byWorkflow.size();
    }
}
