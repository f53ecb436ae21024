package io.tierroute.sim.engine;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One worker's KV blocks: HBM (named blocks by chained hash plus anonymous private blocks), an
 * optional CPU tier and behind it an optional NVMe tier, with the KV events an engine would publish.
 *
 * <p><b>Eviction.</b> Unreferenced computed HBM blocks wait in a free list in the order they became
 * unreferenced; a request releases its blocks deepest first, so the list's head is the least recently
 * used leaf (vLLM's free-block queue). Evicting takes the head: the block leaves HBM and, with a CPU
 * tier, moves there ({@code Moved HBM→CPU}, or {@code Removed HBM} when the CPU already holds it). The
 * CPU tier is an LRU of hashes; overflowing it emits {@code Removed CPU}, or with an NVMe tier moves its
 * least recently used blocks there ({@code Moved CPU→NVME}; {@code Removed CPU} for those the drive already
 * holds). The NVMe tier is an LRU too; overflowing it emits {@code Removed NVME}. Offload copies (device→host,
 * host→drive) are not charged to the links loads use (PCIe is full duplex; the drive's writes are not its reads).
 * A block loaded back into HBM stays in the tier it came from, as LMCache keeps it. Blocks a load is reading are
 * pinned in their tier from its admission to its end (LMCache pins what a lookup found until it is retrieved): an
 * overflow passes over them, so a tier may hold more than its capacity while they load, and the evictions the load's
 * own HBM reservation causes cannot push them out of the tier they are being read from.
 *
 * <p><b>Held and running.</b> {@link #referenced()} counts every block some request holds, as an engine's KV usage
 * figure does (the telemetry reports it); {@link #heldByRunning()} counts only those the running batch holds, which a
 * decode step reads (DESIGN §6's {@code u}): a request loading from a slower tier, or loaded and waiting for budget,
 * holds blocks the step does not read.
 */
final class KvCache {

    private final int worker;
    private final long hbmCapacity;
    private final long cpuCapacity;
    private final Consumer<KvEvent> sink;
    private final HashMap<Long, Block> hbm = new HashMap<>();
    private final long nvmeCapacity;
    private final LinkedHashMap<Long, Boolean> cpu = new LinkedHashMap<>(16, 0.75f, true);
    private final LinkedHashMap<Long, Boolean> nvme = new LinkedHashMap<>(16, 0.75f, true);
    private final Block freeHead = new Block(0); // sentinel of the circular free list
    /** Offloaded blocks loads are reading: hash → number of loads reading it (see above). */
    private final HashMap<Long, Integer> pinned = new HashMap<>();
    private long freeCount;
    private long privateBlocks;
    /** Distinct blocks (named and private) the running batch holds. */
    private long heldByRunning;
    private long evictions;

    KvCache(int worker, long hbmCapacityBlocks, long cpuCapacityBlocks, Consumer<KvEvent> sink) {
        this(worker, hbmCapacityBlocks, cpuCapacityBlocks, 0, sink);
    }

    KvCache(int worker, long hbmCapacityBlocks, long cpuCapacityBlocks, long nvmeCapacityBlocks, Consumer<KvEvent> sink) {
        this.worker = worker;
        this.hbmCapacity = hbmCapacityBlocks;
        this.cpuCapacity = cpuCapacityBlocks;
        this.nvmeCapacity = nvmeCapacityBlocks;
        this.sink = sink;
        freeHead.prev = freeHead;
        freeHead.next = freeHead;
    }

    long capacity() { return hbmCapacity; }
    long resident() { return hbm.size() + privateBlocks; }
    /** Blocks held by some request (resident minus unreferenced cached ones). */
    long referenced() { return resident() - freeCount; }
    /** Blocks the running batch holds (a block several running requests share counts once). */
    long heldByRunning() { return heldByRunning; }
    long cpuResident() { return cpu.size(); }
    long nvmeResident() { return nvme.size(); }
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

    /**
     * Contiguous blocks of {@code hashes} from {@code from}, stopping before {@code max}, that the CPU or the
     * NVMe tier holds (the CPU tier's copy is the one loaded where both hold a block); adds each block to
     * {@code perTier[tier ordinal]} when {@code perTier} is not null. Returns how many.
     */
    int matchOffloaded(long[] hashes, int from, int max, int[] perTier) {
        if (cpuCapacity == 0) {
            return 0;
        }
        int i = from;
        while (i < max) {
            Tier t = offloadedTier(hashes[i]);
            if (t == null) {
                break;
            }
            if (perTier != null) {
                perTier[t.ordinal()]++;
            }
            i++;
        }
        return i - from;
    }

    /** The tier a load of {@code hash} reads from: CPU, else NVMe, else null. */
    Tier offloadedTier(long hash) {
        if (cpu.containsKey(hash)) {
            return Tier.CPU;
        }
        return nvmeCapacity > 0 && nvme.containsKey(hash) ? Tier.NVME : null;
    }

    /** Pins the offloaded blocks {@code [from, to)} of {@code hashes} a load is about to read (see the class comment). */
    void pinOffloaded(long[] hashes, int from, int to) {
        for (int i = from; i < to; i++) {
            pinned.merge(hashes[i], 1, Integer::sum);
        }
    }

    /** The load of {@code [from, to)} is done (or did not start): its blocks may leave their tiers again. */
    void unpinOffloaded(long[] hashes, int from, int to) {
        for (int i = from; i < to; i++) {
            pinned.computeIfPresent(hashes[i], (h, n) -> n == 1 ? null : n - 1);
        }
    }

    /** Marks the offloaded blocks a load reads as used (LRU in the tier each is read from). */
    void touchOffloaded(long[] hashes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (cpu.get(hashes[i]) == null && nvmeCapacity > 0) {
                nvme.get(hashes[i]);
            }
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

    /** A running request holds {@code b} (named) or, with {@code b} null, one private block: the decode step reads it. */
    void runningHolds(Block b) {
        if (b == null || b.runningRefs++ == 0) {
            heldByRunning++;
        }
    }

    /** The running request that held {@code b} (or a private block, {@code b} null) leaves the batch. */
    void runningReleases(Block b) {
        if (b == null || --b.runningRefs == 0) {
            heldByRunning--;
        }
    }

    /**
     * Whether admitting a request that matched {@code hits} (its computed HBM prefix, in order) and needs
     * {@code newBlocks} more can get them now: the free slots and evictable blocks, less the matched blocks that are
     * themselves evictable (acquiring one takes it out of the eviction list). Touches nothing, so a request that does
     * not fit leaves the LRU order as it was (vLLM's allocate_slots checks before it touches the blocks it matched).
     */
    boolean canAdmit(long[] hashes, int hits, long newBlocks) {
        long evictableHits = 0;
        for (int j = 0; j < hits; j++) {
            if (hbm.get(hashes[j]).inFreeList) {
                evictableHits++;
            }
        }
        return canReserve(newBlocks + evictableHits);
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
            long[] dropped = overflow(cpu, cpuCapacity);
            if (dropped.length == 0) {
                return; // every block over capacity is being loaded
            }
            if (nvmeCapacity == 0) {
                sink.accept(new KvEvent.Removed(worker, Tier.CPU, dropped));
            } else {
                offloadToNvme(dropped);
            }
        }
    }

    /** Blocks leaving the CPU tier: moved to the drive, or removed where it already holds them. */
    private void offloadToNvme(long[] fromCpu) {
        long[] moved = new long[fromCpu.length];
        long[] removed = new long[fromCpu.length];
        int m = 0;
        int r = 0;
        for (long h : fromCpu) {
            if (nvme.containsKey(h)) { // the CPU tier's coldest block keeps its place in the drive's LRU
                removed[r++] = h;
            } else {
                nvme.put(h, Boolean.TRUE);
                moved[m++] = h;
            }
        }
        if (r > 0) {
            sink.accept(new KvEvent.Removed(worker, Tier.CPU, java.util.Arrays.copyOf(removed, r)));
        }
        if (m > 0) {
            sink.accept(new KvEvent.Moved(worker, Tier.CPU, Tier.NVME, java.util.Arrays.copyOf(moved, m)));
        }
        if (nvme.size() > nvmeCapacity) {
            long[] dropped = overflow(nvme, nvmeCapacity);
            if (dropped.length > 0) {
                sink.accept(new KvEvent.Removed(worker, Tier.NVME, dropped));
            }
        }
    }

    /** Takes the least recently used blocks over {@code capacity} out of {@code tier}, passing over pinned ones. */
    private long[] overflow(LinkedHashMap<Long, Boolean> tier, long capacity) {
        long[] out = new long[(int) (tier.size() - capacity)];
        int n = 0;
        Iterator<Map.Entry<Long, Boolean>> it = tier.entrySet().iterator();
        while (n < out.length && it.hasNext()) {
            long h = it.next().getKey();
            if (!pinned.containsKey(h)) {
                out[n++] = h;
                it.remove();
            }
        }
        return n == out.length ? out : java.util.Arrays.copyOf(out, n);
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

    boolean nvmeHolds(long hash) {
        return nvme.containsKey(hash);
    }
}
