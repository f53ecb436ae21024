package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The demo's fitting job survives a failure: its TaskManager taken away and a new one started (what a Kafka outage of
 * over a minute does to it, its transactional producer timing out, seen sooner), it restarts from its last checkpoint
 * under the demo's restart strategy and publishes again, and the status line and the summary say that it restarted and
 * why. (A Kafka outage itself takes over a minute to fail the job: measured by hand, cli/README "Kafka outages".)
 */
class DemoJobRestartTest {

    private static final Path TRACE = Path.of("..", "..", "shared", "traces", "mooncake", "conversation_trace.jsonl");

    @Test
    void aFailedJobRestartsFromItsCheckpointAndTheStatusSaysWhy() throws Exception {
        Demo.Options options = new Demo.Options(TRACE, null, 8, 20, 1, 0, 1, "default", 0, 0, 100, 0.3, 50, null,
                "TIERROUTE_ADMIN_TOKEN");
        try (Demo demo = Demo.start(options)) {
            await(demo, Duration.ofSeconds(60), () -> demo.store().current().version() > 0, "a fitted snapshot served");
            assertThat(demo.job().statusNote()).as("no restart yet").isEmpty();
            assertThat(demo.job().summary()).isEmpty();

            demo.flink().terminateTaskManager(0).get(30, TimeUnit.SECONDS);
            demo.flink().startTaskManager();
            await(demo, Duration.ofSeconds(30), () -> demo.job().restarts() > 0, "the job restarted");
            assertThat(demo.job().statusNote()).startsWith(" · fitting job restart").contains("failure", "s ago: ");
            long before = demo.store().current().version();
            await(demo, Duration.ofSeconds(60), () -> demo.store().current().version() > before,
                    "a snapshot published after the restart (serving v" + before + ")");

            assertThat(demo.job().failure()).isNull();
            assertThat(demo.job().restarts()).isEqualTo(1);
            // The snapshot above may be one the restore committed (the last checkpoint's open transaction): a new
            // checkpoint (every 500 ms) is what tells the attempt works, read from Flink's checkpoint statistics.
            await(demo, Duration.ofSeconds(30), () -> demo.job().unwellAtStop() == null, "a checkpoint since the failure");
            assertThat(demo.statusLine() + demo.job().statusNote()).contains(" · fitting job restarted 1× (last failure ");
            assertThat(demo.job().summary()).singleElement().asString()
                    .startsWith("fitting job: restarted 1 time from its last checkpoint; the last restart followed a "
                            + "failure at ").doesNotContain("\n", "\tat ");
            System.out.println("[measured] " + demo.job().summary().get(0));
        }
    }

    /** Waits for {@code condition}, looking at the job every 100 ms as the status loop does every tick. */
    private static void await(Demo demo, Duration timeout, BooleanSupplier condition, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            assertThat(demo.job().failure()).as("the job runs or restarts, while waiting for: " + what).isNull();
            if (condition.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for: " + what);
            }
            Thread.sleep(100);
        }
    }
}
