package io.tierroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Defect 3: an unknown extension or a directory is refused with {@code PATH: reason}. */
class TraceFileKindTest {

    @TempDir
    Path dir;

    @Test
    void anUnknownExtensionNamesTheFormatsKnown() {
        Path p = TraceLoading.write(dir, "ok.txt", TraceLoading.mooncake(0));
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ": unknown trace format (expected .jsonl or .json for Mooncake, .csv for Azure)");
    }

    @Test
    void aDirectoryIsSaidToBeOne() throws Exception {
        Path plain = Files.createDirectory(dir.resolve("traces"));
        assertThatThrownBy(() -> TraceLoading.load(plain)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(plain + ": is a directory");
        Path named = Files.createDirectory(dir.resolve("looks.jsonl"));
        assertThatThrownBy(() -> TraceLoading.load(named)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(named + ": is a directory");
        assertThatThrownBy(() -> new MooncakeReader().read(named)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(named + ": is a directory");
    }

    @Test
    void aMissingFileIsSaidNotToExist() {
        Path p = dir.resolve("missing.jsonl");
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ": does not exist");
    }
}
