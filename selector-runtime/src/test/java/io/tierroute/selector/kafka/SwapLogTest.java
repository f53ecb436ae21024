package io.tierroute.selector.kafka;

import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

import static org.assertj.core.api.Assertions.assertThat;

/** Which swaps an operator sees at INFO, and that routine ones are held to one INFO line a minute. */
class SwapLogTest {

    @Test
    void routineSwapsAreOneInfoLineAMinuteAndEveryOtherSwapIsInfo() {
        SwapLog swaps = new SwapLog("default");
        assertThat(swaps.swapped(1, 0, false, false, 0, 1_000)).as("the first").isEqualTo(Level.INFO);
        assertThat(swaps.swapped(2, 1, false, false, 0, 1_000)).as("the first routine one: none for a minute")
                .isEqualTo(Level.INFO);
        for (long v = 3; v <= 50; v++) {
            assertThat(swaps.swapped(v, v - 1, false, false, 0, 1_000)).as("routine " + v).isEqualTo(Level.DEBUG);
        }
        assertThat(swaps.swapped(60, 50, false, false, 0, 1_000)).as("a jump").isEqualTo(Level.INFO);
        assertThat(swaps.swapped(58, 60, false, true, 1, 1_000)).as("a pin (a rollback)").isEqualTo(Level.INFO);
        assertThat(swaps.swapped(59, 58, false, true, 1, 1_000)).as("next, but pinned").isEqualTo(Level.INFO);
        assertThat(swaps.swapped(61, 60, false, false, 2, 1_000)).as("after an unpin (a control record)")
                .isEqualTo(Level.INFO);
        assertThat(swaps.swapped(62, 61, true, false, 2, 1_000)).as("the first after a reset").isEqualTo(Level.INFO);
        assertThat(swaps.swapped(63, 62, false, false, 2, 1_000)).as("routine again, within the minute")
                .isEqualTo(Level.DEBUG);
    }
}
