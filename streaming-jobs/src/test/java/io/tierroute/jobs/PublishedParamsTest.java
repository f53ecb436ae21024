package io.tierroute.jobs;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class PublishedParamsTest {

    @Test
    void tombstonesSplitTheLiveRangesAndARepublicationJoinsThem() {
        PublishedParams.Builder b = new PublishedParams.Builder();
        for (long v = 1; v <= 10; v++) {
            b.snapshot("default", v);
        }
        b.tombstone("default", 3);
        for (long v = 5; v <= 7; v++) {
            b.tombstone("default", v);
        }
        b.tombstone("default", 42); // a tombstone of a version never seen (compacted away): newest moves, nothing live
        PublishedParams p = b.build();

        assertThat(p.live().get("default")).containsExactly(1, 2, 4, 4, 8, 10);
        assertThat(p.newest()).isEqualTo(Map.of("default", 42L));

        b.snapshot("default", 3);
        assertThat(b.build().live().get("default")).containsExactly(1, 4, 8, 10);
    }

    @Test
    void aVersionIsStillPublishedWhenLiveAtStartOrNewerThanTheRead() {
        PublishedParams.Builder b = new PublishedParams.Builder();
        for (long v = 1; v <= 10; v++) {
            b.snapshot("default", v);
        }
        b.tombstone("default", 4);
        PublishedParams p = b.build();

        assertThat(still(p, "default", 3)).isTrue();
        assertThat(still(p, "default", 4)).as("deleted").isFalse();
        assertThat(still(p, "default", 10)).isTrue();
        assertThat(still(p, "default", 11)).as("published by this run after the read").isTrue();
        assertThat(still(p, "other", 1)).as("a scope the topic never held: all its versions are this run's").isTrue();
        assertThat(still(PublishedParams.NONE, "default", 1)).isTrue();
    }

    /** Against a set of live versions, over random interleavings of snapshots and tombstones. */
    @Test
    void matchesANaiveSetOfLiveVersions() {
        Random random = new Random(11);
        for (int round = 0; round < 200; round++) {
            PublishedParams.Builder b = new PublishedParams.Builder();
            Set<Long> live = new HashSet<>();
            long newest = 0;
            for (int i = 0; i < 300; i++) {
                long v = 1 + random.nextInt(120);
                newest = Math.max(newest, v);
                if (random.nextInt(3) == 0) {
                    b.tombstone("s", v);
                    live.remove(v);
                } else {
                    b.snapshot("s", v);
                    live.add(v);
                }
            }
            PublishedParams p = b.build();
            long[] ranges = p.live().getOrDefault("s", new long[0]);
            for (int i = 2; i < ranges.length; i += 2) {
                assertThat(ranges[i]).as("round %d: disjoint, not adjacent, ascending", round)
                        .isGreaterThan(ranges[i - 1] + 1);
            }
            for (long v = 1; v <= 125; v++) {
                assertThat(still(p, "s", v)).as("round %d, version %d", round, v).isEqualTo(live.contains(v) || v > newest);
            }
        }
    }

    private static boolean still(PublishedParams p, String scope, long version) {
        return PublishedParams.stillPublished(p.newest(), p.live(), scope, version);
    }
}
