package io.tierroute.dashboards.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.Dashboard;
import io.tierroute.dashboards.DashboardFixture;
import io.tierroute.dashboards.Snapshots;
import io.tierroute.dashboards.control.ControlFence;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two writers of one scope at once, through the dashboard's HTTP API against a real broker: the one that loses
 * answers 409 saying what happened, and exactly one record is committed to {@code tierroute.control}.
 *
 * <p>The race is made, not hoped for: another scope's transaction left open on the control topic holds the
 * dashboard's write between opening its fence and reading the scope's last sequence (that read waits for every
 * open transaction on the partition to end, {@link ControlFence}), until the test aborts it. That the write has
 * opened its fence is seen on the broker: the producer id or epoch of the scope's transactional id changes.
 */
class ConcurrentControlWritesTest {

    private static final String TOKEN = "t0ken";
    private static final String SCOPE_TXN = ControlFence.TRANSACTIONAL_ID_PREFIX + "default";
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final DashboardFixture fixture = DashboardFixture.seededWith(Snapshots.accepted("default", 1),
            Snapshots.accepted("default", 2), Snapshots.accepted("default", 3));
    private final HttpClient http = HttpClient.newHttpClient();
    private Dashboard dashboard;

    @BeforeEach
    void startDashboard() throws Exception {
        dashboard = fixture.startDashboard(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, TOKEN,
                "TEST_TOKEN", "default"));
    }

    private HttpRequest pin(long version, String reason) {
        return HttpRequest.newBuilder(dashboard.uri().resolve("api/v1/scopes/default/pin"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + TOKEN)
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString("{\"version\": " + version + ", \"reason\": \"" + reason
                        + "\"}")).build();
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    /**
     * A writer of another scope stopped between send and commit: its transaction, open on the control topic's one
     * partition, holds every read of the committed records back until {@link KafkaProducer#abortTransaction}.
     */
    private static KafkaProducer<byte[], byte[]> openTransactionOfAnotherScope() throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", Broker.bootstrap());
        p.put("transactional.id", ControlFence.TRANSACTIONAL_ID_PREFIX + "other");
        KafkaProducer<byte[], byte[]> other = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        other.initTransactions();
        other.beginTransaction();
        SnapshotControl c = SnapshotControl.newBuilder().setScope("other").setAction(ControlAction.PIN).setVersion(1L)
                .setActor("carol").setReason("held open").setTimestampMs(1L).setSequence(1).build();
        other.send(new ProducerRecord<>(Topics.CONTROL, "other".getBytes(StandardCharsets.UTF_8),
                Codecs.SNAPSHOT_CONTROL.encode(c))).get(30, TimeUnit.SECONDS);
        return other;
    }

    /** The producer id and epoch the broker holds for the scope's transactional id ("none" before its first use). */
    private static String fenceHolder(Admin admin) throws Exception {
        try {
            TransactionDescription d = admin.describeTransactions(List.of(SCOPE_TXN)).description(SCOPE_TXN)
                    .get(30, TimeUnit.SECONDS);
            return d.producerId() + "/" + d.producerEpoch();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TransactionalIdNotFoundException) {
                return "none";
            }
            throw e;
        }
    }

    /** Waits until a producer other than {@code before} holds the scope's transactional id: a fence was opened. */
    private static void awaitFenceOpened(Admin admin, String before) {
        Broker.await(Duration.ofSeconds(30), () -> {
            try {
                return !fenceHolder(admin).equals(before);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }, "the dashboard's write to open the fence of scope 'default' (was " + before + ")");
    }

    /**
     * While one pin holds the scope's per-dashboard lock, a second pin of the same scope is refused at once with a
     * 409 that says another write is in progress (it does not wait for the first); the first then commits, alone.
     */
    @Test
    void aSecondPinWhileTheFirstIsInProgressIsRefusedAtOnceWithA409() throws Exception {
        CompletableFuture<HttpResponse<String>> first;
        try (Admin admin = Broker.get().admin(); KafkaProducer<byte[], byte[]> other = openTransactionOfAnotherScope()) {
            String before = fenceHolder(admin);
            first = http.sendAsync(pin(2, "first"), HttpResponse.BodyHandlers.ofString());
            awaitFenceOpened(admin, before);

            HttpResponse<String> second = http.send(pin(1, "second"), HttpResponse.BodyHandlers.ofString());
            assertThat(second.statusCode()).as(second.body()).isEqualTo(409);
            assertThat(json(second).get("error").asText())
                    .contains("another write to scope 'default' is in progress on this dashboard").contains("retry");
            assertThat(first).as("the second was refused while the first was still in progress").isNotDone();

            other.abortTransaction();
        }
        HttpResponse<String> won = first.get(60, TimeUnit.SECONDS);
        assertThat(won.statusCode()).as(won.body()).isEqualTo(200);
        assertThat(json(won).get("version").asLong()).isEqualTo(2);
        assertThat(json(won).get("sequence").asLong()).isEqualTo(1);
        assertThat(Broker.controlRecords()).as("exactly one record committed, the first pin's").singleElement()
                .satisfies(c -> {
                    assertThat(c.getVersion()).isEqualTo(2L);
                    assertThat(c.getReason()).isEqualTo("first");
                });
        assertThat(dashboard.history().activeVersion("default")).hasValue(2);
    }

    /**
     * A CLI-style writer opens the scope's fence after the dashboard's write opened its own and before it commits:
     * the dashboard's commit is fenced and answers 409 saying another writer changed the scope and nothing was
     * written; the CLI's record is the only one committed, and the dashboard then shows it.
     */
    @Test
    void aPinWhoseFenceAnotherWriterTookMeanwhileIsA409AndOnlyTheOtherWritersRecordIsCommitted() throws Exception {
        try (Admin admin = Broker.get().admin(); KafkaProducer<byte[], byte[]> other = openTransactionOfAnotherScope()) {
            String before = fenceHolder(admin);
            CompletableFuture<HttpResponse<String>> dashboardPin = http.sendAsync(pin(2, "from the dashboard"),
                    HttpResponse.BodyHandlers.ofString());
            awaitFenceOpened(admin, before);

            // The test's own Kafka calls: 30 s, not the writer's 10 s, which a loaded machine may come close to.
            try (ControlFence cli = ControlFence.open(Broker.bootstrap(), new Properties(), "default",
                    Duration.ofSeconds(30), "cli")) {
                other.abortTransaction();
                HttpResponse<String> lost = dashboardPin.get(60, TimeUnit.SECONDS);
                assertThat(lost.statusCode()).as(lost.body()).isEqualTo(409);
                assertThat(json(lost).get("error").asText())
                        .contains("another writer (the CLI or another dashboard) changed scope 'default'")
                        .contains("nothing was written");

                long seen = ControlFence.lastSequence(Broker.bootstrap(), new Properties(), "default",
                        Duration.ofSeconds(30));
                assertThat(seen).as("the fenced write left nothing behind").isZero();
                cli.commit(SnapshotControl.newBuilder().setScope("default").setAction(ControlAction.PIN).setVersion(1L)
                        .setActor("cli").setReason("from the CLI").setTimestampMs(1L).setSequence(seen + 1).build());
            }
        }
        assertThat(Broker.controlRecords()).as("exactly one record committed, the CLI's").singleElement()
                .satisfies(c -> {
                    assertThat(c.getActor()).isEqualTo("cli");
                    assertThat(c.getVersion()).isEqualTo(1L);
                });
        Broker.await(Duration.ofSeconds(20), () -> dashboard.history().activeVersion("default").orElse(-1) == 1,
                "the dashboard to show the CLI's pin");
    }
}
