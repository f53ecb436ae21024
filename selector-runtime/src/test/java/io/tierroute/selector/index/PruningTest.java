package io.tierroute.selector.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;

import org.junit.jupiter.api.Test;

/** The block cap: respected after every write, least recently used (stored or matched) runs go first. */
class PruningTest {

    private static long[] chain(long base, int n) {
        long[] c = new long[n];
        for (int i = 0; i < n; i++) {
            c[i] = base * 1000 + i + 1;
        }
        return c;
    }

    private static KvEvent.Stored store(int worker, long[] hashes) {
        return new KvEvent.Stored(worker, Tier.HBM, false, 0, hashes);
    }

    private static int depth(RunPrefixIndex index, long[] hashes, int worker) {
        PrefixMatch m = new PrefixMatch(index.workers());
        index.match(hashes, hashes.length, 0, m);
        return m.cumulativeBlocks(worker, Tier.HBM.ordinal());
    }

    @Test
    void capIsRespectedAfterEveryWrite() {
        RunPrefixIndex index = RunPrefixIndex.builder().workers(8).maxBlocks(500).pruneToFraction(0.8).build();
        Random rnd = new Random(7);
        for (int i = 0; i < 5_000; i++) {
            long[] c = chain(rnd.nextInt(400), 1 + rnd.nextInt(60));
            if (rnd.nextBoolean()) {
                index.apply(store(rnd.nextInt(8), c));
            } else {
                index.recordRouted(rnd.nextInt(8), c, c.length, i, 1000);
            }
            assertThat(index.blockCount()).isLessThanOrEqualTo(500);
        }
        assertThat(index.prunedBlocks()).isPositive();
    }

    @Test
    void leastRecentlyStoredIsPrunedFirst() {
        RunPrefixIndex index = RunPrefixIndex.builder().workers(4).maxBlocks(30).pruneToFraction(1.0).build();
        long[] a = chain(1, 10);
        long[] b = chain(2, 10);
        long[] c = chain(3, 10);
        index.apply(store(0, a));
        index.apply(store(1, b));
        index.apply(store(2, c));
        index.apply(store(3, chain(4, 10))); // 40 > 30: the oldest run (a) goes
        assertThat(index.blockCount()).isEqualTo(30);
        assertThat(depth(index, a, 0)).isZero();
        assertThat(depth(index, b, 1)).isEqualTo(10);
        assertThat(depth(index, c, 2)).isEqualTo(10);
    }

    @Test
    void aJustMatchedBlockSurvives() {
        RunPrefixIndex index = RunPrefixIndex.builder().workers(4).maxBlocks(30).pruneToFraction(1.0).build();
        long[] a = chain(1, 10);
        long[] b = chain(2, 10);
        long[] c = chain(3, 10);
        index.apply(store(0, a));
        index.apply(store(1, b));
        index.apply(store(2, c));
        assertThat(depth(index, a, 0)).isEqualTo(10); // a is now the most recently used
        index.apply(store(3, chain(4, 10)));
        assertThat(depth(index, a, 0)).isEqualTo(10);
        assertThat(depth(index, b, 1)).isZero();
        assertThat(depth(index, c, 2)).isEqualTo(10);
    }

    @Test
    void reStoringRefreshesUse() {
        RunPrefixIndex index = RunPrefixIndex.builder().workers(4).maxBlocks(30).pruneToFraction(1.0).build();
        long[] a = chain(1, 10);
        long[] b = chain(2, 10);
        index.apply(store(0, a));
        index.apply(store(1, b));
        index.apply(store(2, chain(3, 10)));
        index.apply(store(0, a)); // a stored again: used
        index.apply(store(3, chain(4, 10)));
        assertThat(depth(index, a, 0)).isEqualTo(10);
        assertThat(depth(index, b, 1)).isZero();
    }
}
