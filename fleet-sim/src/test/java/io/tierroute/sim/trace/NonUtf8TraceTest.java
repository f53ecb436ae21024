package io.tierroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bytes that are not UTF-8 are reported on their own line (a BufferedReader decodes ahead, and would not). */
class NonUtf8TraceTest {

    @TempDir
    Path dir;

    @Test
    void theLineWithTheBadByteIsNamed() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write((TraceLoading.mooncake(0) + "\n" + TraceLoading.mooncake(1) + "\n").getBytes(StandardCharsets.UTF_8));
        bytes.write(new byte[] {'{', (byte) 0xFF, '}', '\n'});
        bytes.write((TraceLoading.mooncake(2) + "\n").getBytes(StandardCharsets.UTF_8));
        Path p = Files.write(dir.resolve("latin.jsonl"), bytes.toByteArray());
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ":3: not UTF-8 text");
    }

    @Test
    void windowsLineEndsAreLineEnds() throws Exception {
        Path p = Files.writeString(dir.resolve("crlf.csv"), "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
                + "2023-11-16 18:15:46.6805900,374,44\r\n2023-11-16 18:15:47,400,0\r\n");
        assertThat(TraceLoading.load(p)).hasSize(2);
    }

    @Test
    void oldMacLineEndsAreLineEndsToo() throws Exception {
        Path csv = Files.writeString(dir.resolve("cr.csv"), "TIMESTAMP,ContextTokens,GeneratedTokens\r"
                + "2023-11-16 18:15:46.6805900,374,44\r2023-11-16 18:15:47,400,0\r");
        assertThat(TraceLoading.load(csv)).hasSize(2);
        Path jsonl = Files.writeString(dir.resolve("cr.jsonl"),
                "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": [1]}\r"
                        + "{\"timestamp\": 7, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": [2]}");
        assertThat(TraceLoading.load(jsonl)).hasSize(2);
    }

    @Test
    void aBadLineAfterOldMacLineEndsIsNamedByItsNumber() throws Exception {
        Path csv = Files.writeString(dir.resolve("cr-bad.csv"), "TIMESTAMP,ContextTokens,GeneratedTokens\r"
                + "2023-11-16 18:15:46.6805900,374,44\r2023-11-16 18:15:47,many,0\r");
        assertThatThrownBy(() -> TraceLoading.load(csv)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(csv + ":3: ");
    }
}
