package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@code up} or {@code down} per state directory: a second one is refused at once, naming the first, and the lock
 * is free again once the first is done. (Across processes: cli's {@code ClusterUpInterruptTest}, a {@code down} refused
 * while a {@code cluster up} JVM starts, and the lock free once that JVM has exited after Ctrl-C.)
 */
class ClusterDirLockTest {

    @TempDir
    Path tmp;

    @Test
    void aSecondOperationIsRefusedNamingTheFirstUntilItIsReleased() {
        Path dir = tmp.resolve("cluster");
        long pid = ProcessHandle.current().pid();
        try (ClusterDirLock up = ClusterDirLock.acquire(dir, "up")) {
            assertThat(dir.resolve(ClusterDirLock.FILE)).isRegularFile();
            for (String second : new String[] {"down", "up"}) {
                assertThatThrownBy(() -> ClusterDirLock.acquire(dir, second))
                        .isInstanceOf(ClusterDirLock.Held.class)
                        .hasMessage("a 'cluster up' is in progress on " + dir + " (pid " + pid + "); wait for it or stop it");
            }
            // the same directory spelled otherwise is the same lock
            assertThatThrownBy(() -> ClusterDirLock.acquire(dir.resolve("..").resolve("cluster"), "down"))
                    .isInstanceOf(ClusterDirLock.Held.class);
            // another directory is not locked
            ClusterDirLock.acquire(tmp.resolve("other"), "up").close();
        }
        try (ClusterDirLock down = ClusterDirLock.acquire(dir, "down")) {
            assertThatThrownBy(() -> ClusterDirLock.acquire(dir, "up"))
                    .hasMessageStartingWith("a 'cluster down' is in progress on " + dir);
        }
        ClusterDirLock.acquire(dir, "up").close();
    }

    @Test
    void theFileSaysWhoHoldsIt() throws Exception {
        Path dir = tmp.resolve("c");
        try (ClusterDirLock up = ClusterDirLock.acquire(dir, "up")) {
            assertThat(Files.readString(dir.resolve(ClusterDirLock.FILE))).isEqualTo("up " + ProcessHandle.current().pid() + "\n");
        }
    }

    /** On the old code each of these said only "could not lock FILE: PATH", the exception's bare message. */
    @Test
    void aDirectoryThatCannotBeMadeSaysWhy() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        assertThatThrownBy(() -> ClusterDirLock.acquire(file, "up")).isInstanceOf(IllegalStateException.class)
                .hasMessage("could not lock " + file.resolve(ClusterDirLock.FILE) + ": " + file
                        + " exists and is not a directory");
        assertThatThrownBy(() -> ClusterDirLock.acquire(file.resolve("sub"), "up"))
                .hasMessage("could not lock " + file.resolve("sub").resolve(ClusterDirLock.FILE) + ": not a directory: "
                        + file.resolve("sub"));
        assertThat(ClusterDirLock.reason(new java.nio.file.NoSuchFileException("/proc/foo")))
                .isEqualTo("no such file or directory: /proc/foo");
        assertThat(ClusterDirLock.reason(new java.nio.file.AccessDeniedException("/root/x")))
                .isEqualTo("permission denied: /root/x");
    }

    @Test
    void aHolderLineThatCannotBeReadStillRefusesClearly() {
        Path dir = Path.of("/x");
        assertThat(ClusterDirLock.held(dir, "down 42\n")).hasMessage("a 'cluster down' is in progress on /x (pid 42); "
                + "wait for it or stop it");
        assertThat(ClusterDirLock.held(dir, "")).hasMessage("another 'cluster up' or 'cluster down' is in progress on /x; "
                + "wait for it or stop it");
    }
}
