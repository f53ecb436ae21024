package io.tierroute.sim.engine;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class KvCacheTest {

    private final List<KvEvent> events = new ArrayList<>();

    private Block[] hold(KvCache c, long... hashes) {
        Block[] out = new Block[hashes.length];
        for (int i = 0; i < hashes.length; i++) {
            assertThat(c.reserve(1)).isTrue();
            out[i] = c.allocNamed(hashes[i]);
            out[i].computed = true;
        }
        return out;
    }

    private static void releaseDeepestFirst(KvCache c, Block[] blocks) {
        for (int i = blocks.length - 1; i >= 0; i--) {
            c.release(blocks[i]);
        }
    }

    @Test
    void evictsTheLeastRecentlyFreedLeafFirstAndMovesItToCpu() {
        KvCache c = new KvCache(0, 5, 2, events::add);
        Block[] a = hold(c, 1, 2, 3);
        Block[] b = hold(c, 10, 11);
        releaseDeepestFirst(c, a);      // a freed first: 3, 2, 1
        releaseDeepestFirst(c, b);      // then 11, 10
        assertThat(c.evictionOrder()).containsExactly(3, 2, 1, 11, 10);

        // Reusing block 1 (a hit) takes it off the list; releasing it again puts it last.
        c.acquire(c.get(1));
        c.release(c.get(1));
        assertThat(c.evictionOrder()).containsExactly(3, 2, 11, 10, 1);

        assertThat(c.reserve(3)).isTrue(); // full (5 resident): evicts 3, 2, 11
        assertThat(c.evictionOrder()).containsExactly(10, 1);
        assertThat(c.matchHbm(new long[] {1, 2, 3}, 3)).isEqualTo(1);
        // CPU holds 2 blocks: 3 and 2 moved there, then 11 moved and 3 (the CPU's LRU) dropped.
        KvEvent.Moved moved = (KvEvent.Moved) events.get(0);
        assertThat(moved.from()).isEqualTo(Tier.HBM);
        assertThat(moved.to()).isEqualTo(Tier.CPU);
        assertThat(moved.blockHashes()).containsExactly(3, 2, 11);
        KvEvent.Removed dropped = (KvEvent.Removed) events.get(1);
        assertThat(dropped.tier()).isEqualTo(Tier.CPU);
        assertThat(dropped.blockHashes()).containsExactly(3);
        assertThat(c.cpuHolds(2)).isTrue();
        assertThat(c.cpuHolds(3)).isFalse();
    }

    @Test
    void referencedBlocksAreNeverEvicted() {
        KvCache c = new KvCache(0, 3, 0, events::add);
        Block[] a = hold(c, 1, 2, 3);
        assertThat(c.canReserve(1)).isFalse();
        assertThat(c.reserve(1)).isFalse();
        c.release(a[2]);
        assertThat(c.reserve(1)).isTrue();
        assertThat(c.get(3)).isNull();
        assertThat(((KvEvent.Removed) events.get(0)).blockHashes()).containsExactly(3);
        assertThat(c.referenced()).isEqualTo(2);
    }

    @Test
    void anUncomputedBlockIsNotMatchableAndADuplicateGetsAPrivateBlock() {
        KvCache c = new KvCache(0, 4, 0, events::add);
        c.reserve(1);
        Block first = c.allocNamed(7);
        assertThat(c.matchHbm(new long[] {7}, 1)).isZero();
        c.reserve(1);
        assertThat(c.allocNamed(7)).isNull(); // being computed by another request
        assertThat(c.resident()).isEqualTo(2);
        first.computed = true;
        assertThat(c.matchHbm(new long[] {7}, 1)).isEqualTo(1);
    }

    @Test
    void theCpuTiersEvictionsMoveToNvmeAndTheDrivesOverflowIsRemoved() {
        // HBM 2 blocks, CPU 2, NVMe 2: each new pair of blocks pushes the previous ones down a tier
        KvCache c = new KvCache(0, 2, 2, 2, events::add);
        releaseDeepestFirst(c, hold(c, 1, 2));
        releaseDeepestFirst(c, hold(c, 3, 4)); // 2, 1 → CPU
        releaseDeepestFirst(c, hold(c, 5, 6)); // 4, 3 → CPU; 2, 1 (CPU's LRU) → NVMe
        assertThat(c.cpuHolds(3)).isTrue();
        assertThat(c.nvmeHolds(1)).isTrue();
        assertThat(c.nvmeHolds(2)).isTrue();
        events.clear();
        assertThat(c.reserve(2)).isTrue();     // 6, 5 → CPU; 4, 3 → NVMe; 2, 1 (NVMe's LRU) removed
        assertThat(events).hasSize(3);
        KvEvent.Moved toCpu = (KvEvent.Moved) events.get(0);
        assertThat(toCpu.from()).isEqualTo(Tier.HBM);
        assertThat(toCpu.blockHashes()).containsExactly(6, 5);
        KvEvent.Moved toNvme = (KvEvent.Moved) events.get(1);
        assertThat(toNvme.from()).isEqualTo(Tier.CPU);
        assertThat(toNvme.to()).isEqualTo(Tier.NVME);
        assertThat(toNvme.blockHashes()).containsExactly(4, 3);
        KvEvent.Removed gone = (KvEvent.Removed) events.get(2);
        assertThat(gone.tier()).isEqualTo(Tier.NVME);
        assertThat(gone.blockHashes()).containsExactly(2, 1);
        assertThat(c.cpuResident()).isEqualTo(2);
        assertThat(c.nvmeResident()).isEqualTo(2);
    }

    @Test
    void anOffloadedMatchRunsAcrossTheCpuAndNvmeTiersPreferringTheCpuCopy() {
        KvCache c = new KvCache(0, 3, 1, 4, events::add);
        releaseDeepestFirst(c, hold(c, 1, 2, 3));
        assertThat(c.reserve(3)).isTrue();     // 3, 2, 1 → CPU; it keeps 1, the drive takes 3 and 2
        int[] perTier = new int[Tier.COUNT];
        long[] prompt = {1, 2, 3, 99};
        assertThat(c.matchOffloaded(prompt, 0, 4, perTier)).isEqualTo(3);
        assertThat(perTier[Tier.CPU.ordinal()]).isEqualTo(1);
        assertThat(perTier[Tier.NVME.ordinal()]).isEqualTo(2);
        assertThat(c.matchOffloaded(prompt, 0, 2, null)).as("stops before max").isEqualTo(2);
        assertThat(c.cpuHolds(1) && !c.cpuHolds(2) && !c.cpuHolds(3)).as("the CPU tier alone holds only the first").isTrue();

        // a block the drive holds that comes back to HBM and is evicted again lands in the CPU tier as well
        releaseDeepestFirst(c, hold(c, 2));
        assertThat(c.reserve(3)).isTrue();     // 2 → CPU; 1 (the CPU's LRU) → the drive
        assertThat(c.cpuHolds(2)).isTrue();
        assertThat(c.nvmeHolds(2)).isTrue();
        assertThat(c.nvmeHolds(1)).isTrue();
        // leaving the CPU tier again, it is only removed there: the drive still holds it
        events.clear();
        releaseDeepestFirst(c, hold(c, 7));
        assertThat(c.reserve(3)).isTrue();     // 7 → CPU; 2 leaves it
        KvEvent.Removed fromCpu = (KvEvent.Removed) events.get(1);
        assertThat(fromCpu.tier()).isEqualTo(Tier.CPU);
        assertThat(fromCpu.blockHashes()).containsExactly(2);
        assertThat(events).hasSize(2);
        assertThat(c.nvmeResident()).isEqualTo(3);
    }

    @Test
    void withAnNvmeTierTheCpuTiersOverflowPassesOverTheBlocksALoadIsReading() {
        KvCache c = new KvCache(0, 2, 2, 10, events::add);
        releaseDeepestFirst(c, hold(c, 1, 2));
        assertThat(c.reserve(2)).isTrue();     // 2, 1 → CPU (full)
        c.pinOffloaded(new long[] {2, 1}, 0, 2);
        releaseDeepestFirst(c, hold(c, 3, 4));
        events.clear();
        assertThat(c.reserve(1)).isTrue();     // 4 → CPU, over capacity: 2 and 1 are being read, so 4 moves on
        assertThat(c.cpuHolds(1)).isTrue();
        assertThat(c.cpuHolds(2)).isTrue();
        assertThat(c.nvmeHolds(4)).isTrue();
        assertThat(((KvEvent.Moved) events.get(1)).blockHashes()).containsExactly(4);
        c.unpinOffloaded(new long[] {2, 1}, 0, 2);
        assertThat(c.reserve(2)).isTrue();     // 3 → CPU: now the LRU one moves on
        KvEvent.Moved last = (KvEvent.Moved) events.get(events.size() - 1);
        assertThat(last.to()).isEqualTo(Tier.NVME);
        assertThat(last.blockHashes()).containsExactly(2);
        assertThat(c.cpuHolds(3)).isTrue();
    }

    @Test
    void withoutAnNvmeTierTheCpuTiersOverflowPassesOverTheBlocksALoadIsReadingToo() {
        KvCache c = new KvCache(0, 2, 2, 0, events::add);
        releaseDeepestFirst(c, hold(c, 1, 2));
        assertThat(c.reserve(2)).isTrue();     // 2, 1 → CPU (full)
        c.pinOffloaded(new long[] {2, 1}, 0, 2);
        releaseDeepestFirst(c, hold(c, 3, 4));
        events.clear();
        assertThat(c.reserve(1)).isTrue();     // 4 → CPU, over capacity: 2 and 1 are being read, so 4 is the one removed
        assertThat(c.cpuHolds(1)).isTrue();
        assertThat(c.cpuHolds(2)).isTrue();
        assertThat(c.cpuHolds(4)).isFalse();
        KvEvent.Removed removed = (KvEvent.Removed) events.get(1);
        assertThat(removed.tier()).isEqualTo(Tier.CPU);
        assertThat(removed.blockHashes()).containsExactly(4);
        c.unpinOffloaded(new long[] {2, 1}, 0, 2);
        events.clear();
        assertThat(c.reserve(2)).isTrue();     // 3 → CPU: now the LRU one, 2, leaves
        assertThat(((KvEvent.Removed) events.get(events.size() - 1)).blockHashes()).containsExactly(2);
        assertThat(c.cpuHolds(3)).isTrue();
    }

    @Test
    void theRunningBatchsBlocksCountOnceEachAndPrivateOnesEachTime() {
        KvCache c = new KvCache(0, 8, 0, events::add);
        Block[] shared = hold(c, 1, 2);
        c.runningHolds(shared[0]);
        c.runningHolds(shared[1]);
        c.runningHolds(shared[0]);             // a second running request shares block 1
        c.allocPrivate(1);
        c.runningHolds(null);
        assertThat(c.heldByRunning()).isEqualTo(3);
        c.runningReleases(shared[0]);
        assertThat(c.heldByRunning()).isEqualTo(3);
        c.runningReleases(shared[0]);
        c.runningReleases(null);
        assertThat(c.heldByRunning()).isEqualTo(1);
        assertThat(c.referenced()).isEqualTo(3);  // the engine's KV usage still counts every held block
    }

    @Test
    void anAdmissionThatCannotGetItsBlocksIsToldSoWithoutTouchingTheLruOrder() {
        KvCache c = new KvCache(0, 4, 0, events::add);
        releaseDeepestFirst(c, hold(c, 1, 2));  // cached, evictable: 2, 1
        releaseDeepestFirst(c, hold(c, 3));
        Block[] busy = hold(c, 9);              // HBM full; 3 of its 4 slots can be freed
        assertThat(c.evictionOrder()).containsExactly(2, 1, 3);
        long[] prompt = {1, 2, 5, 6};
        // matching 1, 2 takes them out of the eviction list: only 3 remains to make room for new blocks
        assertThat(c.canAdmit(prompt, 2, 1)).isTrue();
        assertThat(c.canAdmit(prompt, 2, 2)).isFalse();
        assertThat(c.canAdmit(prompt, 0, 3)).isTrue();
        assertThat(c.canAdmit(prompt, 0, 4)).isFalse();
        assertThat(c.evictionOrder()).containsExactly(2, 1, 3);
        assertThat(busy[0].refs).isEqualTo(1);
    }
}
