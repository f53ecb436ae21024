package io.tierroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file without line ends is refused at the line that runs too long, not buffered until the heap runs out. */
class LongLineTraceTest {

    @TempDir
    Path dir;

    @Test
    void aLineLongerThanTheLimitIsNamedByItsNumber() throws Exception {
        Path p = dir.resolve("no-line-ends.jsonl");
        byte[] chunk = new byte[1 << 20];
        Arrays.fill(chunk, (byte) 'a');
        try (OutputStream out = Files.newOutputStream(p)) {
            out.write((TraceLoading.mooncake(0) + "\n").getBytes(StandardCharsets.UTF_8));
            for (int i = 0; i < Utf8Lines.MAX_LINE_BYTES / chunk.length; i++) {
                out.write(chunk);
            }
            out.write('a'); // one byte past the limit
        }
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ":2: line longer than " + Utf8Lines.MAX_LINE_BYTES + " bytes (not a trace of lines?)");
    }

    @Test
    void aDeviceThatNeverEndsALineIsRefusedToo() throws Exception {
        Path zero = Files.createSymbolicLink(dir.resolve("zero.jsonl"), Path.of("/dev/zero")); // Linux, as CI is
        assertThatThrownBy(() -> TraceLoading.load(zero)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(zero + ":1: line longer than");
    }

    @Test
    void theLongestLegalMooncakeLineIsRead() throws Exception {
        Path p = dir.resolve("long-ok.jsonl");
        StringBuilder ids = new StringBuilder();
        int blocks = (TraceRecord.MAX_TOKENS + 511) / 512;
        for (int i = 0; i < blocks; i++) {
            ids.append(i == 0 ? "" : ",").append(1_000_000_000L + i);
        }
        Files.writeString(p, "{\"timestamp\": 0, \"input_length\": " + TraceRecord.MAX_TOKENS
                + ", \"output_length\": 5, \"hash_ids\": ["
                + ids + "]}\n");
        assertThat(TraceLoading.load(p)).hasSize(1);
    }
}
