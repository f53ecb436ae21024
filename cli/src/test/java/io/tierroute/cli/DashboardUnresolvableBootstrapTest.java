package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tierroute dashboard} in a JVM of its own on a bootstrap host that does not resolve: it starts (the name may
 * resolve later, and its reader retries) and says at once which host does not resolve, where it said before that
 * Kafka "does not answer yet".
 */
class DashboardUnresolvableBootstrapTest {

    @TempDir
    Path dir;

    @Test
    void aBootstrapHostThatDoesNotResolveIsNamedAtStart() throws Exception {
        try (DemoChild child = DemoChild.command(dir, List.of("dashboard", "--bootstrap", "no-such-host.invalid:9092",
                "--port", "0"), Map.of())) {
            child.awaitLast(Pattern.compile("tierroute dashboard on http://"), m -> true, Duration.ofSeconds(60),
                    "the dashboard started");
            String log = child.log();
            assertThat(log).contains("tierroute dashboard: the host of --bootstrap no-such-host.invalid:9092 does not "
                    + "resolve (unknown host no-such-host.invalid); starting anyway").doesNotContain("does not answer yet");
            assertThat(log.indexOf("does not resolve")).as("named before the reader's own warnings")
                    .isLessThan(log.indexOf("tierroute dashboard on"));
        }
    }
}
