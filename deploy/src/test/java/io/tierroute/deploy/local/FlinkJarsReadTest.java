package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job jar that cannot be read is a failure its caller handles (an {@link IllegalStateException}, as {@code submit}
 * catches), not an IllegalArgumentException that reached the user as "a defect of tierroute" with a stack trace.
 * Nothing is sent: the cluster address is a port nothing listens on.
 */
class FlinkJarsReadTest {

    private final FlinkRestClient rest = new FlinkRestClient(URI.create("http://127.0.0.1:1"), Duration.ofSeconds(1));

    /** A regular file whose read fails even for root: /proc/self/mem at offset 0 (unmapped) answers EIO. */
    @Test
    void aJarWhoseReadFailsIsAnIllegalStateNamingIt() {
        Path mem = Path.of("/proc/self/mem");
        assumeTrue(Files.isRegularFile(mem), "no /proc/self/mem here");
        assertThatThrownBy(() -> rest.uploadJar(mem)).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("could not read the job jar /proc/self/mem: ");
    }

    /** Mode 000: unreadable unless the tests run as root, which reads it anyway. */
    @Test
    void anUnreadableJarIsAnIllegalStateNamingIt(@TempDir Path dir) throws Exception {
        Path jar = Files.writeString(dir.resolve("job.jar"), "PK");
        Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("---------"));
        assumeTrue(!Files.isReadable(jar), "running as root: a mode-000 file is readable");
        assertThatThrownBy(() -> rest.uploadJar(jar)).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("could not read the job jar " + jar + ": ");
    }

    @Test
    void aDirectoryIsNoJar(@TempDir Path dir) {
        assertThatThrownBy(() -> rest.uploadJar(dir)).isInstanceOf(IllegalStateException.class)
                .hasMessage("the job jar " + dir + " does not exist or is not a file");
    }
}
