package io.tierroute.sim.workload;

import io.tierroute.selector.protocol.BlockHasher;
import io.tierroute.sim.policy.SimRequest;

/**
 * Builds {@link SimRequest}s from per-block content ids, chaining them into block hashes exactly as
 * the real selector does for a request given as {@code block_hashes} under the same model
 * ({@code BlockHasher.hashBlockIds} salted with {@code BlockHasher.salt(model, null, null)}), so the
 * engine's KV events and the selector's lookups speak the same hashes.
 */
public final class RequestFactory {

    private final BlockHasher hasher = new BlockHasher();
    private final long salt;
    private final int blockSize;

    public RequestFactory(String model, int blockSize) {
        this.salt = BlockHasher.salt(model, null, null);
        this.blockSize = blockSize;
    }

    public int blockSize() {
        return blockSize;
    }

    /**
     * A request whose prompt has {@code promptTokens} tokens; the first {@code promptTokens / blockSize}
     * entries of {@code blockIds} name its full blocks (extra ids, e.g. a trace's id of the partial tail
     * block, are ignored).
     */
    public SimRequest request(String id, long arrivalMicros, int promptTokens, long[] blockIds, int maxTokens,
                              int outputTokens, SimRequest.Agent agent) {
        int full = promptTokens / blockSize;
        if (blockIds.length < full) {
            throw new IllegalArgumentException("request " + id + ": " + promptTokens + " tokens need " + full
                    + " block ids, got " + blockIds.length);
        }
        long[] ids = blockIds.length == full ? blockIds : java.util.Arrays.copyOf(blockIds, full);
        long[] hashes = new long[full];
        hasher.hashBlockIds(ids, full, salt, hashes);
        return new SimRequest(id, arrivalMicros, promptTokens, ids, hashes, blockSize, maxTokens, outputTokens, agent);
    }
}
