package io.tierroute.selector.index;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PrefixIndex#releaseRouted} withdraws the approximate entries one {@code recordRouted} made, and nothing else:
 * not an event's entry on the same block, not an entry a later insert extended, not another worker's. Both indexes
 * (DifferentialTest checks they agree on random streams of releases too).
 */
class ReleaseRoutedTest {

    private static final long TTL = 100;
    private static final long[] CHAIN = {11, 12, 13, 14};

    private static PrefixIndex index(String kind) {
        IntFunction<PrefixIndex> make = kind.equals("run") ? w -> RunPrefixIndex.builder().workers(w).build()
                : NaiveReferenceIndex::new;
        return make.apply(3);
    }

    private static int depth(PrefixIndex index, int worker, long now) {
        PrefixMatch m = new PrefixMatch(3);
        index.match(CHAIN, CHAIN.length, now, m);
        return m.cumulativeBlocks(worker, Tier.REMOTE.ordinal());
    }

    @ParameterizedTest
    @ValueSource(strings = {"run", "naive"})
    void aReleaseDropsThatInsertsEntriesAlone(String kind) {
        PrefixIndex index = index(kind);
        index.apply(new KvEvent.Stored(1, Tier.HBM, false, 0, new long[] {11})); // the engine's word on block 0
        index.recordRouted(1, CHAIN, 4, 0, TTL);
        index.recordRouted(2, CHAIN, 4, 0, TTL); // another worker, the same blocks and expiry
        index.recordRouted(0, CHAIN, 2, 0, TTL);
        index.recordRouted(0, CHAIN, 2, 10, TTL); // refreshed by a later insert: no longer the first one's
        index.recordRouted(0, new long[] {13, 14}, 2, 0, TTL);
        assertThat(depth(index, 1, 5)).isEqualTo(4);

        index.releaseRouted(1, CHAIN, 4, 0, TTL);
        assertThat(depth(index, 1, 5)).as("the stored block stays").isEqualTo(1);
        assertThat(depth(index, 2, 5)).as("another worker's entries stay").isEqualTo(4);

        index.releaseRouted(0, CHAIN, 4, 0, TTL);
        assertThat(depth(index, 0, 5)).as("the refreshed entries stay, the rest go").isEqualTo(2);
        assertThat(depth(index, 0, 110)).as("until their own expiry").isZero();

        index.releaseRouted(2, CHAIN, 4, 1, TTL); // not what any insert gave it: nothing
        assertThat(depth(index, 2, 5)).isEqualTo(4);
        index.releaseRouted(2, CHAIN, 4, 0, TTL);
        index.releaseRouted(0, CHAIN, 2, 10, TTL);
        assertThat(index.blockCount()).as("only the stored block is left").isEqualTo(1);
    }
}
