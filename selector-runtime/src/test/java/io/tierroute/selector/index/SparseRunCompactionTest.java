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

    /**
     * Per chain: its head a run of its own (worker 1 holds it too; stored before the chain, or after it and split off),
     * a walk that hints head -> the rest, then worker 0 evicts all but its first {@code kept} blocks.
     */
    private static RunPrefixIndex evictedBehindHintedHeads(int chains, int length, boolean headFirst, int kept) {
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).build();
        for (int c = 0; c < chains; c++) {
            long[] hashes = chain(c, length);
            KvEvent.Stored head = new KvEvent.Stored(1, Tier.HBM, false, 0, new long[] {hashes[0]});
            if (headFirst) {
                index.apply(head);
            }
            index.apply(new KvEvent.Stored(0, Tier.HBM, false, 0, hashes));
            if (!headFirst) {
                index.apply(head);
            }
            assertThat(depth(index, hashes, 0, Tier.HBM)).isEqualTo(length); // the walk hints head -> the rest
            index.apply(new KvEvent.Removed(0, Tier.HBM, Arrays.copyOfRange(hashes, kept, length)));
        }
        assertThat(index.blockCount()).isEqualTo((long) kept * chains);
        return index;
    }

    @Test
    void hintsToEvictedRunsDoNotKeepTheirStorage() {
        RunPrefixIndex index = evictedBehindHintedHeads(200, 8_192, false, 1);
        assertThat(index.arraySlots()).as("storage reachable from live runs, their hints included")
                .isLessThanOrEqualTo(200L * RunLayout.COMPACT_MIN_ARRAY);
        assertThat(depth(index, chain(7, 8_192), 0, Tier.HBM)).isEqualTo(1);
    }

    @Test
    void hintsToARunEvictedDownToItsFirstBlockDoNotKeepItsStorage() {
        // found in review: the blocks dropped from a run that lives on were not counted towards the sweep, so a chain
        // evicted down to its first block (the engine's leaf-first order) left the sweep undue for good
        RunPrefixIndex index = evictedBehindHintedHeads(2_000, 513, true, 2);
        assertThat(index.arraySlots()).as("storage reachable from live runs, their hints included")
                .isLessThanOrEqualTo(2L * 2_000 * RunLayout.COMPACT_MIN_ARRAY);
    }

    @Test
    void aNewRunDoesNotStartInASpareTailTooSmallForIt() {
        // found in review: it took any spare tail and grew from there by doubling (16,389 slots for 10,002 blocks)
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).build();
        long[] c = chain(8, 10_002);
        index.apply(new KvEvent.Stored(1, Tier.HBM, false, 0, new long[] {c[1]})); // c[1] held by worker 1 only
        long before = index.arraySlots();
        index.apply(new KvEvent.Stored(0, Tier.HBM, false, 0, c)); // c[0]: a 1-block run; then 10,000 new blocks
        assertThat(index.blockCount()).isEqualTo(c.length);
        assertThat(index.arraySlots() - before).as("slots for the %d new blocks", c.length - 1)
                .isLessThanOrEqualTo(c.length - 1 + RunLayout.COMPACT_MIN_ARRAY);
        assertThat(depth(index, c, 0, Tier.HBM)).isEqualTo(c.length);
    }

    @Test
    void oneStoreOverAChainWithHolesTakesStorageForItsNewBlocksOnly() {
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).build();
        int n = 4_096;
        long[] c = chain(3, n);
        index.apply(new KvEvent.Stored(0, Tier.HBM, false, 0, c));
        long[] even = new long[n / 2];
        for (int i = 0; i < n / 2; i++) {
            even[i] = c[2 * i];
        }
        index.apply(new KvEvent.Removed(0, Tier.HBM, even)); // holes: worker 0 keeps the odd blocks
        long before = index.arraySlots();
        index.apply(new KvEvent.Stored(1, Tier.HBM, false, 0, c)); // each hole starts a new run
        assertThat(index.blockCount()).isEqualTo(n);
        assertThat(index.arraySlots() - before).as("slots for the %d new blocks", n / 2).isLessThanOrEqualTo(2L * n);
        assertThat(depth(index, c, 1, Tier.HBM)).isEqualTo(n);
        assertThat(depth(index, c, 0, Tier.HBM)).isZero();
    }

    @Test
    void aNewBlockBeforeIndexedOnesGetsASmallArray() {
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).build();
        long[] c = chain(4, 8_192);
        index.apply(new KvEvent.Stored(0, Tier.HBM, true, c[0], Arrays.copyOfRange(c, 1, c.length)));
        long before = index.arraySlots();
        index.apply(new KvEvent.Stored(1, Tier.HBM, false, 0, c)); // only block 0 is new
        assertThat(index.arraySlots() - before).isLessThan(RunLayout.COMPACT_MIN_ARRAY);
        assertThat(depth(index, c, 1, Tier.HBM)).isEqualTo(c.length);
    }

    @Test
    void duplicatesInsideOneEventDoNotMultiplyStorage() {
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).build();
        int groups = 1_024;
        long[] event = new long[4 * groups]; // c, d, e, d: the repeated d ends each group's run
        for (int g = 0; g < groups; g++) {
            long[] abc = chain(5_000 + g, 3);
            System.arraycopy(new long[] {abc[0], abc[1], abc[2], abc[1]}, 0, event, 4 * g, 4);
        }
        index.apply(new KvEvent.Stored(0, Tier.HBM, false, 0, event));
        assertThat(index.blockCount()).isEqualTo(3L * groups);
        assertThat(index.arraySlots()).isLessThanOrEqualTo(2L * event.length);
        assertThat(depth(index, chain(5_000, 3), 0, Tier.HBM)).isEqualTo(3);
    }

    @Test
    void aMovedHalfDoesNotKeepTheEvictedHalfsStorage() {
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).build();
        long[] c = chain(6, 1_000);
        index.apply(new KvEvent.Stored(0, Tier.HBM, false, 0, c));
        index.apply(new KvEvent.Moved(0, Tier.HBM, Tier.CPU, Arrays.copyOfRange(c, 500, 1_000)));
        index.apply(new KvEvent.Removed(0, Tier.HBM, Arrays.copyOf(c, 500))); // the HBM half is evicted
        assertThat(index.blockCount()).isEqualTo(500);
        assertThat(index.arraySlots()).as("the CPU half's storage").isEqualTo(500);
        assertThat(depth(index, Arrays.copyOfRange(c, 500, 1_000), 0, Tier.CPU)).isEqualTo(500);
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
