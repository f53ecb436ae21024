package io.tierroute.sim.policy;

/**
 * One worker's metrics at one instant, as an engine exports them (vLLM's {@code /metrics}): what
 * telemetry-driven routers (llm-d's scorers, tierroute's in-flight base) read.
 *
 * @param worker             dense worker index
 * @param atMicros           virtual time of the sample
 * @param waiting            requests queued, not yet scheduled (vLLM {@code num_requests_waiting})
 * @param running            requests in the running batch (vLLM {@code num_requests_running})
 * @param kvUsage            HBM blocks held by running requests / HBM capacity, in [0, 1]
 *                           (cached blocks no running request holds count as free, as in vLLM)
 * @param hbmCachedBlocks    blocks resident in HBM, held or merely cached
 * @param hbmCapacityBlocks  HBM capacity in blocks
 * @param cpuCachedBlocks    blocks resident in the CPU tier
 * @param tierBytesMoved     per tier ordinal, bytes that tier's link moved since the previous sample: CPU the PCIe
 *                           link's (CPU-tier loads, and NVMe-tier blocks on their way from host memory to HBM), NVME
 *                           the drive's reads
 * @param intervalMicros     time since the previous sample of this worker
 * @param tierLinkUtilisation per tier ordinal, busy fraction of that tier's link over the interval, [0, 1]
 * @param pendingPrefillTokens prompt tokens admitted to the worker and not yet computed (waiting, loading and
 *                           partly prefilled requests; SGLang's and TensorRT-LLM's schedulers report it), -1 unknown
 * @param prefillTokens      prompt tokens computed (prefilled; cache hits and tier loads excluded) by the steps that
 *                           completed in the interval (EngineTelemetry {@code prefillTokens})
 * @param prefillBusyMicros  whole duration of the steps completed in the interval that did prefill work, mixed ones
 *                           included (EngineTelemetry {@code prefillBusyUs})
 * @param decodeSteps        steps completed in the interval that decoded (some request past its prefill generated a
 *                           token), mixed ones included (EngineTelemetry {@code decodeSteps})
 * @param decodeBusyMicros   whole duration of those decode steps (EngineTelemetry {@code decodeBusyUs}); a mixed step's
 *                           time is in both busy counters. A step counts in the interval it completes in, so a busy
 *                           time can exceed the interval by the part of one step that began before it
 */
public record WorkerTelemetry(int worker, long atMicros, int waiting, int running, double kvUsage,
                              long hbmCachedBlocks, long hbmCapacityBlocks, long cpuCachedBlocks,
                              long[] tierBytesMoved, long intervalMicros, double[] tierLinkUtilisation,
                              long pendingPrefillTokens, long prefillTokens, long prefillBusyMicros,
                              long decodeSteps, long decodeBusyMicros) {

    /** A sample without the pending prefill count (unknown) and without busy counters (no work). */
    public WorkerTelemetry(int worker, long atMicros, int waiting, int running, double kvUsage,
                           long hbmCachedBlocks, long hbmCapacityBlocks, long cpuCachedBlocks,
                           long[] tierBytesMoved, long intervalMicros, double[] tierLinkUtilisation) {
        this(worker, atMicros, waiting, running, kvUsage, hbmCachedBlocks, hbmCapacityBlocks, cpuCachedBlocks,
                tierBytesMoved, intervalMicros, tierLinkUtilisation, -1);
    }

    /** A sample without busy counters (no work reported). */
    public WorkerTelemetry(int worker, long atMicros, int waiting, int running, double kvUsage,
                           long hbmCachedBlocks, long hbmCapacityBlocks, long cpuCachedBlocks,
                           long[] tierBytesMoved, long intervalMicros, double[] tierLinkUtilisation,
                           long pendingPrefillTokens) {
        this(worker, atMicros, waiting, running, kvUsage, hbmCachedBlocks, hbmCapacityBlocks, cpuCachedBlocks,
                tierBytesMoved, intervalMicros, tierLinkUtilisation, pendingPrefillTokens, 0, 0, 0, 0);
    }
}
