package io.tierroute.sim.workload;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which blocks of a prompt built from segments share their ids with another prompt's. */
class BlockIdsTest {

    private static final int BLOCK = 16;

    @Test
    void aBlockTwoSharedSegmentsFillIsSharedWhateverThePrivateIds() {
        long[] a = new BlockIds(BLOCK, 1_000).shared(1, 20).shared(2, 30).unique(10).ids();
        long[] b = new BlockIds(BLOCK, 9_000).shared(1, 20).shared(2, 30).unique(10).ids();
        // 60 tokens: blocks 0-2 hold segments 1 and 2 only (block 1 mixes both), block 3 ends in private tokens
        assertThat(a).hasSize(3);
        assertThat(a).isEqualTo(b);
        assertThat(a[1]).isNotEqualTo(a[0]).isNotEqualTo(a[2]);
    }

    @Test
    void aBlockThatMixesInPrivateTokensIsPrivate() {
        long[] a = new BlockIds(BLOCK, 1_000).shared(1, 20).unique(20).ids();
        long[] b = new BlockIds(BLOCK, 9_000).shared(1, 20).unique(20).ids();
        assertThat(a[0]).isEqualTo(b[0]);
        assertThat(a[1]).isNotEqualTo(b[1]); // segment 1's tail and private tokens
        // Private tokens, then a shared segment: the block they share stays private.
        long[] c = new BlockIds(BLOCK, 1_000).unique(8).shared(1, 40).ids();
        long[] d = new BlockIds(BLOCK, 9_000).unique(8).shared(1, 40).ids();
        assertThat(c[0]).isNotEqualTo(d[0]);
        assertThat(c[1]).isEqualTo(d[1]); // wholly segment 1, at the same offset
    }

    @Test
    void theSameSegmentsInAnotherOrderOrLengthMakeAnotherMixedBlock() {
        long[] a = new BlockIds(BLOCK, 1_000).shared(1, 20).shared(2, 30).ids();
        long[] b = new BlockIds(BLOCK, 1_000).shared(2, 20).shared(1, 30).ids();
        long[] c = new BlockIds(BLOCK, 1_000).shared(1, 24).shared(2, 26).ids();
        assertThat(a[1]).isNotEqualTo(b[1]).isNotEqualTo(c[1]);
    }

    @Test
    void aSegmentWithinOneBlockIsPartOfItsKey() {
        long[] a = new BlockIds(BLOCK, 1_000).shared(1, 10).shared(2, 3).shared(3, 10).ids();
        long[] b = new BlockIds(BLOCK, 9_000).shared(1, 10).shared(2, 3).shared(3, 10).ids();
        long[] c = new BlockIds(BLOCK, 1_000).shared(1, 10).shared(4, 3).shared(3, 10).ids();
        assertThat(a).hasSize(1).isEqualTo(b);
        assertThat(c[0]).isNotEqualTo(a[0]);
    }

    @Test
    void aForkKeepsThePartialBlocksContent() {
        BlockIds base = new BlockIds(BLOCK, 1_000).shared(1, 20);
        long[] forked = base.fork(5_000).shared(2, 12).ids();
        long[] straight = new BlockIds(BLOCK, 7_000).shared(1, 20).shared(2, 12).ids();
        assertThat(forked).isEqualTo(straight);
    }
}
