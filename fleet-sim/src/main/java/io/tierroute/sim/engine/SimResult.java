package io.tierroute.sim.engine;

import io.tierroute.sim.policy.Completion;

import java.util.List;

/**
 * Everything one simulation run produced: the completion logs and per-worker engine counters.
 *
 * @param policy        the policy's name
 * @param policyVersion the upstream version it reimplements
 * @param completions   one per finished request, in finishing order
 * @param rejected      requests that could never fit a worker's HBM (dropped at arrival)
 * @param workers       per-worker counters
 * @param endMicros     virtual time of the last engine event (the last completion)
 * @param wallMillis    wall-clock time the run took
 */
public record SimResult(String policy, String policyVersion, List<Completion> completions, int rejected,
                        List<WorkerStats> workers, long endMicros, long wallMillis) {

    /**
     * One worker's counters over the run.
     *
     * @param steps          engine steps
     * @param busyMicros     time spent in steps
     * @param preemptions    recompute preemptions
     * @param prefillTokens  prompt tokens computed (recomputation included)
     * @param decodeTokens   decode tokens generated in decode steps
     * @param linkBusyMicros time the PCIe link had at least one load in flight
     * @param linkBytes      bytes loaded over the link
     * @param evictions      HBM blocks evicted
     * @param nvmeBusyMicros time the NVMe drive's link had at least one load in flight (0 without an NVMe tier)
     * @param nvmeBytes      bytes loaded from the NVMe tier
     */
    public record WorkerStats(long steps, long busyMicros, long preemptions, long prefillTokens, long decodeTokens,
                              long linkBusyMicros, double linkBytes, long evictions, long nvmeBusyMicros,
                              double nvmeBytes) {

        /** Counters of a worker without an NVMe tier. */
        public WorkerStats(long steps, long busyMicros, long preemptions, long prefillTokens, long decodeTokens,
                           long linkBusyMicros, double linkBytes, long evictions) {
            this(steps, busyMicros, preemptions, prefillTokens, decodeTokens, linkBusyMicros, linkBytes, evictions, 0, 0);
        }
    }
}
