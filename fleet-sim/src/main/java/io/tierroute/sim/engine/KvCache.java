package io.tierroute.sim.engine;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One worker's KV blocks: HBM (named blocks by chained hash plus anonymous private blocks) and an
 * optional CPU tier, with the KV events an engine would publish.
 *
 * <p><b>Eviction.</b> Unreferenced computed HBM blocks wait in a free list in the order they became
 * unreferenced; a request releases its blocks deepest first, so the list's head is the least recently
 * used leaf (vLLM's free-block queue). Evicting takes the head: the block leaves HBM and, with a CPU
 * tier, moves there ({@code Moved HBM→CPU}, or {@code Removed HBM} when the CPU already holds it). The
 * CPU tier is an LRU of hashes; overflowing it emits {@code Removed CPU}. Offload copies run
 * device→host and are not charged to the host→device link (PCIe is full duplex).
 */
final class KvCache {

    private final int worker;
    private final long hbmCapacity;
    private final long cpuCapacity;
    private final Consumer<KvEvent> sink;
    private final HashMap<Long, Block> hbm = new HashMap<>();
    private final LinkedHashMap<Long, Boolean> cpu = new LinkedHashMap<>(16, 0.75f, true);
    private final Block freeHead = new Block(0); // sentinel of the circular free list
    private long freeCount;
    private long privateBlocks;
    private long evictions;

    KvCache(int worker, long hbmCapacityBlocks, long cpuCapacityBlocks, Consumer<KvEvent> sink) {
        this.worker = worker;
        this.hbmCapacity = hbmCapacityBlocks;
        this.cpuCapacity = cpuCapacityBlocks;
        this.sink = sink;
        freeHead.prev = freeHead;
        freeHead.next = freeHead;
    }

    long capacity() { return hbmCapacity; }
    long resident() { return hbm.size() + privateBlocks; }
    /** Blocks held by some request (resident minus unreferenced cached ones). */
    long referenced() { return resident() - freeCount; }
    long cpuResident() { return cpu.size(); }
    long evictions() { return evictions; }

    /** Contiguous computed HBM blocks of {@code hashes} from block 0, at most {@code max}. */
    int matchHbm(long[] hashes, int max) {
        int i = 0;
        while (i < max) {
            Block b = hbm.get(hashes[i]);
            if (b == null || !b.computed) {
                break;
            }
            i++;
        }
        return i;
    }

    /** Contiguous CPU blocks of {@code hashes} from {@code from}, stopping before {@code max}. */
    int matchCpu(long[] hashes, int from, int max) {
        if (cpuCapacity == 0) {
            return 0;
        }
        int i = from;
        while (i < max && cpu.containsKey(hashes[i])) {
            i++;
        }
        return i - from;
    }

    /** Marks CPU blocks as used (LRU), e.g. when a load starts. */
    void touchCpu(long[] hashes, int from, int to) {
        for (int i = from; i < to; i++) {
            cpu.get(hashes[i]);
        }
    }

    Block get(long hash) {
        return hbm.get(hash);
    }

    void acquire(Block b) {
        if (b.inFreeList) {
            unlink(b);
        }
        b.refs++;
    }

    /** True when {@code n} blocks can be made free (free slots plus evictable blocks). */
    boolean canReserve(long n) {
        return hbmCapacity - resident() + freeCount >= n;
    }

    /** Frees {@code n} slots by evicting LRU leaves; false (evicting nothing) when impossible. */
    boolean reserve(long n) {
        long missing = n - (hbmCapacity - resident());
        if (missing <= 0) {
            return true;
        }
        if (missing > freeCount) {
            return false;
        }
        evict(missing);
        return true;
    }

    /**
     * A named block for {@code hash}, after {@link #reserve}: a new uncomputed block, the existing
     * block if it is computed (shared), or null when another request is computing it (the caller then
     * holds a private block instead, as vLLM does for duplicates).
     */
    Block allocNamed(long hash) {
        Block b = hbm.get(hash);
        if (b == null) {
            b = new Block(hash);
            b.refs = 1;
            hbm.put(hash, b);
            return b;
        }
        if (!b.computed) {
            privateBlocks++;
            return null;
        }
        acquire(b);
        return b;
    }

    void allocPrivate(long n) {
        privateBlocks += n;
    }

    void releasePrivate(long n) {
        privateBlocks -= n;
    }

    /** Drops a reference; an unreferenced computed block becomes evictable, an uncomputed one vanishes. */
    void release(Block b) {
        if (--b.refs > 0) {
            return;
        }
        if (b.computed) {
            link(b);
        } else {
            hbm.remove(b.hash);
        }
    }

    /** Announces blocks newly computed or loaded: {@code Stored HBM}, chained after {@code parent}. */
    void stored(boolean hasParent, long parent, long[] hashes) {
        sink.accept(new KvEvent.Stored(worker, Tier.HBM, hasParent, parent, hashes));
    }

    private void evict(long n) {
        long[] moved = new long[(int) n];
        long[] removed = new long[(int) n];
        int m = 0;
        int r = 0;
        for (long i = 0; i < n; i++) {
            Block b = freeHead.next;
            unlink(b);
            hbm.remove(b.hash);
            evictions++;
            if (cpuCapacity == 0) {
                removed[r++] = b.hash;
            } else if (cpu.get(b.hash) != null) {
                removed[r++] = b.hash;
            } else {
                cpu.put(b.hash, Boolean.TRUE);
                moved[m++] = b.hash;
            }
        }
        if (r > 0) {
            sink.accept(new KvEvent.Removed(worker, Tier.HBM, java.util.Arrays.copyOf(removed, r)));
        }
        if (m > 0) {
            sink.accept(new KvEvent.Moved(worker, Tier.HBM, Tier.CPU, java.util.Arrays.copyOf(moved, m)));
        }
        if (cpu.size() > cpuCapacity) {
            long[] dropped = new long[(int) (cpu.size() - cpuCapacity)];
            Iterator<Map.Entry<Long, Boolean>> it = cpu.entrySet().iterator();
            for (int i = 0; i < dropped.length; i++) {
                dropped[i] = it.next().getKey();
                it.remove();
            }
            sink.accept(new KvEvent.Removed(worker, Tier.CPU, dropped));
        }
    }

    private void link(Block b) {
        Block tail = freeHead.prev;
        b.prev = tail;
        b.next = freeHead;
        tail.next = b;
        freeHead.prev = b;
        b.inFreeList = true;
        freeCount++;
    }

    private void unlink(Block b) {
        b.prev.next = b.next;
        b.next.prev = b.prev;
        b.prev = null;
        b.next = null;
        b.inFreeList = false;
        freeCount--;
    }

    /** Hashes in eviction order (head first), for tests. */
    long[] evictionOrder() {
        long[] out = new long[(int) freeCount];
        int i = 0;
        for (Block b = freeHead.next; b != freeHead; b = b.next) {
            out[i++] = b.hash;
        }
        return out;
    }

    boolean cpuHolds(long hash) {
        return cpu.containsKey(hash);
    }
}
