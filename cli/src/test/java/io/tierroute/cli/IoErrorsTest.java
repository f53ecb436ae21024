package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
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

    /**
     * A FIFO (a shell's {@code <(...)}, /dev/fd/63) is not opened by the check: opened, one with no writer blocked the
     * check for good, and one with a writer lost its first byte to it, which the Kafka client then missed.
     */
    @Test
    void aFifoIsLookedAtNotOpened() throws Exception {
        Path fifo = dir.resolve("store.fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).redirectErrorStream(true).start();
        assertThat(mkfifo.waitFor()).as(new String(mkfifo.getInputStream().readAllBytes())).isZero();
        assertThat(Files.isRegularFile(fifo)).isFalse();
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> assertThat(IoErrors.unreadable(fifo)).isNull(),
                "a FIFO with no writer");
        Properties p = new Properties();
        p.setProperty("ssl.truststore.location", fifo.toString());
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> assertThat(KafkaClientConfig.unreadableLocation(p))
                .isEmpty(), "a store at a FIFO with no writer");
        assertThat(IoErrors.unreadable(dir.resolve("missing"))).isEqualTo("no such file or directory: "
                + dir.resolve("missing"));
    }
}
