package io.tierroute.selector.soak;

import io.tierroute.selector.protocol.BlockHasher;

/**
 * A steady stream of KV event batches over fresh prompts, as engines under load would report them.
 * Batch {@code i} goes to worker {@code i % workers}; for that worker it stores a new prompt on HBM
 * (a shared group prefix + a suffix never seen before), moves the suffix it stored {@link #MOVE_LAG}
 * batches earlier to CPU, and removes from CPU every other suffix {@link #REMOVE_LAG} batches after it
 * was stored. Half of every suffix therefore stays until the index's cap prunes it: the index grows
 * without bound unless the cap holds. Single-threaded.
 */
final class KvChurn {

    static final int MOVE_LAG = 4, REMOVE_LAG = 8;
    private static final long PREFIX_BASE = 500_000_000L, SUFFIX_BASE = 4_000_000_000L;

    private final int workers, groups, prefixBlocks, suffixBlocks;
    private final long salt;
    private final BlockHasher hasher = new BlockHasher();
    /** Per worker, the suffix hashes of its last REMOVE_LAG + 1 prompts (ring by the worker's batch number). */
    private final long[][][] recent;
    private long batch;

    KvChurn(String model, int workers, int groups, int prefixBlocks, int suffixBlocks) {
        this.workers = workers;
        this.groups = groups;
        this.prefixBlocks = prefixBlocks;
        this.suffixBlocks = suffixBlocks;
        this.salt = BlockHasher.salt(model, null, null);
        this.recent = new long[workers][REMOVE_LAG + 1][];
    }

    /** One batch: the worker's name suffix (its index) and the JSON body of POST /v1/kv-events. */
    record Batch(int worker, String json, int events, int freshBlocks) {}

    Batch next(String workerPrefix) {
        long i = batch++;
        int w = (int) (i % workers);
        long k = i / workers;
        int n = prefixBlocks + suffixBlocks;
        long[] ids = new long[n];
        long group = k % groups;
        for (int j = 0; j < prefixBlocks; j++) {
            ids[j] = PREFIX_BASE + group * 10_000 + j;
        }
        for (int j = 0; j < suffixBlocks; j++) {
            ids[prefixBlocks + j] = SUFFIX_BASE + i * 1_000 + j;   // unique per batch
        }
        long[] hashes = new long[n];
        hasher.hashBlockIds(ids, n, salt, hashes);
        long[] suffix = java.util.Arrays.copyOfRange(hashes, prefixBlocks, n);
        long[][] ring = recent[w];
        ring[(int) (k % ring.length)] = suffix;

        StringBuilder b = new StringBuilder(32 * n).append("{\"worker\":\"").append(workerPrefix).append(w)
                .append("\",\"events\":[{\"type\":\"stored\",\"tier\":\"hbm\",\"block_hashes\":");
        list(b, hashes).append('}');
        int events = 1;
        if (k >= MOVE_LAG) {
            b.append(",{\"type\":\"moved\",\"from_tier\":\"hbm\",\"to_tier\":\"cpu\",\"block_hashes\":");
            list(b, ring[(int) ((k - MOVE_LAG) % ring.length)]).append('}');
            events++;
        }
        if (k >= REMOVE_LAG && (k - REMOVE_LAG) % 2 == 0) {
            b.append(",{\"type\":\"removed\",\"tier\":\"cpu\",\"block_hashes\":");
            list(b, ring[(int) ((k - REMOVE_LAG) % ring.length)]).append('}');
            events++;
        }
        return new Batch(w, b.append("]}").toString(), events, suffixBlocks);
    }

    private static StringBuilder list(StringBuilder b, long[] a) {
        b.append('[');
        for (int j = 0; j < a.length; j++) {
            if (j > 0) {
                b.append(',');
            }
            b.append(a[j]);
        }
        return b.append(']');
    }
}
