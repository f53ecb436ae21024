package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IoErrorsTest {
    @TempDir
    Path dir;

    @Test
    void namesWhatWentWrongWithWhichPathAndNoClassName() {
        assertThat(IoErrors.describe(new NoSuchFileException("/a/b"))).isEqualTo("no such file or directory: /a/b");
        assertThat(IoErrors.describe(new AccessDeniedException("/a"))).isEqualTo("permission denied: /a");
        assertThat(IoErrors.describe(new FileSystemException("/x", null, "Read-only file system")))
                .isEqualTo("read-only file system: /x");
        assertThat(IoErrors.describe(new IOException("Is a directory"))).isEqualTo("Is a directory");
    }

    @Test
    void aRealFailureReadsWell() {
        assertThatThrownBy(() -> Files.readString(dir.resolve("missing"))).isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(IoErrors.describe((IOException) e))
                        .isEqualTo("no such file or directory: " + dir.resolve("missing")));
        assertThatThrownBy(() -> Files.newBufferedReader(dir).read()).isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(IoErrors.describe((IOException) e)).doesNotContain("java.")
                        .containsIgnoringCase("directory"));
    }
}
