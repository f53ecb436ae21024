package io.tierroute.sim.policy;

/**
 * Exact, instantaneous engine state, for the clairvoyant oracle only. This interface may grow with
 * the oracle's needs; no other policy may depend on it.
 */
public interface OracleView {

    /**
     * The blocks of {@code request}'s prompt that {@code worker} could use right now, per tier ordinal,
     * each tier counting only the contiguous extension beyond faster tiers (DESIGN §3's {@code H_t} in
     * blocks). Only computed or loaded blocks count.
     */
    void matchedBlocks(int worker, SimRequest request, int[] outPerTier);

    /**
     * Bytes still to move for the loads in progress on {@code worker} from {@code tier}: over its PCIe link for
     * {@code CPU}, over its NVMe drive's link for {@code NVME}, 0 for a tier it does not have.
     */
    long pendingTransferBytes(int worker, io.tierroute.selector.protocol.Tier tier);

    /** The running batch limit (vLLM {@code max_num_seqs}). */
    int maxRunning();

    /** Microseconds until the step {@code worker} is running ends (0 when it is idle). */
    long stepRemainingMicros(int worker);

    /** Preemptions {@code worker} has made so far (a forecast's preemptions are those after now). */
    long preemptionsSoFar(int worker);

    /**
     * The requests on {@code worker} in the engine's scheduling order (running in admission order, then
     * loaded, loading and waiting in queue order), each as its state <b>once the step in progress ends</b>
     * (the step's tokens counted, requests it finishes left out), then {@code arrival} (unless null) as it
     * would join the waiting queue's tail now, into {@code out} (cleared first). Shared-block ids
     * ({@link SeqState#sharedBlocks}, {@link SeqState#hbmHitBlockIds}) are consistent within one call.
     */
    void sequences(int worker, SimRequest arrival, java.util.List<SeqState> out);

    /** Where a request is in the engine's life cycle. */
    enum Phase { RUNNING, LOADING, READY, WAITING }

    /**
     * One request's exact state on a worker, in the engine's own terms ({@code engine.Sequence}).
     *
     * @param promptTokens     prompt length; {@code promptTokens / blockSize} of its blocks are cacheable
     * @param computed         tokens whose KV is in HBM
     * @param target           tokens to prefill before decoding (prompt, plus what it generated before a preemption)
     * @param generated        output tokens generated so far (> 0: its first token is out)
     * @param outputTokens     true output length
     * @param heldBlocks       KV blocks it holds
     * @param exclusiveBlocks  of those, the ones no other request holds (its release frees them)
     * @param sharedBlocks     ids of the others (held with other requests, or hit by a queued one): freed when
     *                         their last holder releases them
     * @param hbmHitBlocks     WAITING: the prefix blocks admission would match in HBM now (≥ 1 token left to compute)
     * @param hbmHitBlockIds   WAITING: the ids of those blocks, held by a request or cached unheld (one id per
     *                         block in the call, so a block several requests would hit is referenced once)
     * @param cpuHitBlocks     WAITING: the extension's blocks admission would load from the CPU tier over PCIe
     * @param nvmeHitBlocks    WAITING: the extension's blocks it would read from the NVMe tier (then copy over PCIe)
     * @param driveBlocks      LOADING: the blocks it is still reading from the NVMe drive (they cross PCIe next)
     */
    record SeqState(Phase phase, int promptTokens, int computed, int target, int generated, int outputTokens,
                    int heldBlocks, int exclusiveBlocks, int[] sharedBlocks, int hbmHitBlocks,
                    int[] hbmHitBlockIds, int cpuHitBlocks, int nvmeHitBlocks, int driveBlocks) {}
}
