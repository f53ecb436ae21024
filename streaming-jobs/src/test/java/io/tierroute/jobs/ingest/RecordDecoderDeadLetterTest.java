package io.tierroute.jobs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.DeadLetter;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * A dead letter fits the dead-letter topic whatever the size of the bad record: key and value are cut to their first
 * {@link RecordDecoder#MAX_COPIED_BYTES} and the reason tells the original lengths; a small record is kept verbatim.
 */
class RecordDecoderDeadLetterTest {
    /** The broker's default {@code message.max.bytes}: the dead-letter topic sets no larger one. */
    private static final int BROKER_DEFAULT_LIMIT = 1_048_588;

    private final RecordDecoder decoder = new RecordDecoder(Topics.TELEMETRY, "test", 60_000);

    private DeadLetter deadLetter(byte[] key, byte[] value) {
        Inbound in = decoder.decode(new ConsumerRecord<>(Topics.TELEMETRY, 3, 77L, key, value), 1_700_000_000_000L);
        assertThat(in.isDeadLetter()).isTrue();
        return in.deadLetter;
    }

    @Test
    void aBadRecordLargerThanTheCapIsCutAndItsLengthsAreInTheReason() {
        byte[] key = garbage(200_000);
        byte[] value = garbage(2_000_000);
        DeadLetter d = deadLetter(key, value);

        int cap = RecordDecoder.MAX_COPIED_BYTES;
        assertThat(d.getKey().remaining()).isEqualTo(cap);
        assertThat(d.getValue().remaining()).isEqualTo(cap);
        assertThat(bytes(d.getKey())).isEqualTo(Arrays.copyOf(key, cap));
        assertThat(bytes(d.getValue())).isEqualTo(Arrays.copyOf(value, cap));
        assertThat(d.getReason())
            .contains("[key truncated to its first " + cap + " of 200000 bytes]")
            .contains("[value truncated to its first " + cap + " of 2000000 bytes]");
        assertThat(d.getPartition()).isEqualTo(3);
        assertThat(d.getOffset()).isEqualTo(77L);
        assertThat(Codecs.DEAD_LETTER.encode(d).length).as("the dead-letter record's size").isLessThan(BROKER_DEFAULT_LIMIT);
    }

    @Test
    void aSmallBadRecordIsKeptVerbatim() {
        byte[] value = garbage(1000);
        DeadLetter d = deadLetter(null, value);
        assertThat(d.getKey()).isNull();
        assertThat(bytes(d.getValue())).isEqualTo(value);
        assertThat(d.getReason()).doesNotContain("truncated");
    }

    /** A message of 1 MB (a decode path quoting record content) keeps its first 1,024 characters and says what was cut. */
    @Test
    void aHugeMessageIsCutAndTheReasonSaysHowMuch() {
        String message = "malformed body: " + "x".repeat(1_000_000);
        String reason = RecordDecoder.reason(message, garbage(100), garbage(2_000_000));
        int cap = RecordDecoder.MAX_MESSAGE_CHARS;
        assertThat(reason).startsWith(message.substring(0, cap) + " [message cut: " + (message.length() - cap)
            + " more characters]");
        assertThat(reason).endsWith("[value truncated to its first " + RecordDecoder.MAX_COPIED_BYTES + " of 2000000 bytes]");
        assertThat(reason.length()).isLessThan(cap + 200);

        String emoji = "a".repeat(cap - 1) + "\uD83D\uDE00" + "b".repeat(10); // a surrogate pair across the cap
        assertThat(RecordDecoder.reason(emoji, null, null)).as("never half a character")
            .startsWith("a".repeat(cap - 1) + " [message cut: 12 more characters]");
        String exact = "c".repeat(cap);
        assertThat(RecordDecoder.reason(exact, null, null)).isEqualTo(exact);
    }

    /** --scopes reaches the decoder: a valid record of another scope becomes a dead letter naming it. */
    @Test
    void aValidRecordOfAScopeTheJobDoesNotFitIsADeadLetter() {
        long now = System.currentTimeMillis();
        byte[] sample = new io.tierroute.jobs.Workload(1, "tenant-9", now - 60_000, 0).telemetry(1).get(0).value();
        RecordDecoder onlyDefault = new RecordDecoder(Topics.TELEMETRY, "test", 3_600_000, "default");
        Inbound in = onlyDefault.decode(new ConsumerRecord<>(Topics.TELEMETRY, 0, 5L, null, sample), now);
        assertThat(in.isDeadLetter()).isTrue();
        assertThat(in.deadLetter.getReason().toString()).isEqualTo("scope 'tenant-9' is not one this job fits (--scopes default)");
        RecordDecoder anyScope = new RecordDecoder(Topics.TELEMETRY, "test", 3_600_000);
        assertThat(anyScope.decode(new ConsumerRecord<>(Topics.TELEMETRY, 0, 5L, null, sample), now).isDeadLetter())
            .isFalse();
    }

    private static byte[] garbage(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        b[0] = 0x7f; // not the single-object marker: a decode failure, not a valid record
        return b;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
