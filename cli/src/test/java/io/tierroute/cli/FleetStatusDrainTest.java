package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.deploy.local.ProjectTopics;
import io.tierroute.selector.scheduling.WorkerView;
import io.tierroute.sim.live.LiveWorkload;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The fleet's status line says when it is paused because no worker takes requests (QA: with every worker drained it
 * repeated the same counts and said nothing, where a Kafka outage gets a note): a real fleet on a real broker, its
 * workers drained through the selector API.
 */
class FleetStatusDrainTest {

    private static final String TOKEN = "drain-test-token";
    private final HttpClient http = HttpClient.newHttpClient();

    private int admin(FleetRun run, String worker, String action) throws Exception {
        return http.send(HttpRequest.newBuilder(run.selectorUri().resolve("/v1/workers/" + worker + "/" + action))
                .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    @Test
    void everyWorkerDrainedIsSaidWithTheArrivalsThatWaited() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            ProjectTopics.create(kafka.bootstrapServers(), (short) 1);
            var settings = new FleetRun.Settings(kafka.bootstrapServers(), Map.of(), 2, 2, "default", 1, 0, TOKEN,
                    "TEST_TOKEN_ENV", false);
            var work = LiveWorkload.load(null, "chat", 2, 1, 400, 1);
            try (FleetRun run = FleetRun.start(settings, work, System.nanoTime(), () -> false)) {
                run.startFleet();
                assertThat(run.statusLine()).doesNotContain("paused");
                assertThat(admin(run, "w0", "drain")).isEqualTo(200);
                assertThat(run.statusLine()).as("one worker still takes requests").doesNotContain("paused");
                assertThat(admin(run, "w1", "drain")).isEqualTo(200);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (run.fleet().held() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertThat(run.fleet().held()).as("an arrival waited").isPositive();
                long held = run.fleet().held();
                String arrivals = held == 1 ? "1 arrival" : held + " arrivals"; // the clock is held: mostly 1
                assertThat(run.statusLine()).endsWith(" · paused: every worker drained; arrivals wait until one takes "
                        + "requests again (" + arrivals + " held so far this run)");
                assertThat(run.summary()).contains(arrivals + " waited while every worker was drained or unhealthy "
                        + "(selector API)");
                long routed = run.fleet().routed();
                assertThat(admin(run, "w1", "undrain")).isEqualTo(200);
                assertThat(run.statusLine()).doesNotContain("paused");
                deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (run.fleet().routed() == routed && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertThat(run.fleet().routed()).as("routing resumed").isGreaterThan(routed);
            }
        }
    }

    @Test
    void theNoteNamesWhyNoWorkerTakesRequests() {
        WorkerView drained = new WorkerView("w0", 0, true, true, false, null);
        WorkerView unhealthy = new WorkerView("w1", 1, false, false, false, null);
        WorkerView open = new WorkerView("w2", 2, true, false, false, null);
        assertThat(FleetRun.pausedNote(List.of(drained, open), 3)).isEmpty();
        assertThat(FleetRun.pausedNote(List.of(unhealthy, unhealthy), 1))
                .isEqualTo(" · paused: every worker unhealthy; arrivals wait until one takes requests again (1 arrival held so far this run)");
        assertThat(FleetRun.pausedNote(List.of(drained, unhealthy), 0)).startsWith(" · paused: every worker drained or "
                + "unhealthy;").endsWith("(0 arrivals held so far this run)");
    }
}
