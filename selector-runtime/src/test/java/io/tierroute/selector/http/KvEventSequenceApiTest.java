package io.tierroute.selector.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Numbered KV-event batches over HTTP against a real server: a late batch does not put back blocks the engine has
 * removed since, a gap and a restart clear the worker first, a retry changes nothing; each answer says which.
 */
class KvEventSequenceApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long A = 5_000;
    private static final long B = 6_000;
    // each test its own prompts: a dry run picks the cheapest worker, which must not be another test's holder
    private static final long C = 7_000;
    private static final long D = 8_000;
    private static final long E = 9_000;
    private static final long F = 10_000;
    private static final long G = 11_000;
    private static final long H = 12_000;
    private static final long I = 13_000;
    private static final long J = 14_000;

    @TempDir
    static Path dir;
    static ApiTestServer api;

    @BeforeAll
    static void start() throws Exception {
        api = ApiTestServer.fourWorkers(dir);
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    /** The chained hashes of 40 blocks of ids {@code first..}, as the engine reports them, as a JSON array. */
    private static String chained(long first) {
        return ApiTestServer.list(ApiTestServer.chain(first, 40));
    }

    private static HttpResponse<String> batch(long sequence, String type, long first) throws Exception {
        return batch("w3", sequence, type, first);
    }

    private static HttpResponse<String> batch(String worker, long sequence, String type, long first) throws Exception {
        return api.post("/v1/kv-events", "{\"worker\":\"" + worker + "\",\"sequence\":" + sequence + ",\"events\":"
                + "[{\"type\":\"" + type + "\",\"tier\":\"hbm\",\"block_hashes\":" + chained(first) + "}]}");
    }

    private static long held(long first) throws Exception {
        return held("w3", first);
    }

    /** Tokens of the prompt of blocks {@code first..} that {@code worker} holds, by a dry-run route's explanation. */
    private static long held(String worker, long first) throws Exception {
        assertThat(api.server.pipeline().awaitIdle(5, TimeUnit.SECONDS)).isTrue();
        String ids = LongStream.range(first, first + 40).mapToObj(Long::toString).collect(Collectors.joining(",", "[", "]"));
        HttpResponse<String> r = api.post("/v1/route?dry_run=true", "{\"block_hashes\":" + ids
                + ",\"input_tokens\":640,\"max_tokens\":100,\"explain\":true}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode d = JSON.readTree(r.body());
        return d.get("worker").asText().equals(worker) ? d.get("cost").get("hit_tokens").asLong() : 0;
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    @Test
    void aLateBatchIsSkippedAGapAndARestartClearTheWorkerFirst() throws Exception {
        assertThat(batch(0, "stored", A).statusCode()).isEqualTo(202);
        assertThat(held(A)).isEqualTo(624);
        assertThat(batch(1, "removed", A).statusCode()).isEqualTo(202);
        assertThat(held(A)).isZero();

        HttpResponse<String> retry = batch(1, "removed", A);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(json(retry).get("accepted").asInt()).isZero();
        assertThat(json(retry).get("skipped").asText()).isEqualTo("batch 1 is not above the worker's last, 1 (a retry "
                + "of the batch applied, one overtaken by a later one, or a number reused): not applied");

        HttpResponse<String> afterGap = batch(3, "stored", B); // batch 2 is late
        assertThat(afterGap.statusCode()).isEqualTo(202);
        assertThat(json(afterGap).get("accepted").asInt()).as("the events of the batch, not the clear").isEqualTo(1);
        assertThat(json(afterGap).get("resync").asText()).isEqualTo("batch 3 after 1: the batches between never "
                + "arrived; the worker's index entries were cleared first and are rebuilt from its events");
        assertThat(held(B)).isEqualTo(624);
        HttpResponse<String> late = batch(2, "stored", A);
        assertThat(late.statusCode()).isEqualTo(200);
        assertThat(held(A)).as("the blocks batch 1 removed are not put back").isZero();

        HttpResponse<String> restart = batch(0, "stored", A);
        assertThat(restart.statusCode()).isEqualTo(202);
        assertThat(json(restart).get("resync").asText()).startsWith("batch 0 after 3: the engine restarted");
        assertThat(held(B)).as("cleared with the restart").isZero();
        assertThat(held(A)).isEqualTo(624);

        String metrics = api.get("/metrics").body();
        assertThat(metrics).containsPattern("(?m)^tierroute_kv_events_batches_skipped_total [2-9](\\.0)?$")
                .containsPattern("(?m)^tierroute_kv_events_resyncs_total\\{reason=\"gap\"\\} [1-9](\\.0)?$")
                .containsPattern("(?m)^tierroute_kv_events_resyncs_total\\{reason=\"restart\"\\} [1-9](\\.0)?$");
    }

    /** An engine that restarts after its first batch sends 0 again, with other events: not taken for a retry. */
    @Test
    void batchZeroAgainWithOtherEventsIsARestart() throws Exception {
        assertThat(batch("w1", 0, "stored", C).statusCode()).isEqualTo(202);
        assertThat(batch("w1", 0, "stored", C).statusCode()).as("the same body: a retry").isEqualTo(200);
        HttpResponse<String> restart = batch("w1", 0, "stored", D);
        assertThat(restart.statusCode()).isEqualTo(202);
        assertThat(json(restart).get("resync").asText()).startsWith("batch 0 after 0: the engine restarted");
        assertThat(held("w1", C)).as("the old run's blocks are gone").isZero();
        assertThat(held("w1", D)).isEqualTo(624);
    }

    /**
     * A numbered batch refused as malformed is lost (a restarted engine's batch 0, say): the worker is cleared and its
     * next batch taken as is, else the new run's numbers would be skipped as old ones and the old run's blocks kept.
     */
    @Test
    void aNumberedBatchRefusedAsMalformedClearsTheWorkerAndItsNextIsTakenAsIs() throws Exception {
        assertThat(batch("w0", 0, "stored", E).statusCode()).isEqualTo(202);
        assertThat(batch("w0", 1, "stored", F).statusCode()).isEqualTo(202);
        HttpResponse<String> bad = api.post("/v1/kv-events", "{\"worker\":\"w0\",\"sequence\":0,\"events\":[{\"type\":"
                + "\"stored\",\"tier\":\"tape\",\"block_hashes\":[1]}]}");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(json(bad).get("error").asText()).endsWith("(batch 0 is lost: the worker's index entries are cleared "
                + "and its next batch is taken as is)");
        assertThat(held("w0", E)).isZero();
        assertThat(held("w0", F)).isZero();
        HttpResponse<String> next = batch("w0", 1, "stored", E);
        assertThat(next.statusCode()).as(next.body()).isEqualTo(202);
        assertThat(json(next).has("resync")).isFalse();
        assertThat(held("w0", E)).isEqualTo(624);
        assertThat(api.get("/metrics").body())
                .containsPattern("(?m)^tierroute_kv_events_resyncs_total\\{reason=\"lost_batch\"\\} [1-9](\\.0)?$");
    }

    /**
     * A numbered batch the strict reading refuses before its events are looked at (a fractional hash, an unknown
     * field), or whose epoch is out of range, is lost the same way; it was answered 400 with the worker's entries kept and its next batch judged against
     * the previous one. A body that is not JSON names no batch and clears nothing.
     */
    @Test
    void aNumberedBatchRefusedByTheStrictReadingIsLostTooAndABodyThatIsNoJsonClearsNothing() throws Exception {
        assertThat(batch("w2", 0, "stored", I).statusCode()).isEqualTo(202);
        HttpResponse<String> notJson = api.post("/v1/kv-events", "{\"worker\":\"w2\",\"sequence\":1,\"events\":[");
        assertThat(notJson.statusCode()).isEqualTo(400);
        assertThat(json(notJson).get("error").asText()).doesNotContain("is lost");
        assertThat(held("w2", I)).as("nothing cleared").isEqualTo(624);

        HttpResponse<String> fractional = api.post("/v1/kv-events", "{\"worker\":\"w2\",\"sequence\":1,\"events\":"
                + "[{\"type\":\"stored\",\"tier\":\"hbm\",\"block_hashes\":[1.5]}]}");
        assertLost(fractional, 1);
        assertThat(held("w2", I)).as("cleared").isZero();
        HttpResponse<String> next = batch("w2", 7, "stored", J);
        assertThat(next.statusCode()).as(next.body()).isEqualTo(202);
        assertThat(json(next).has("resync")).as("taken as is").isFalse();
        assertThat(held("w2", J)).isEqualTo(624);

        assertLost(api.post("/v1/kv-events", "{\"worker\":\"w2\",\"sequence\":8,\"foo\":1,\"events\":[]}"), 8);
        assertThat(held("w2", J)).as("cleared").isZero();
        next = batch("w2", 20, "stored", I);
        assertThat(next.statusCode()).as(next.body()).isEqualTo(202);
        assertThat(json(next).has("resync")).as("taken as is").isFalse();
        assertThat(held("w2", I)).isEqualTo(624);

        // An epoch out of range on a numbered batch: lost the same way.
        assertLost(api.post("/v1/kv-events", "{\"worker\":\"w2\",\"sequence\":21,\"epoch\":" + Long.MIN_VALUE
                + ",\"events\":[]}"), 21);
        assertThat(held("w2", I)).as("cleared").isZero();
    }

    private static void assertLost(HttpResponse<String> refused, long sequence) throws Exception {
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
        assertThat(json(refused).get("error").asText()).endsWith("(batch " + sequence + " is lost: the worker's index "
                + "entries are cleared and its next batch is taken as is)");
    }

    /**
     * With the engine's run named, a batch of the run before a restart that arrives after the new run's first is
     * skipped: read by its number alone it was a gap, which cleared the new run's entries, applied the old run's, and
     * had the new run's next batches skipped as old.
     */
    @Test
    void aBatchOfTheRunBeforeARestartIsSkippedWhenRunsAreNamed() throws Exception {
        for (int i = 0; i <= 5; i++) {
            assertThat(ofRun(100, i, G).statusCode()).isEqualTo(202);
        }
        HttpResponse<String> newRun = ofRun(200, 0, H);
        assertThat(newRun.statusCode()).isEqualTo(202);
        assertThat(json(newRun).get("resync").asText()).startsWith("run 200 after run 100: the engine restarted");
        HttpResponse<String> late = ofRun(100, 6, G);
        assertThat(late.statusCode()).isEqualTo(200);
        assertThat(json(late).get("skipped").asText())
                .isEqualTo("batch 6 of run 100 is from an earlier run than the worker's, 200: not applied");
        assertThat(ofRun(200, 1, H).statusCode()).as("the new run goes on").isEqualTo(202);
        assertThat(held("w2", G)).as("the old run's blocks stay gone").isZero();
        assertThat(held("w2", H)).isEqualTo(624);
        HttpResponse<String> noSequence = api.post("/v1/kv-events",
                "{\"worker\":\"w2\",\"epoch\":300,\"events\":[{\"type\":\"cleared\"}]}");
        assertThat(noSequence.statusCode()).isEqualTo(400);
        assertThat(json(noSequence).get("error").asText()).startsWith("field 'epoch' needs a 'sequence'");
    }

    private static HttpResponse<String> ofRun(long epoch, long sequence, long first) throws Exception {
        return api.post("/v1/kv-events", "{\"worker\":\"w2\",\"epoch\":" + epoch + ",\"sequence\":" + sequence
                + ",\"events\":[{\"type\":\"stored\",\"tier\":\"hbm\",\"block_hashes\":" + chained(first) + "}]}");
    }

    @Test
    void aNegativeSequenceIsRefusedNamingTheField() throws Exception {
        HttpResponse<String> r = api.post("/v1/kv-events",
                "{\"worker\":\"w2\",\"sequence\":-1,\"events\":[{\"type\":\"cleared\"}]}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).get("error").asText()).startsWith("field 'sequence': must be ≥ 0");
    }
}
