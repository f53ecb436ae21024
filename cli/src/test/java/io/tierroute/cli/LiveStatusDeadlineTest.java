package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code --duration} counts the replay: the demo submits its fitting job between the replay's start and the loop. */
class LiveStatusDeadlineTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void theDurationCountsFromTheReplaysStartNotFromTheLoop() {
        long replayStarted = 100 * SECOND;
        long loopStarts = replayStarted + 7 * SECOND; // the fitting job took 7 s to submit
        assertThat(LiveStatus.deadlineNanos(Duration.ofSeconds(30), replayStarted, loopStarts))
                .isEqualTo(130 * SECOND);
    }

    @Test
    void beforeTheReplayStartsTheDurationCountsFromNow() {
        assertThat(LiveStatus.deadlineNanos(Duration.ofSeconds(30), 0, 5 * SECOND)).isEqualTo(35 * SECOND);
    }

    @Test
    void withoutADurationThereIsNoDeadline() {
        assertThat(LiveStatus.deadlineNanos(null, 100 * SECOND, 107 * SECOND)).isEqualTo(Long.MAX_VALUE);
    }
}
