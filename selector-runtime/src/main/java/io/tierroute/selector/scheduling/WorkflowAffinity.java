package io.tierroute.selector.scheduling;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where each agent workflow ran its last step, when that step ended and how many tokens it generated: the
 * {@code last_worker(r)} and {@code t_since_last(r)} of {@code B_wf}, and the output-length model's
 * {@code previousStepOutputTokens}. The idle clock starts when the step finishes (the
 * tool call begins); while the step still runs its context is resident, so the idle time is 0.
 * Entries older than a configured age are forgotten (their bonus {@code e^{−λt}} is negligible by
 * then), and the map is capped.
 */
public final class WorkflowAffinity {

    /**
     * The last step of a workflow.
     *
     * @param endedNanos when it finished, or when it was routed while {@code running}
     * @param outputTokens the output tokens it generated, once finished (null while it runs, or when no count came)
     * @param completed    whether it finished normally (not failed, not dropped for lack of events): only then did its
     *                     worker hold the context it computed
     */
    public record LastStep(int worker, long endedNanos, String requestId, boolean running, Integer outputTokens,
                           boolean completed) {

        /** {@code t_since_last}: seconds the workflow has been idle since this step, 0 while it runs. */
        public double idleSeconds(long nowNanos) {
            return running ? 0.0 : Math.max(0, nowNanos - endedNanos) / 1e9;
        }
    }

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
        byWorkflow.put(workflowId, new LastStep(worker, nowNanos, requestId, true, null, false));
        workflowOfRequest.put(requestId, workflowId);
    }

    /**
     * The request ended, having generated {@code outputTokens} (null: unknown, e.g. it failed), {@code completed}
     * normally or not (failed, dropped): its workflow's idle time starts now, and its next step's output-length features
     * carry the count. Only the workflow's most recently routed step counts: one that ends after a later step was
     * routed changes nothing.
     */
    public void finished(String requestId, long nowNanos, Integer outputTokens, boolean completed) {
        String workflowId = workflowOfRequest.remove(requestId);
        if (workflowId != null) {
            byWorkflow.computeIfPresent(workflowId, (id, s) -> s.requestId.equals(requestId)
                    ? new LastStep(s.worker, nowNanos, requestId, false, outputTokens, completed) : s);
        }
    }

    /**
     * Forgets expired workflows; over the cap, forgets the oldest down to 90 % of it, so the sort
     * that finds them runs once per many inserts, not on every sweep.
     */
    public void expire(long nowNanos) {
        byWorkflow.entrySet().removeIf(e -> nowNanos - e.getValue().endedNanos > maxAgeNanos);
        if (byWorkflow.size() > maxWorkflows) {
            long keep = maxWorkflows - maxWorkflows / 10;
            // Removed only as seen: a workflow a concurrent route moved on since the sort keeps its new step.
            byWorkflow.entrySet().stream()
                    .sorted(Map.Entry.comparingByValue((a, b) -> Long.compare(a.endedNanos, b.endedNanos)))
                    .limit(Math.max(0, byWorkflow.size() - keep))
                    .map(e -> Map.entry(e.getKey(), e.getValue()))
                    .toList()
                    .forEach(e -> byWorkflow.remove(e.getKey(), e.getValue()));
        }
        workflowOfRequest.values().removeIf(w -> !byWorkflow.containsKey(w));
    }

    public int size() {
        return byWorkflow.size();
    }
}
