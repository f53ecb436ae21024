package io.tierroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import java.util.List;

/** Absurd values in a trace line are refused with the field named, before replay allocates for them. */
class TraceLimitsTest {

    @Test
    void anAzureLineClaimingTwoBillionContextTokensIsRefused() {
        assertThatThrownBy(() -> new AzureReader().parse("2023-11-16 18:15:46.6805900,2000000000,44", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ContextTokens");
    }

    @Test
    void aMooncakeLineWithAnOverflowingTimestampOrLengthIsRefused() {
        MooncakeReader r = new MooncakeReader();
        assertThatThrownBy(() -> r.parse("{\"timestamp\":9223372036854776,\"input_length\":5,\"output_length\":1,"
                + "\"hash_ids\":[1]}", null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timestamp");
        assertThatThrownBy(() -> r.parse("{\"timestamp\":1,\"input_length\":4294967297,\"output_length\":1,"
                + "\"hash_ids\":[1]}", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> r.parse("{\"timestamp\":1,\"input_length\":20000000,\"output_length\":1,"
                + "\"hash_ids\":[1]}", null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("input_length");
    }

    /** Epoch-stamped lines replay from 0, and a span past 366 days is refused: it overflowed or hung the replay. */
    @Test
    void mooncakeArrivalsCountFromTheFirstRecordAndSpanAtMost366Days() {
        MooncakeReader r = new MooncakeReader();
        TraceRecord first = r.parse(line(1_700_000_000_000L), null);
        TraceRecord second = r.parse(line(1_700_000_000_250L), first);
        assertThat(first.arrivalMicros()).isZero();
        assertThat(second.arrivalMicros()).isEqualTo(250_000);
        long past = 1_700_000_000_000L + 366L * 24 * 3600 * 1000 + 1;
        assertThatThrownBy(() -> r.parse(line(past), second)).hasMessage("field 'timestamp' must be within 366 days "
                + "(31622400000 ms) of the first record's, 1700000000000, got " + past);
        assertThatThrownBy(() -> r.parse(line(1_700_000_000_100L), second)).hasMessage("not sorted by time: timestamp "
                + "1700000000100 is earlier than the previous record's 1700000000250");
    }

    @Test
    void azureTimesThatAreNoDateAreRefusedNotMovedToTheNearestOne() {
        for (String bad : new String[] {"2023-02-30 10:00:00.0", "2023-02-31 10:00:00", "2023-11-16 24:00:00"}) {
            AzureReader r = new AzureReader();
            TraceRecord first = r.parse("2023-02-27 10:00:00.0,374,44", null);
            assertThatThrownBy(() -> r.parse(bad + ",374,44", first)).as(bad)
                    .hasMessage("column 'TIMESTAMP' must be a time like 2023-11-16 18:15:46.6805900 or 2024-05-10 00:00:00.009930+00:00, got \"" + bad + "\"");
        }
        AzureReader r = new AzureReader();
        TraceRecord first = r.parse("2024-02-28 23:59:59.5,374,44", null);
        assertThat(r.parse("2024-02-29 00:00:00,374,44", first).arrivalMicros()).as("a leap day is a day")
                .isEqualTo(500_000);
        assertThatThrownBy(() -> r.parse("2025-03-01 00:00:00,374,44", first)).hasMessage("column 'TIMESTAMP' must be "
                + "within 366 days of the first row's, 2024-02-28 23:59:59.5, got \"2025-03-01 00:00:00\"");
    }

    /** Equal stamps spread over the gap to the next: exact where gap × index would overflow a long. */
    @Test
    void spreadingEqualStampsDoesNotOverflow() {
        int k = 1_000;
        List<TraceRecord> records = new java.util.ArrayList<>();
        for (int i = 0; i < k; i++) {
            records.add(new TraceRecord(0, 1, 1, null));
        }
        records.add(new TraceRecord(TraceRecord.MAX_SPAN_MICROS, 1, 1, null));
        long[] at = TraceReplay.spread(records);
        for (int m = 0; m < k; m++) {
            long want = java.math.BigInteger.valueOf(TraceRecord.MAX_SPAN_MICROS).multiply(java.math.BigInteger.valueOf(m))
                    .divide(java.math.BigInteger.valueOf(k)).longValueExact();
            assertThat(at[m]).as("record " + m).isEqualTo(want);
        }
        assertThat(at[k]).isEqualTo(TraceRecord.MAX_SPAN_MICROS);
    }

    private static String line(long ms) {
        return "{\"timestamp\":" + ms + ",\"input_length\":5,\"output_length\":1,\"hash_ids\":[1]}";
    }

    @Test
    void theLimitLeavesRealTraceLinesAlone() {
        assertThat(new AzureReader().parse("2023-11-16 18:15:46.6805900,374,44", null).inputTokens()).isEqualTo(374);
    }
}
