package io.tierroute.selector.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The hash storage follows the blocks indexed, not the events that brought them: an engine that evicts a chain leaf
 * first (Stored of a long chain, then Removed of all but its head) must not leave each head holding the whole chain's
 * array.
 */
class SparseRunCompactionTest {

    private static long[] chain(long base, int n) {
        long[] c = new long[n];
        for (int i = 0; i < n; i++) {
            c[i] = base * 1_000_000 + i + 1;
        }
        return c;
    }

    private static int depth(RunPrefixIndex index, long[] hashes, int worker, Tier tier) {
        PrefixMatch m = new PrefixMatch(index.workers());
        index.match(hashes, hashes.length, 0, m);
        return m.cumulativeBlocks(worker, tier.ordinal());
    }

    @Test
    void chainsEvictedDownToTheirHeadsKeepOnlyTheirHeadsStorage() {
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).build();
        int chains = 200;
        int length = 8_192;
        for (int c = 0; c < chains; c++) {
            long[] hashes = chain(c, length);
            index.apply(new KvEvent.Stored(0, Tier.HBM, false, 0, hashes));
            index.apply(new KvEvent.Removed(0, Tier.HBM, Arrays.copyOfRange(hashes, 1, length)));
        }
        assertThat(index.blockCount()).isEqualTo(chains);
        assertThat(index.arraySlots()).as("about one small array per head, not 8,192 slots each")
                .isLessThanOrEqualTo((long) chains * RunLayout.COMPACT_MIN_ARRAY);
        assertThat(depth(index, chain(7, length), 0, Tier.HBM)).isEqualTo(1);
    }

    @Test
    void aCompactedRunStillGrowsItsChainAndSplitsCorrectly() {
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).build();
        long[] hashes = chain(1, 1_000);
        index.apply(new KvEvent.Stored(0, Tier.HBM, false, 0, hashes));
        // Moved to CPU except the first 10 blocks: the HBM head (10 of 1,000 slots) gets an array of its own.
        index.apply(new KvEvent.Moved(0, Tier.HBM, Tier.CPU, Arrays.copyOfRange(hashes, 10, 1_000)));
        assertThat(depth(index, hashes, 0, Tier.HBM)).isEqualTo(10);
        assertThat(depth(index, hashes, 0, Tier.CPU)).isEqualTo(1_000);
        // The engine loads the next 20 back into HBM as a chain continuing from block 10.
        index.apply(new KvEvent.Moved(0, Tier.CPU, Tier.HBM, Arrays.copyOfRange(hashes, 10, 30)));
        assertThat(depth(index, hashes, 0, Tier.HBM)).isEqualTo(30);
        // Worker 1 stores the first 5: the head splits again.
        index.apply(new KvEvent.Stored(1, Tier.HBM, false, 0, Arrays.copyOf(hashes, 5)));
        assertThat(depth(index, hashes, 1, Tier.HBM)).isEqualTo(5);
        assertThat(depth(index, hashes, 0, Tier.HBM)).isEqualTo(30);
        assertThat(index.blockCount()).isEqualTo(1_000);
    }
}
