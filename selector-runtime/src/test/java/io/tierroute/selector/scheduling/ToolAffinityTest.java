package io.tierroute.selector.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Warm tools per worker: hits while warm, expiry, and the cap that bounds a client naming ever new tools. */
class ToolAffinityTest {
    private static final long WARM = 1_000;

    @Test
    void aToolIsWarmOnTheWorkerItWasSentToUntilItsTimeIsUp() {
        ToolAffinity a = new ToolAffinity(2, WARM);
        a.routed(0, List.of("sql", "search"), 0);
        assertThat(a.hits(0, List.of("sql", "search", "shell"), WARM - 1)).isEqualTo(2);
        assertThat(a.hits(1, List.of("sql"), 0)).as("another worker").isZero();
        assertThat(a.hits(0, List.of("sql"), WARM)).as("cold at its time").isZero();
        a.expire(WARM);
        assertThat(a.size(0)).isZero();
    }

    @Test
    void pastTheCapTheWarmestHalfIsKeptSoTheSortIsRare() {
        ToolAffinity a = new ToolAffinity(1, 1_000_000);
        int n = ToolAffinity.MAX_TOOLS_PER_WORKER;
        for (int i = 0; i < n; i++) {
            a.routed(0, List.of("t" + i), i); // t(i) warm until 1,000,000 + i: later ones are warmer
        }
        assertThat(a.size(0)).as("at the cap: nothing forgotten").isEqualTo(n);
        a.routed(0, List.of("one-more"), n);
        assertThat(a.size(0)).isEqualTo(ToolAffinity.KEEP_AFTER_PRUNING);
        assertThat(a.hits(0, List.of("one-more", "t" + (n - 1)), n)).as("the warmest stay").isEqualTo(2);
        assertThat(a.hits(0, List.of("t0", "t" + (n / 2)), n)).as("the coldest half went").isZero();
        List<String> batch = new ArrayList<>();
        for (int i = 0; i < 256; i++) {
            batch.add("new" + i);
        }
        a.routed(0, batch, n + 1);
        assertThat(a.size(0)).as("room for 2,048 new tools before the next pruning")
                .isEqualTo(ToolAffinity.KEEP_AFTER_PRUNING + 256);
    }
}
