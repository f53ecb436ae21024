package io.tierroute.selector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.Test;

/** Failed sessions are reported with the back-off's wait and followed by new ones; a wakeup is not a failure. */
class SessionLoopTest {

    @Test
    void failuresAreReportedWithADoublingWaitAndAWakeupIsNot() {
        List<String> log = new ArrayList<>();
        int[] sessions = {0};
        boolean[] running = {true};
        SessionLoop.run(() -> running[0], () -> {
            sessions[0]++;
            switch (sessions[0]) {
                case 1, 3 -> throw new IllegalStateException("broker gone " + sessions[0]);
                case 2 -> throw new WakeupException();
                default -> running[0] = false;
            }
        }, (e, wait) -> log.add(e.getMessage() + " -> " + wait), e -> log.add("stopped " + e), wait -> log.add("pause " + wait));
        assertThat(sessions[0]).isEqualTo(4);
        assertThat(log).containsExactly("broker gone 1 -> 1000", "pause 1000", "broker gone 3 -> 2000", "pause 2000");
    }

    @Test
    void aFailureAfterTheOwnerStoppedEndsTheLoopUnreported() {
        List<String> log = new ArrayList<>();
        boolean[] running = {true};
        SessionLoop.run(() -> running[0], () -> {
            running[0] = false;
            throw new IllegalStateException("client closed under the session");
        }, (e, wait) -> log.add("restarting"), e -> log.add("stopped"), wait -> log.add("pause"));
        assertThat(log).isEmpty();
    }

    /**
     * An Error (out of memory, a stack overflow, a class that failed to load) ends the loop at once, handed to the owner:
     * no restart into the same state, no back-off spinning, and nothing thrown past the thread's loop.
     */
    @Test
    void anErrorEndsTheLoopHandedToTheOwnerWithoutARestart() {
        List<String> log = new ArrayList<>();
        int[] sessions = {0};
        SessionLoop.run(() -> true, () -> {
            sessions[0]++;
            throw new OutOfMemoryError("Java heap space");
        }, (e, wait) -> log.add("restarting"), e -> log.add("stopped " + e), wait -> log.add("pause"));
        assertThat(sessions[0]).isEqualTo(1);
        assertThat(log).containsExactly("stopped java.lang.OutOfMemoryError: Java heap space");
    }

    /**
     * A client whose settings are refused (here, as a host that does not resolve) is said on one line with its cause,
     * without a stack trace per restart; any other failure keeps its trace.
     */
    @Test
    void aRefusedSettingIsDescribedWithItsCauseAndLoggedWithoutATrace() {
        KafkaException refused = new KafkaException("Failed to construct kafka consumer",
                new ConfigException("No resolvable bootstrap urls given in bootstrap.servers"));
        assertThat(SessionLoop.describe(refused)).isEqualTo("org.apache.kafka.common.KafkaException: Failed to construct "
                + "kafka consumer; caused by org.apache.kafka.common.config.ConfigException: No resolvable bootstrap urls "
                + "given in bootstrap.servers");
        assertThat(SessionLoop.traceWorthLogging(refused)).isNull();
        IllegalStateException other = new IllegalStateException("unexpected", new RuntimeException("inner"));
        assertThat(SessionLoop.traceWorthLogging(other)).isSameAs(other);
        assertThat(SessionLoop.describe(new IllegalStateException("alone"))).isEqualTo("java.lang.IllegalStateException: alone");
    }
}
