package io.tierroute.sim.policy.peers.llmd;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The approximate prefix index of the EPP's {@code prefix-cache-scorer} (gateway-api-inference-extension
 * {@code plugins/multi/prefix}): per worker, an LRU of the block hashes the scheduler itself sent there,
 * of fixed capacity ({@code lruCapacityPerServer}). The scheduler inserts its pick's blocks after
 * picking; a lookup does not refresh recency (upstream reads its hash → servers map, not the LRUs).
 *
 * <p>Blocks here are the simulator's engine blocks (chained hashes), not upstream's 64-character
 * chunks: see {@link LlmdPolicy} for the conversion of capacities. Single-threaded.
 */
final class ApproxPrefixIndex {

    private final LinkedHashMap<Long, Boolean>[] lru;

    @SuppressWarnings("unchecked")
    ApproxPrefixIndex(long[] capacityBlocks) {
        this.lru = new LinkedHashMap[capacityBlocks.length];
        for (int w = 0; w < capacityBlocks.length; w++) {
            final long cap = capacityBlocks[w];
            lru[w] = new LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                    return size() > cap;
                }
            };
        }
    }

    /** Leading blocks of {@code hashes[0, blocks)} that {@code worker}'s LRU holds, contiguously from block 0. */
    int matched(int worker, long[] hashes, int blocks) {
        LinkedHashMap<Long, Boolean> m = lru[worker];
        int i = 0;
        while (i < blocks && m.containsKey(hashes[i])) {
            i++;
        }
        return i;
    }

    /** Records that {@code worker} was sent {@code hashes[0, blocks)} (most recent last). */
    void insert(int worker, long[] hashes, int blocks) {
        LinkedHashMap<Long, Boolean> m = lru[worker];
        for (int i = 0; i < blocks; i++) {
            m.remove(hashes[i]);
            m.put(hashes[i], Boolean.TRUE);
        }
    }

    /** Blocks held for {@code worker} (tests). */
    int size(int worker) {
        return lru[worker].size();
    }
}
