package io.tierroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Defect 5: an Azure row is compared with the row before it, not only with the first. */
class AzureReaderOrderTest {

    private static final String HEADER = "TIMESTAMP,ContextTokens,GeneratedTokens";

    @TempDir
    Path dir;

    @Test
    void aRowEarlierThanThePreviousButLaterThanTheFirstIsRefused() {
        Path p = TraceLoading.write(dir, "azure.csv", HEADER, "2023-11-16 18:15:46.0000000,374,44",
                "2023-11-16 18:15:50.0000000,396,109", "2023-11-16 18:15:48.0000000,200,10");
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ":4: not sorted by time: TIMESTAMP 2023-11-16 18:15:48.0000000 is earlier than "
                        + "the previous row's 2023-11-16 18:15:50.0000000");
    }

    @Test
    void lessThanAMicrosecondEarlierIsStillEarlier() {
        // The raw times are compared: both rows truncate to the same microsecond.
        Path p = TraceLoading.write(dir, "azure.csv", HEADER, "2023-11-16 18:15:46.0000000,374,44",
                "2023-11-16 18:15:47.0000009,396,109", "2023-11-16 18:15:47.0000001,200,10");
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(p + ":4: not sorted by time");
    }

    @Test
    void equalTimesAreInOrder() {
        Path p = TraceLoading.write(dir, "azure.csv", HEADER, "2023-11-16 18:15:46.0000000,374,44",
                "2023-11-16 18:15:46.0000000,396,109");
        assertThat(TraceLoading.load(p)).hasSize(2);
    }

    @Test
    void theTwentyTwentyFourTracesTimesWithAnOffsetAreRead() {
        // the 2024 traces stamp rows with a UTC offset; an offset other than 0 moves the instant, as it says
        Path p = TraceLoading.write(dir, "azure2024.csv", HEADER, "2024-05-10 00:00:00.009930+00:00,374,44",
                "2024-05-10 00:00:01.509930+00:00,396,109", "2024-05-10 02:00:02.009930+02:00,200,10");
        assertThat(TraceLoading.load(p)).extracting(io.tierroute.sim.policy.SimRequest::arrivalMicros).containsExactly(0L, 1_500_000L, 2_000_000L);
        Path earlier = TraceLoading.write(dir, "offsets.csv", HEADER, "2024-05-10 00:00:05+00:00,374,44",
                "2024-05-10 01:00:00+02:00,396,109");
        assertThatThrownBy(() -> TraceLoading.load(earlier)).hasMessageContaining("not sorted by time");
    }
}
