package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.dashboards.Dashboard;
import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.deploy.local.ProjectTopics;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.sim.live.LiveWorkload;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The demo's summary says why the gate rejected the newest fit, from the dashboard's history, before its Kafka stops
 * (before, it advised 'tierroute snapshots show N --bootstrap' on the demo's own broker, gone once the demo exits);
 * fleet, on an operator's Kafka that stays, still gives that command.
 */
class DemoGateReasonsTest {

    @Test
    void theSummarySaysTheGatesReasonsWhenTheRunsKafkaStopsWithIt() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            ProjectTopics.create(kafka.bootstrapServers(), (short) 1);
            try (var producer = SnapshotsFixtures.producer(kafka.bootstrapServers(), new Properties())) {
                SnapshotsFixtures.publishHistory(producer, "default"); // v1..v3 accepted, v4 rejected
            }
            FleetRun.Settings s = new FleetRun.Settings(kafka.bootstrapServers(), Map.of(), 2, 200, "default", 1, 0,
                    null, "TIERROUTE_ADMIN_TOKEN", false);
            try (FleetRun run = FleetRun.start(s, LiveWorkload.load(null, "chat", 2, 1, 10, 1), System.nanoTime(), () -> false);
                 Dashboard dashboard = Dashboard.start(new Dashboard.Settings(kafka.bootstrapServers(), "127.0.0.1", 0,
                         null, "TIERROUTE_ADMIN_TOKEN", "default"))) {
                assertThat(run.summary()).as("fleet: the operator's Kafka stays").contains("the validation gate "
                        + "rejected the newest fit, v4: 'tierroute snapshots show 4 --bootstrap " + kafka.bootstrapServers()
                        + "' says why while that Kafka runs");

                // as Demo wires it; the dashboard's reader may not have read v4 yet: the lookup waits for it
                run.gateReasonsFrom(v -> Demo.gateReasons(dashboard.history(), "default", v, Duration.ofSeconds(30)));
                List<String> summary = run.summary();
                int at = summary.indexOf("the validation gate rejected the newest fit, v4:");
                assertThat(at).as(String.join("\n", summary)).isPositive();
                assertThat(summary.get(at + 1)).isEqualTo("  rejected: alphaP jumped ×12 against version 3");
                assertThat(String.join("\n", summary)).doesNotContain("snapshots show").doesNotContain(kafka.bootstrapServers());

                run.gateReasonsFrom(v -> Optional.of(List.of(SnapshotsFixtures.HELD, "alphaT jumps 1.09×")));
                summary = run.summary();
                at = summary.indexOf("the validation gate rejected the newest fit, v4:");
                assertThat(summary.subList(at + 1, summary.size())).as("the parameters it held are not why")
                        .startsWith("  rejected: alphaT jumps 1.09×").noneMatch(l -> l.contains("held: "));

                run.gateReasonsFrom(v -> Optional.empty());
                assertThat(run.summary()).contains("the validation gate rejected the newest fit, v4 (its reasons were not "
                        + "read before the run stopped)");
            }
        }
    }

    @Test
    void theLookupWaitsForTheHistoryToReadTheVersionAndNoLonger() throws Exception {
        SnapshotHistory history = new SnapshotHistory();
        long t0 = System.nanoTime();
        assertThat(Demo.gateReasons(history, "default", 4, Duration.ofMillis(300))).isEmpty();
        assertThat(System.nanoTime() - t0).as("waited its 300 ms").isGreaterThanOrEqualTo(300_000_000L);

        Thread reader = new Thread(() -> {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
            history.onSnapshot(SnapshotsFixtures.accepted("default", 4).setStatus(SnapshotStatus.REJECTED)
                    .setRejectReasons(List.of("alphaP jumped ×12 against version 3", SnapshotsFixtures.HELD)).build(), 7);
        });
        reader.start();
        assertThat(Demo.gateReasons(history, "default", 4, Duration.ofSeconds(30)))
                .contains(List.of("alphaP jumped ×12 against version 3", SnapshotsFixtures.HELD));
        reader.join();
        assertThat(Demo.gateReasons(history, "other", 4, Duration.ZERO)).as("another scope's v4").isEmpty();
    }
}
