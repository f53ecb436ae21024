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
 * {@code tierroute dashboard --host 0.0.0.0} in a JVM of its own, with an operator token and no --tls-keystore: it
 * starts (a proxy may terminate TLS in front of it) but warns that the token crosses the network in cleartext (before:
 * not a word). No Kafka: the dashboard starts without one and retries.
 */
class DashboardCleartextWarningTest {

    @TempDir
    Path dir;

    @Test
    void aTokenServedOverPlainHttpOnEveryInterfaceIsWarnedOfAtStart() throws Exception {
        String token = "cleartext-" + java.util.UUID.randomUUID();
        try (DemoChild child = DemoChild.command(dir, List.of("dashboard", "--bootstrap", "127.0.0.1:9", "--port", "0",
                "--host", "0.0.0.0"), Map.of("TIERROUTE_ADMIN_TOKEN", token))) {
            child.awaitLast(Pattern.compile("pin / unpin / rollback recorded as the token's operator"), m -> true,
                    Duration.ofSeconds(60), "the dashboard started with writes enabled");
            assertThat(child.log()).containsOnlyOnce("tierroute dashboard: WARN: --host 0.0.0.0 serves plain HTTP beyond "
                    + "loopback").contains("give --tls-keystore").doesNotContain(token);
        }
    }
}
