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
}
