package io.tierroute.sim.engine;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.SimRequest;

/**
 * One request's life on one worker: its blocks, how far its prefill got, what it generated, and the
 * timestamps its completion log reports. Owned by its {@link Worker}; fields are package-private.
 */
final class Sequence {

    enum State { WAITING, LOADING, READY, RUNNING, FINISHED }

    final SimRequest request;
    final int worker;
    final long[] hashes;
    final int fullBlocks;
    final int outputTokens;

    State state = State.WAITING;
    /** Named block per logical slot {@code j < fullBlocks}; null when the slot is a private duplicate. */
    final Block[] named;
    /** Logical block slots held, from 0. */
    int heldBlocks;
    /** Named slots announced as computed (Stored) or found computed, from 0. */
    int announcedBlocks;
    /** Tokens whose KV is in HBM (computed, loaded or hit). */
    int computed;
    /** Tokens to prefill before decoding: the prompt, plus tokens generated before a preemption. */
    int target;
    int generated;
    /** Tokens this step computes for it (prefill chunk or 1 decode token); 0 when not scheduled. */
    int chunk;
    boolean decodingThisStep;
    /** Blocks being loaded from the CPU and NVMe tiers, and the slot they start at. */
    int loadingBlocks;
    int loadFrom;
    /** Loads of this admission still moving: one per tier it reads from. */
    int pendingLoads;
    /** Blocks it is still reading from the NVMe drive (0 once the read is done and they cross PCIe, or none). */
    int driveBlocks;

    /** When the simulator delivered it to its worker (its arrival, unless the policy held it). */
    long deliveredAt = -1;
    long firstScheduledAt = -1;
    long loadStartedAt;
    /** Time spent loading its prefix from slower tiers before its first token (the completion log's tier-load phase). */
    long loadMicros;
    long firstTokenAt = -1;
    final int[] hitTokens = new int[Tier.COUNT];
    long computedTokens;
    int preemptions;

    Sequence(SimRequest request, int worker) {
        this.request = request;
        this.worker = worker;
        this.hashes = request.blockHashes();
        this.fullBlocks = hashes.length;
        this.outputTokens = request.trueOutputTokensForOracleOnly();
        this.named = new Block[fullBlocks];
        this.target = request.promptTokens();
    }

    boolean prefilling() {
        return computed < target;
    }

    /** Prompt tokens still to be computed (for the oracle view). */
    long pendingPrefill() {
        return Math.max(0, target - computed);
    }
}
