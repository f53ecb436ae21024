package io.tierroute.selector.kafka;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RestartBackoffTest {

    @Test
    void failingSessionsWaitTwiceAsLongUpToTheCap() {
        RestartBackoff b = new RestartBackoff();
        long[] waits = new long[7];
        for (int i = 0; i < waits.length; i++) {
            b.sessionStarts();
            waits[i] = b.afterFailure();
        }
        assertThat(waits).containsExactly(1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000);
    }
}
