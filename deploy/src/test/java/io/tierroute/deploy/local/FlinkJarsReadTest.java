package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
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

    @Test
    void aDirectoryIsNoJar(@TempDir Path dir) {
        assertThatThrownBy(() -> rest.uploadJar(dir)).isInstanceOf(IllegalStateException.class)
                .hasMessage("the job jar " + dir + " does not exist or is not a file");
    }
}
