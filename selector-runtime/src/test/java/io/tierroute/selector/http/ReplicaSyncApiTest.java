package io.tierroute.selector.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Topics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two selector servers configured with {@code kafka.replicaSync.enabled} on one broker, as two replicas behind a load
 * balancer: a request routed by one is priced by the other, an event posted to either reaches both, and an event for
 * a request this replica does not hold is relayed (200), not refused (404).
 */
class ReplicaSyncApiTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static EmbeddedKafka kafka;
    private static ApiTestServer a;
    private static ApiTestServer b;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
        for (Topics.Spec s : Topics.specs()) {
            kafka.createTopic(s.name(), s.partitions(), s.configs());
        }
        a = replica("a");
        b = replica("b");
    }

    private static ApiTestServer replica(String id) {
        return new ApiTestServer("""
                model: {name: m, blockSize: 16}
                workers: {count: 2, namePrefix: w}
                routing: {ownKvAccounting: true}
                kafka:
                  bootstrapServers: "%s"
                  selectorId: %s
                  params: {enabled: false}
                  kvEvents: {enabled: false}
                  decisions: {enabled: false}
                  replicaSync: {enabled: true}
                """.formatted(kafka.bootstrapServers(), id), dir, ApiTestServer.TOKEN);
    }

    @AfterAll
    static void stop() {
        if (b != null) {
            b.close();
        }
        if (a != null) {
            a.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    private static JsonNode syncBlock(ApiTestServer s) throws Exception {
        HttpResponse<String> r = s.send(java.net.http.HttpRequest.newBuilder(s.uri("/v1/params"))
                .header("authorization", "Bearer " + ApiTestServer.TOKEN).GET());
        return json(r).get("kafka").get("replica_sync");
    }

    private static void await(String what, java.util.concurrent.Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.call()) {
            assertThat(System.nanoTime()).as("timed out waiting for " + what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Test
    void aRequestRoutedByOneReplicaIsHeldByBothAndEndsOnBoth() throws Exception {
        String ids = ApiTestServer.list(java.util.stream.LongStream.range(5000, 5188).toArray());
        HttpResponse<String> routed = a.post("/v1/route", "{\"request_id\":\"r1\",\"block_hashes\":" + ids
                + ",\"input_tokens\":3008,\"max_tokens\":200}");
        assertThat(routed.statusCode()).as(routed.body()).isEqualTo(200);
        await("b admits a's request", () -> syncBlock(b).get("admissions_applied").asLong() == 1);
        String chosen = json(routed).get("worker").asText();
        JsonNode onB = null;
        for (JsonNode w : json(b.get("/v1/workers")).get("workers")) {
            if (w.get("name").asText().equals(chosen)) {
                onB = w.get("load");
            }
        }
        assertThat(onB.get("in_flight").asInt()).as("b prices a's request on its worker").isEqualTo(1);
        assertThat(onB.get("kv_used_tokens").asLong()).isEqualTo(3008);

        HttpResponse<String> first = b.post("/v1/requests/events", "{\"request_id\":\"r1\",\"type\":\"first_token\"}");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(json(first).get("applied").asInt()).isEqualTo(1);
        await("a hears the first token posted to b", () -> syncBlock(a).get("events_applied").asLong() == 1);

        HttpResponse<String> ghost = b.post("/v1/requests/events", "{\"request_id\":\"ghost\",\"type\":\"finished\"}");
        assertThat(ghost.statusCode()).as("another replica may hold it").isEqualTo(200);
        assertThat(json(ghost).get("relayed").asInt()).isEqualTo(1);
        assertThat(syncBlock(b).get("events_pending").asInt()).isEqualTo(1);

        HttpResponse<String> done = a.post("/v1/requests/events", "{\"request_id\":\"r1\",\"type\":\"finished\",\"tokens\":9}");
        assertThat(done.statusCode()).isEqualTo(200);
        await("b hears the finish posted to a", () -> syncBlock(b).get("events_applied").asLong() == 1);
        for (ApiTestServer s : new ApiTestServer[] {a, b}) {
            JsonNode workers = json(s.get("/v1/workers"));
            for (JsonNode w : workers.get("workers")) {
                assertThat(w.get("load").get("in_flight").asInt()).as(w.toString()).isZero();
            }
        }
        assertThat(a.get("/metrics").body()).containsPattern("(?m)^tierroute_replica_sync_admissions_sent_total 1")
                .containsPattern("(?m)^tierroute_replica_sync_events_applied_total [1-9]")
                .containsPattern("(?m)^tierroute_replica_sync_events_late_reused_total 0");
        assertThat(syncBlock(b).get("events_late_reused").asLong()).isZero();
    }
}
