package io.tierroute.dashboards.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.Dashboard;
import io.tierroute.dashboards.DashboardFixture;
import io.tierroute.dashboards.Snapshots;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotControl;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The JSON API over HTTP against a real broker: reads, the operator token, bad input, a taken port. */
class DashboardApiTest {

    private static final String TOKEN = "t0ken";
    private static final ObjectMapper JSON = new ObjectMapper();
    @RegisterExtension
    final DashboardFixture fixture = DashboardFixture.seededWith(Snapshots.accepted("default", 1),
            Snapshots.rejected("default", 2), Snapshots.accepted("default", 3));
    private final HttpClient http = HttpClient.newHttpClient();
    private Dashboard dashboard;

    @BeforeEach
    void startDashboard() throws Exception {
        dashboard = fixture.startDashboard(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, TOKEN,
                "TEST_TOKEN", "default"));
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(dashboard.uri().resolve(path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String token, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(dashboard.uri().resolve(path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    /**
     * A write committed but not read back in time (here: the history reader stopped once caught up, so the history stays
     * ready and never sees it) stands: a 202 that says so, not the 503 "nothing was written: retry" it was, on which a
     * script retrying a rollback without "from" moved the scope back twice. Waits out the read-back (15 s).
     */
    @Test
    void aWriteCommittedButNotReadBackIsA202ThatSaysItStands() throws Exception {
        dashboard.reader().close();
        HttpResponse<String> r = post("api/v1/scopes/default/rollback", TOKEN, "{\"reason\": \"v3 drifted\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        JsonNode b = json(r);
        assertThat(b.get("written").asBoolean()).isTrue();
        assertThat(b.get("confirmed").asBoolean()).isFalse();
        assertThat(b.get("sequence").asLong()).isEqualTo(1);
        assertThat(b.get("version").asLong()).as("v2 is rejected").isEqualTo(1);
        assertThat(b.get("actor").asText()).isEqualTo("operator");
        assertThat(b.get("message").asText()).contains("was written to " + Topics.CONTROL).contains("do not repeat it");
        assertThat(Broker.controlRecords()).extracting(SnapshotControl::getSequence).containsExactly(1L);
    }

    @Test
    void readsVersionsTimelinesRhoAndCalibration() throws Exception {
        JsonNode status = json(get("api/v1/status"));
        assertThat(status.get("ready").asBoolean()).isTrue();
        assertThat(status.get("scopes").get(0).get("activeVersion").asLong()).isEqualTo(3);
        assertThat(status.get("kafkaConnected").asBoolean()).isTrue();
        assertThat(status.get("kafkaUnreachableSinceMs").isNull()).isTrue();

        JsonNode versions = json(get("api/v1/scopes/default/versions"));
        assertThat(versions.get("versions")).hasSize(3);
        JsonNode v2 = versions.get("versions").get(1);
        assertThat(v2.get("status").asText()).isEqualTo("REJECTED");
        assertThat(v2.get("rejectReasons").get(0).asText()).contains("alphaP jumped");
        assertThat(versions.get("versions").get(0).get("active").asBoolean()).isTrue();

        JsonNode one = json(get("api/v1/scopes/default/versions/3"));
        assertThat(one.get("params").get("alphaP").get("value").asDouble()).isEqualTo(3.5);
        assertThat(one.get("params").get("alphaP").get("samples").asLong()).isEqualTo(3000);
        assertThat(one.get("params").get("alphaP").get("unit").asText()).isEqualTo("µs/token");
        assertThat(one.get("params").get("alphaP").get("windowEndMs").asLong()).isEqualTo(Snapshots.T0);
        assertThat(one.get("rho")).hasSize(6);

        // A window of the newest versions: what the page asks for, so a long history is not re-sent whole each second.
        JsonNode newest = json(get("api/v1/scopes/default/versions?last=2"));
        assertThat(newest.get("total").asInt()).isEqualTo(3);
        assertThat(newest.get("versions")).extracting(n -> n.get("version").asLong()).containsExactly(3L, 2L);
        JsonNode newestLines = json(get("api/v1/scopes/default/timelines?last=1"));
        assertThat(newestLines.get("params").get("alphaP").get("points")).hasSize(1);
        assertThat(newestLines.get("params").get("alphaP").get("points").get(0).get("version").asLong()).isEqualTo(3);
        assertThat(get("api/v1/scopes/default/versions?last=0").statusCode()).isEqualTo(400);
        // One read covers at most maxPerRead versions (the whole history's timelines were ~100 MB of heap a read).
        assertThat(versions.get("maxPerRead").asInt()).isEqualTo(HistoryViews.MAX_PER_READ);
        HttpResponse<String> tooMany = get("api/v1/scopes/default/timelines?last=" + (HistoryViews.MAX_PER_READ + 1));
        assertThat(tooMany.statusCode()).isEqualTo(400);
        assertThat(json(tooMany).get("error").asText()).isEqualTo("last must be an integer from 1 to "
                + HistoryViews.MAX_PER_READ + " (the newest versions to show), got '" + (HistoryViews.MAX_PER_READ + 1) + "'");

        JsonNode timelines = json(get("api/v1/scopes/default/timelines"));
        assertThat(timelines.get("params").get("alphaP").get("points")).hasSize(3);
        assertThat(timelines.get("params").get("alphaP").get("points").get(1).get("status").asText())
                .isEqualTo("REJECTED");

        JsonNode rho = json(get("api/v1/scopes/default/rho"));
        assertThat(rho.get("version").asLong()).isEqualTo(3);
        assertThat(rho.get("workers")).hasSize(3);
        assertThat(rho.get("cells")).hasSize(6);
        assertThat(rho.get("cells")).filteredOn(c -> c.has("referenceBytesPerSecond"))
                .as("the one link measured against its own rate says so").singleElement()
                .satisfies(c -> assertThat(c.get("referenceBytesPerSecond").asDouble()).isEqualTo(14e9));
        assertThat(rho.get("status").asText()).isEqualTo("ACCEPTED");
        assertThat(rho.get("activeVersion").asLong()).as("the page marks a newest snapshot nobody serves").isEqualTo(3);

        JsonNode cal = json(get("api/v1/scopes/default/calibration"));
        assertThat(cal.get("present").asBoolean()).isTrue();
        assertThat(cal.get("status").asText()).isEqualTo("ACCEPTED");
        assertThat(cal.get("activeVersion").asLong()).isEqualTo(3);
        assertThat(cal.get("coverage")).as("the forest's held-out coverage per quantile").hasSize(3);
        assertThat(cal.get("coverage").get(1).get("q").asDouble()).isEqualTo(0.5);
        assertThat(cal.get("coverage").get(1).get("coverage").asDouble()).isEqualTo(0.45);
        assertThat(cal.get("coverage").get(1).get("rows").asLong()).isEqualTo(20);
        assertThat(cal.get("invalidCoverageEntries").asInt()).isZero();
        assertThat(cal.get("targetQuantiles")).hasSize(CalibrationView.QUANTILES.length);
        assertThat(cal.get("trainingRows").asLong()).isEqualTo(100);

        assertThat(get("vendor/uplot/uPlot.iife.min.js").statusCode()).as("uPlot from the WebJar").isEqualTo(200);
        assertThat(get("").body()).contains("dashboard.js");
        assertThat(get("healthz").statusCode()).isEqualTo(200);
    }

    /**
     * Records the selectors refuse are counted and named: a PIN without a version (ignored, as every reader does), and a
     * snapshot carrying its forest under another version's name, shown without that forest (filed with it, the forest
     * would stand for the other version's) while its status counts, as in every reader's activation rule.
     */
    @Test
    void recordsEverySelectorRefusesAreCountedAsBad() throws Exception {
        Broker.publish(fixture.producer(), Snapshots.accepted("default", 4).setQuantileModelVersion(2L).build());
        SnapshotControl pin = SnapshotControl.newBuilder().setScope("default").setSequence(1)
                .setAction(ControlAction.PIN).setVersion(null).setActor("ops").setReason("no version")
                .setTimestampMs(Snapshots.T0).build();
        fixture.producer().send(new ProducerRecord<>(Topics.CONTROL, Topics.controlKey("default", 1)
                .getBytes(StandardCharsets.UTF_8), Codecs.SNAPSHOT_CONTROL.encode(pin))).get();
        Broker.await(Duration.ofSeconds(20), () -> dashboard.reader().badRecords() == 2, "both records counted as bad");

        JsonNode status = json(get("api/v1/status"));
        assertThat(status.get("badRecords").asLong()).isEqualTo(2);
        assertThat(status.get("lastError").asText()).contains("PIN needs a version");
        assertThat(status.get("scopes").get(0).get("activeVersion").asLong())
                .as("the same active version as the selectors' and the CLI's rule").isEqualTo(4);
        assertThat(status.get("scopes").get(0).get("controlSequence").asLong()).isZero();
        assertThat(json(get("api/v1/scopes/default/versions")).get("versions"))
                .extracting(n -> n.get("version").asLong()).containsExactly(4L, 3L, 2L, 1L);
        JsonNode cal = json(get("api/v1/scopes/default/calibration"));
        assertThat(cal.get("version").asLong()).isEqualTo(4);
        assertThat(cal.get("present").asBoolean()).as("no forest filed under the wrong version").isFalse();
    }

    /**
     * A snapshot without a quantile model: the calibration view gives the message alone, no note on the coverage of a
     * forest that is not there (it said the forest "carries no calibration: it was trained before the field existed").
     */
    @Test
    void aSnapshotWithoutAModelGetsItsMessageAndNoCoverageNote() throws Exception {
        Broker.publish(fixture.producer(), Snapshots.accepted("default", 4).setQuantileModel(null).build());
        Broker.await(Duration.ofSeconds(20), () -> dashboard.reader().recordsRead() == 4, "version 4 read");

        JsonNode cal = json(get("api/v1/scopes/default/calibration"));
        assertThat(cal.get("version").asLong()).isEqualTo(4);
        assertThat(cal.get("present").asBoolean()).isFalse();
        assertThat(cal.get("message").asText()).isEqualTo("version 4 has no quantile model (d̂ falls back to max_tokens / 2)");
        assertThat(cal.has("coverageNote")).as(cal.toString()).isFalse();
        assertThat(cal.get("coverage")).isEmpty();
    }

    /** A rejected forest whose leaves' sample ranges overlap: its calibration is shown, its samples are not read. */
    @Test
    void aMalformedForestIsDescribedNotAServerError() throws Exception {
        Broker.publish(fixture.producer(), Snapshots.rejected("default", 4).setQuantileModel(
                QuantileForestModel.newBuilder(Snapshots.forest()).setLeafSampleOffsets(List.of(0, 6, 2)).build()).build());
        Broker.await(Duration.ofSeconds(20), () -> dashboard.reader().recordsRead() == 4, "version 4 read");

        HttpResponse<String> r = get("api/v1/scopes/default/calibration");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode cal = json(r);
        assertThat(cal.get("version").asLong()).isEqualTo(4);
        assertThat(cal.get("status").asText()).isEqualTo("REJECTED");
        assertThat(cal.get("coverage")).hasSize(3);
        assertThat(cal.get("targetQuantiles")).isEmpty();
        assertThat(cal.get("targetQuantilesProblem").asText()).isEqualTo("leaf 1 has the sample range [6, 2) of 8 samples");
    }

    /** The page re-reads versions and timelines at every new snapshot: a browser gets them gzipped, the same JSON. */
    @Test
    void largeAnswersAreGzippedForAClientThatAcceptsItAndSmallOnesAreNot() throws Exception {
        for (String path : new String[] {"api/v1/scopes/default/versions", "api/v1/scopes/default/timelines",
                "vendor/uplot/uPlot.iife.min.js"}) {
            HttpResponse<String> plain = get(path);
            HttpResponse<byte[]> zipped = http.send(HttpRequest.newBuilder(dashboard.uri().resolve(path))
                    .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(plain.headers().firstValue("Content-Encoding")).as(path + " without Accept-Encoding").isEmpty();
            assertThat(zipped.headers().firstValue("Content-Encoding")).as(path).hasValue("gzip");
            try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(zipped.body()))) {
                assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(plain.body());
            }
            assertThat(zipped.body().length).as(path + " compressed").isLessThan(plain.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length / 2);
            assertThat(zipped.headers().allValues("Vary")).as("caches keep the two apart").contains("Accept-Encoding");
        }
        HttpResponse<byte[]> part = http.send(HttpRequest.newBuilder(dashboard.uri().resolve(
                "vendor/uplot/uPlot.iife.min.js")).header("Accept-Encoding", "gzip").header("Range", "bytes=0-4095")
                .build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(part.statusCode()).isEqualTo(206);
        assertThat(part.headers().firstValue("Content-Encoding")).as("a range goes out as it is").isEmpty();
        assertThat(part.body()).hasSize(4096);
        HttpResponse<byte[]> small = http.send(HttpRequest.newBuilder(dashboard.uri().resolve("api/v1/status"))
                .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(small.body().length).as("the status answer is small").isLessThan((int) DashboardServer.GZIP_MIN_BYTES);
        assertThat(small.headers().firstValue("Content-Encoding")).as("a small answer goes out as it is").isEmpty();
    }

    @Test
    void badRequestsGetAClearError() throws Exception {
        HttpResponse<String> r = get("api/v1/scopes/nope/versions");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(json(r).get("error").asText()).contains("unknown scope 'nope'").contains("default");
        assertThat(get("api/v1/scopes/default/versions/x").statusCode()).isEqualTo(400);
        assertThat(get("api/v1/scopes/default/versions/99").statusCode()).isEqualTo(404);
        // the version segment is percent-decoded as the scope is: %33 is 3, a bad escape is said
        assertThat(json(get("api/v1/scopes/default/versions/%33")).get("version").asLong()).isEqualTo(3);
        r = get("api/v1/scopes/default/versions/%FF");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).get("error").asText()).isEqualTo("the version in the path, '%FF', does not decode as UTF-8");
        assertThat(get("api/v1/nothing").statusCode()).isEqualTo(404);
        for (String missing : new String[] {"nope.html", "vendor/uplot/nope.js"}) { // files: said in JSON as well
            r = get(missing);
            assertThat(r.statusCode()).isEqualTo(404);
            assertThat(json(r).get("error").asText()).isEqualTo("nothing at /" + missing
                    + " (the page is at /, its API under /api)");
        }

        // The path names the scope and version; the query cannot stand in for it, and an unread parameter is said.
        r = get("api/v1/scopes/nope/versions?scope=default");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(json(r).get("error").asText()).contains("unknown query parameter 'scope'").contains("(it takes last)");
        r = get("api/v1/scopes/default/versions/1?version=3");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(json(r).get("error").asText()).contains("unknown query parameter 'version'").contains("(it takes none)");
        assertThat(get("api/v1/scopes/default/timelines?lats=3").statusCode()).isEqualTo(400);
        assertThat(get("api/v1/scopes/default/versions?last=1&last=2").statusCode()).isEqualTo(400);
        assertThat(get("api/v1/scopes/default/versions?last=1").statusCode()).isEqualTo(200);
        // Undertow takes ";last=1" out of the path: read by no route, so said rather than ignored (it was: all versions).
        r = get("api/v1/scopes/default/versions;last=1");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(json(r).get("error").asText()).contains("path parameter ';last'");
        r = post("api/v1/scopes/default/pin;dry_run=true", TOKEN, "{\"version\": 1, \"reason\": \"r\"}");
        assertThat(r.statusCode()).as("a pin with a path parameter is not written: " + r.body()).isEqualTo(400);
        r = post("api/v1/scopes/default/pin", TOKEN, "{\"version\": NaN, \"reason\": \"r\"}");
        assertThat(json(r).get("error").asText()).as("no server switch offered to the client")
                .contains("(not valid JSON)").doesNotContain("enable");
        r = post("api/v1/scopes/other/pin?scope=default", TOKEN, "{\"version\": 1, \"reason\": \"r\"}");
        assertThat(r.statusCode()).as("a write cannot be redirected to another scope: " + r.body()).isEqualTo(400);
        r = post("api/v1/scopes/default/pin?scope=default", null, "{\"version\": 1, \"reason\": \"r\"}");
        assertThat(r.statusCode()).as("credentials are checked before the query: " + r.body()).isEqualTo(401);
        r = post("api/v1/scopes/nope/pin", TOKEN, "{\"version\": 1, \"reason\": \"r\"}");
        assertThat(r.statusCode()).as("an unknown scope is 404 on a write as on a read").isEqualTo(404);
        r = post("api/v1/scopes/default/pin", TOKEN, "{\"version\": \"1\", \"reason\": \"r\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).get("error").asText()).isEqualTo("field 'version' must be a whole number, got \"1\" (a string)");

        r = post("api/v1/scopes/default/pin", TOKEN, "{\"version\": 1, \"reason\": \"r\", \"x\": 1}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).get("error").asText()).contains("unknown field 'x'");
        r = post("api/v1/scopes/default/pin", TOKEN, "{\"reason\": \"r\"}");
        assertThat(json(r).get("error").asText()).contains("'version' is required");
        r = post("api/v1/scopes/default/pin", TOKEN, "{\"version\": 2, \"reason\": \"r\"}");
        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(json(r).get("error").asText()).contains("REJECTED");
        r = post("api/v1/scopes/default/pin", TOKEN, "{\"version\": -3, \"reason\": \"r\"}");
        assertThat(r.statusCode()).as("a version that cannot exist is a bad request, as on the CLI").isEqualTo(400);
        assertThat(json(r).get("error").asText()).isEqualTo("field 'version' must be a version ≥ 1, got -3");
        r = post("api/v1/scopes/default/pin", TOKEN, "{\"version\": 224.5, \"reason\": \"r\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).get("error").asText()).isEqualTo("field 'version' must be a whole number, got 224.5");
        r = post("api/v1/scopes/default/pin", TOKEN, "{\"version\": \"two\", \"reason\": \"r\"}");
        assertThat(json(r).get("error").asText()).isEqualTo("field 'version' must be a whole number, got \"two\" (a string)");
        r = post("api/v1/scopes/default/pin", TOKEN, "[1]");
        assertThat(json(r).get("error").asText()).isEqualTo("malformed request body: expected a JSON object");
        r = post("api/v1/scopes/default/rollback", TOKEN, "{not json");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).get("error").asText()).startsWith("malformed JSON at line 1, column").doesNotContain("REDACTED");
        // The selector's words for the same mistake (schemas' JsonWire): positions, not the parser's source.
        r = post("api/v1/scopes/default/pin", TOKEN, "{\"version\": 1, \"reason\": \"r\"");
        assertThat(json(r).get("error").asText()).isEqualTo("malformed JSON at line 1, column 29: Unexpected end-of-input: "
                + "expected close marker for Object (start marker at line 1, column 1)");
        r = post("api/v1/scopes/default/pin", TOKEN, "{\"version\": " + "1".repeat(1_001) + ", \"reason\": \"r\"}");
        assertThat(json(r).get("error").asText())
                .isEqualTo("malformed JSON: Number value length (1001) exceeds the maximum allowed (1000)"); // the selector's too
        for (String action : new String[] {"pin", "unpin", "rollback"}) {
            r = post("api/v1/scopes/default/" + action, TOKEN, "null");
            assertThat(r.statusCode()).as(action + ": " + r.body()).isEqualTo(400);
            assertThat(json(r).get("error").asText()).isEqualTo("expected a JSON object, got null");
        }
        r = post("api/v1/scopes/default/pin", TOKEN, "{\"version\": 1, \"reason\": \"ok\\nFAKE: not pinned\\u001b[2J\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).get("error").asText()).contains("one line of printable text");
        r = post("api/v1/scopes/default/pin", TOKEN, "{\"version\": 1, \"from\": 4, \"reason\": \"r\"}");
        assertThat(json(r).get("error").asText()).contains("'from' is only for rollback");
        assertThat(Broker.controlRecords()).as("nothing written").isEmpty();
    }

    /** A 405 names what the resource takes (RFC 9110 §15.5.6); HEAD is GET without the body, as on the selector. */
    @Test
    void methodsAreSaidAndHeadAnswersLikeGet() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(dashboard.uri().resolve("api/v1/scopes/default/pin"))
                .DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(r.headers().firstValue("Allow")).hasValue("POST");
        r = post("api/v1/status", TOKEN, "{}");
        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(r.headers().firstValue("Allow")).hasValue("GET, HEAD");
        for (String path : new String[] {"api/v1/status", "api/v1/scopes/default/versions", "healthz"}) {
            HttpResponse<String> head = http.send(HttpRequest.newBuilder(dashboard.uri().resolve(path))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(head.statusCode()).as(path).isEqualTo(200); // was 405 on the API's read routes
            assertThat(head.headers().firstValue("Content-Type")).as(path).hasValue("application/json");
        }
        r = post("healthz", null, "{}");
        assertThat(r.statusCode()).as("the probe's path answers GET only: " + r.body()).isEqualTo(405);
        assertThat(r.headers().firstValue("Allow")).hasValue("GET, HEAD");
    }

    @Test
    void writesNeedTheOperatorToken() throws Exception {
        String body = "{\"reason\": \"bad alphaD\"}";
        HttpResponse<String> r = post("api/v1/scopes/default/rollback", null, body);
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(json(r).get("error").asText()).contains("Authorization: Bearer");
        r = post("api/v1/scopes/default/rollback", "wrong", body);
        assertThat(r.statusCode()).as("a wrong token is a credentials error, as on the selector").isEqualTo(401);
        assertThat(json(r).get("error").asText()).contains("wrong");
        assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).contains("invalid_token"));
        assertThat(Broker.controlRecords()).isEmpty();
        r = post("api/v1/scopes/default/rollback", TOKEN, "{\"reason\": \"typo\", \"from\": 999999}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
        assertThat(json(r).get("error").asText()).as("a typo, not a race").endsWith("scope 'default' has no version 999999")
                .doesNotContain("meanwhile");
        for (String[] pair : new String[][] {{TOKEN, "wrong"}, {"wrong", TOKEN}}) { // neither order writes
            r = http.send(HttpRequest.newBuilder(dashboard.uri().resolve("api/v1/scopes/default/rollback"))
                    .header("Content-Type", "application/json").header("Authorization", "Bearer " + pair[0])
                    .header("Authorization", "Bearer " + pair[1]).POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            assertThat(json(r).get("error").asText()).isEqualTo("the Authorization header is given 2 times; give it once");
        }
        assertThat(Broker.controlRecords()).isEmpty();

        r = post("api/v1/scopes/default/rollback", TOKEN, body);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r).get("version").asLong()).isEqualTo(1);
        assertThat(json(r).get("sequence").asLong()).isEqualTo(1);
        assertThat(json(get("api/v1/scopes/default/versions")).get("pinnedVersion").asLong()).isEqualTo(1);
        assertThat(post("api/v1/scopes/default/unpin", TOKEN, body).statusCode()).isEqualTo(200);
        assertThat(Broker.controlRecords()).as("a token configured without a name acts as 'operator'")
                .extracting(c -> c.getActor()).containsExactly("operator", "operator");
    }

    @Test
    void aTakenPortIsAClearError() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> Dashboard.start(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", port,
                    null, "TEST_TOKEN", "default")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("127.0.0.1:" + port).hasMessageContaining("port is taken");
        }
        // 192.0.2.1 (TEST-NET-1, RFC 5737) is no address of this machine: the host is what to change, not the port.
        assertThatThrownBy(() -> Dashboard.start(new Dashboard.Settings(Broker.bootstrap(), "192.0.2.1", 0,
                null, "TEST_TOKEN", "default")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not one of this machine's").hasMessageContaining("--host");
    }

    @Test
    void aKeptAliveConnectionIsServedAgainAndTricklingHeadersLoseTheirsAfterTheParseTimeout() throws Exception {
        try (Socket socket = new Socket(dashboard.uri().getHost(), dashboard.uri().getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            for (int i = 0; i < 2; i++) { // the same connection twice: kept alive between requests
                out.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertThat(answer(in)).startsWith("HTTP/1.1 200");
            }
            out.write("GET /healthz HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII)); // never ends
            out.flush();
            long from = System.nanoTime();
            assertThat(in.read()).as("the server gives up on the unfinished headers").isEqualTo(-1);
            Duration after = Duration.ofNanos(System.nanoTime() - from);
            assertThat(after).isBetween(Duration.ofMillis(DashboardServer.REQUEST_PARSE_TIMEOUT_MS - 1_000),
                    Duration.ofMillis(DashboardServer.REQUEST_PARSE_TIMEOUT_MS + 15_000));
        }
        assertThat(Duration.ofMillis(DashboardServer.IDLE_TIMEOUT_MS)).as("outlasts browsers' idle sockets")
                .isGreaterThan(Duration.ofMinutes(5));
    }

    /** One whole answer (headers byte by byte, then Content-Length bytes of body); returns its headers. */
    private static String answer(InputStream in) throws Exception {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            assertThat(b).as("answer cut after " + head.length() + " bytes").isNotNegative();
            head.append((char) b);
        }
        int contentLength = 0;
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                contentLength = Integer.parseInt(line.substring(15).trim());
            }
        }
        in.readNBytes(contentLength);
        return head.toString();
    }
}
