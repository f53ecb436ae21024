package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/** Real child JVMs: readiness, the marker check that guards stop-by-pid, graceful stop and kill -9. */
class ChildJvmTest {

    @TempDir
    Path dir;

    private ChildJvm.Spec sleeper(String marker) {
        List<Path> cp = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator)).map(Path::of).toList();
        return new ChildJvm.Spec("sleeper", cp, List.of("-Xmx32m"), Sleeper.class.getName(), List.of(),
                dir.resolve("log").resolve("sleeper.log"), dir, marker);
    }

    @Test
    void stopsByPidOnlyTheProcessThatCarriesTheMarker() {
        ChildJvm c = ChildJvm.start(sleeper("test-marker-" + dir));
        try {
            c.awaitReady("it prints its line", Duration.ofSeconds(30),
                    () -> ChildJvm.readLog(c.logFile()).contains("sleeper up"));
            assertThat(ChildJvm.isOurs(c.pid(), "test-marker-" + dir)).isTrue();
            assertThat(ChildJvm.stopPid(c.pid(), "some-other-cluster", Duration.ofSeconds(5))).isFalse();
            assertThat(c.isAlive()).as("a process without the marker is left alone").isTrue();
            assertThat(ChildJvm.stopPid(c.pid(), "test-marker-" + dir, Duration.ofSeconds(10))).isTrue();
            assertThat(c.isAlive()).isFalse();
            assertThat(ChildJvm.isOurs(c.pid(), "test-marker-" + dir)).isFalse();
        } finally {
            c.kill9();
        }
    }

    @Test
    void kill9EndsItAtOnce() throws InterruptedException {
        ChildJvm c = ChildJvm.start(sleeper("m"));
        assertThat(c.awaitExit(Duration.ofMillis(200))).as("still running").isEmpty();
        c.kill9();
        assertThat(c.isAlive()).isFalse();
        assertThat(c.awaitExit(Duration.ofSeconds(5))).as("128 + SIGKILL").hasValue(137);
    }

    @Test
    void aTimeoutNamesTheLogAndQuotesIt() {
        ChildJvm c = ChildJvm.start(sleeper("m"));
        try {
            assertThatThrownBy(() -> c.awaitReady("something that never happens", Duration.ofSeconds(3), () -> false))
                    .hasMessageContaining("did not reach 'something that never happens' within 3 s")
                    .hasMessageContaining(c.logFile().toString());
        } finally {
            c.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    void aToolThatFailsReportsItsOutput() throws Exception {
        ChildJvm.Spec bad = new ChildJvm.Spec("missing-main", sleeper("m").classpath(), List.of(), "no.such.Main", List.of(),
                dir.resolve("tool.log"), dir, "m");
        assertThatThrownBy(() -> ChildJvm.runToCompletion(bad, Duration.ofSeconds(30)))
                .hasMessageContaining("missing-main failed with exit code 1")
                .hasMessageContaining("no.such.Main");
        assertThat(Files.readString(dir.resolve("tool.log"))).contains("no.such.Main");
    }
}
