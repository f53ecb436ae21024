package io.tierroute.dashboards.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.Dashboard;
import io.tierroute.dashboards.DashboardFixture;
import io.tierroute.dashboards.Snapshots;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLHandshakeException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every route of {@link DashboardRoute} against no, wrong, lesser and right credentials, with the reads
 * open and closed; HTTPS; the header bounds; and no token in the log output or the answers.
 */
class DashboardAccessTest {

    private static final String OPERATOR = "op-" + UUID.randomUUID();
    private static final String READ = "rd-" + UUID.randomUUID();
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final DashboardFixture fixture = DashboardFixture.seededWith(Snapshots.accepted("default", 1),
            Snapshots.accepted("default", 2));
    @TempDir
    Path dir;
    private HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Dashboard dashboard;

    private void start(Dashboard.Settings s) throws InterruptedException {
        dashboard = fixture.startDashboard(s);
    }

    private static Dashboard.Settings settings() {
        return new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, OPERATOR, "TEST_OPERATOR_TOKEN", "default");
    }

    private HttpResponse<String> call(DashboardRoute r, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(dashboard.uri().resolve(r.path("default", 1).substring(1)))
                .timeout(Duration.ofSeconds(10));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        if (r.method().equals("GET")) {
            b.GET();
        } else {
            String body = r == DashboardRoute.PIN ? "{\"version\":1,\"reason\":\"access test\"}"
                    : "{\"reason\":\"access test\"}";
            b.method(r.method(), HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json");
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String basic(String password) {
        return "Basic " + Base64.getEncoder().encodeToString(("anyone:" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static void assertRefused(HttpResponse<String> r, String what, Integer... statuses) throws Exception {
        assertThat(r.statusCode()).as(what + ": " + r.body()).isIn((Object[]) statuses);
        assertThat(r.headers().firstValue("content-type")).as(what).contains("application/json");
        JsonNode error = JSON.readTree(r.body()).get("error");
        assertThat(error).as(what + ": " + r.body()).isNotNull();
        assertThat(error.asText()).as(what).contains("token");
    }

    private static List<DashboardRoute> routes(DashboardRoute.Access a) {
        return Arrays.stream(DashboardRoute.values()).filter(r -> r.access() == a).toList();
    }

    private long activeVersion() throws Exception {
        HttpResponse<String> s = call(DashboardRoute.STATUS, "Bearer " + OPERATOR);
        return JSON.readTree(s.body()).get("scopes").get(0).get("activeVersion").asLong();
    }

    @Test
    void onlyGetRoutesAreReads() {
        for (DashboardRoute r : DashboardRoute.values()) {
            if (!r.method().equals("GET")) {
                assertThat(r.access()).as(r + " changes state").isEqualTo(DashboardRoute.Access.WRITE);
            }
        }
        assertThat(routes(DashboardRoute.Access.WRITE)).containsExactlyInAnyOrder(DashboardRoute.PIN,
                DashboardRoute.UNPIN, DashboardRoute.ROLLBACK);
    }

    @Test
    void everyWriteIsRefusedWithoutTheOperatorTokenWhetherReadsAreOpenOrClosed() throws Exception {
        for (boolean closed : List.of(false, true)) {
            start(closed ? settings().withClosedReads(READ, "TEST_READ_TOKEN") : settings());
            for (DashboardRoute r : routes(DashboardRoute.Access.WRITE)) {
                String what = r + (closed ? " (reads closed)" : " (reads open)");
                assertRefused(call(r, null), what + " without a token", 401);
                assertRefused(call(r, "Bearer wrong"), what + " with a wrong token", 401);
                assertRefused(call(r, "Bearer " + OPERATOR + "x"), what + " with the token and one more character",
                        401);
                assertRefused(call(r, "Bearer " + READ), what + " with the read token", 401, 403);
                assertRefused(call(r, basic(OPERATOR)), what + " with the operator token as Basic", 401);
            }
            assertThat(activeVersion()).as("nothing was pinned or rolled back").isEqualTo(2);
            assertThat(dashboard.history().scope("default").orElseThrow().pinned()).isFalse();
            for (DashboardRoute r : routes(DashboardRoute.Access.WRITE)) {
                HttpResponse<String> ok = call(r, "Bearer " + OPERATOR);
                assertThat(ok.statusCode()).as(r + ": " + ok.body()).isNotIn(401, 403, 404, 405, 500);
            }
            fixture.closeDashboard();
            dashboard = null;
            fixture.reseed();
        }
    }

    @Test
    void closedReadsNeedTheReadOrOperatorToken() throws Exception {
        start(settings().withClosedReads(READ, "TEST_READ_TOKEN"));
        for (DashboardRoute r : routes(DashboardRoute.Access.READ)) {
            HttpResponse<String> none = call(r, null);
            assertRefused(none, r + " without a token", 401);
            assertThat(none.headers().firstValue("www-authenticate")).as("a browser gets a login prompt")
                    .hasValueSatisfying(v -> assertThat(v).startsWith("Basic realm="));
            assertRefused(call(r, "Bearer wrong"), r + " with a wrong token", 401);
            assertRefused(call(r, basic("wrong")), r + " with a wrong Basic password", 401);
            for (String ok : List.of("Bearer " + READ, basic(READ), "Bearer " + OPERATOR, basic(OPERATOR))) {
                HttpResponse<String> resp = call(r, ok);
                assertThat(resp.statusCode()).as(r + " with " + ok.substring(0, 6) + ": " + resp.body()).isEqualTo(200);
            }
        }
        for (DashboardRoute r : routes(DashboardRoute.Access.PROBE)) {
            assertThat(call(r, null).statusCode()).as(r + " stays open").isEqualTo(200);
        }
    }

    @Test
    void readsAreOpenByDefault() throws Exception {
        start(settings());
        for (DashboardRoute r : routes(DashboardRoute.Access.READ)) {
            HttpResponse<String> resp = call(r, null);
            assertThat(resp.statusCode()).as(r + ": " + resp.body()).isEqualTo(200);
        }
    }

    @Test
    void closedReadsWithoutAnyTokenAreRefusedWithWhatToSet() throws Exception {
        start(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, null, "TEST_OPERATOR_TOKEN", "default")
                .withClosedReads(null, "TEST_READ_TOKEN"));
        HttpResponse<String> r = call(DashboardRoute.STATUS, "Bearer x");
        assertRefused(r, "status", 403);
        assertThat(r.body()).contains("TEST_READ_TOKEN");
    }

    @Test
    void servesHttpsOnly() throws Exception {
        TestKeyStore ks = TestKeyStore.create(dir, "pw-" + UUID.randomUUID());
        start(settings().withTls(new WebTls(ks.file(), "PKCS12", ks.password(), "TEST_KS_PASSWORD")));
        assertThat(dashboard.uri().getScheme()).isEqualTo("https");
        http = HttpClient.newBuilder().sslContext(ks.clientContext()).connectTimeout(Duration.ofSeconds(5)).build();
        assertThat(call(DashboardRoute.PAGE, null).body()).contains("<html");
        HttpResponse<String> pin = call(DashboardRoute.PIN, "Bearer " + OPERATOR);
        assertThat(pin.statusCode()).as(pin.body()).isEqualTo(200);
        HttpClient untrusting = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThatThrownBy(() -> untrusting.send(HttpRequest.newBuilder(dashboard.uri()).build(),
                HttpResponse.BodyHandlers.ofString())).isInstanceOf(SSLHandshakeException.class);
        URI plain = URI.create("http://127.0.0.1:" + dashboard.uri().getPort() + "/healthz");
        assertThatThrownBy(() -> untrusting.send(HttpRequest.newBuilder(plain).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString())).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> Dashboard.start(settings().withTls(new WebTls(ks.file(), "PKCS12", "wrong-pass",
                "TEST_KS_PASSWORD")))).hasMessageContaining("dashboard.p12").hasMessageContaining("TEST_KS_PASSWORD")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("wrong-pass").doesNotContain(ks.password()));
    }

    @Test
    void headerBoundsRefuseOversizedRequests() throws Exception {
        start(settings());
        HttpResponse<String> big = sendOrNull(HttpRequest.newBuilder(dashboard.uri().resolve("healthz"))
                .header("X-Big", "a".repeat(DashboardServer.MAX_HEADER_BYTES + 1)).build());
        assertThat(big == null || big.statusCode() >= 400).as("a header block over the limit is refused").isTrue();
        HttpRequest.Builder many = HttpRequest.newBuilder(dashboard.uri().resolve("healthz"));
        for (int i = 0; i <= DashboardServer.MAX_HEADERS; i++) {
            many.header("X-H" + i, "v");
        }
        HttpResponse<String> tooMany = sendOrNull(many.build());
        assertThat(tooMany == null || tooMany.statusCode() >= 400).as("too many headers are refused").isTrue();
        HttpRequest.Builder fine = HttpRequest.newBuilder(dashboard.uri().resolve("healthz"))
                .header("X-Big", "a".repeat(DashboardServer.MAX_HEADER_BYTES / 2));
        for (int i = 0; i < DashboardServer.MAX_HEADERS / 2; i++) {
            fine.header("X-H" + i, "v");
        }
        assertThat(http.send(fine.build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }

    private HttpResponse<String> sendOrNull(HttpRequest r) throws InterruptedException {
        try {
            return http.send(r, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null; // the server closed the connection
        }
    }

    @Test
    void noTokenInTheLogsOrAnswers() throws Exception {
        PrintStream err = System.err;
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream tee = new PrintStream(captured, true, StandardCharsets.UTF_8);
        List<String> answers = new ArrayList<>();
        System.setErr(tee);
        System.setOut(tee);
        try {
            start(settings().withClosedReads(READ, "TEST_READ_TOKEN"));
            org.slf4j.LoggerFactory.getLogger(DashboardAccessTest.class).info("capture check: started {}",
                    dashboard.uri());
            for (DashboardRoute r : DashboardRoute.values()) {
                for (String t : List.of("Bearer " + OPERATOR, "Bearer " + READ, "Bearer " + OPERATOR + "x",
                        basic(READ + "x"), "Bearer " + READ.substring(2))) {
                    HttpResponse<String> resp = call(r, t);
                    answers.add(resp.statusCode() + " " + resp.headers().map() + " " + resp.body());
                }
            }
            // A failed start logs and throws: its message must not carry the tokens either.
            try {
                Dashboard.start(settings().withClosedReads(READ, "TEST_READ_TOKEN").withTls(
                        new WebTls(dir.resolve("missing.p12"), "PKCS12", OPERATOR, "TEST_KS_PASSWORD")));
            } catch (RuntimeException e) {
                answers.add(e.toString());
            }
            answers.add(settings().withClosedReads(READ, "TEST_READ_TOKEN").toString());
        } finally {
            System.setErr(err);
            System.setOut(out);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log).as("the capture works").contains("capture check: started");
        for (String s : List.of(OPERATOR, READ)) {
            assertThat(log).doesNotContain(s);
            assertThat(String.join("\n", answers)).doesNotContain(s);
        }
    }
}
