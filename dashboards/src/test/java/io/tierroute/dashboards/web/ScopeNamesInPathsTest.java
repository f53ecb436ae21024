package io.tierroute.dashboards.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.Dashboard;
import io.tierroute.dashboards.DashboardFixture;
import io.tierroute.dashboards.Snapshots;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A scope name with '/', '%', a space or non-ASCII in it is reachable through the API under its percent-encoded name
 * (as the page's encodeURIComponent sends it), read and pinned; a path that is no valid encoding is a 400.
 */
class ScopeNamesInPathsTest {

    private static final String TOKEN = "t0ken";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** '/' (which Undertow leaves as %2F), '%' (which it decodes), a space. */
    private static final String SLASHED = "a/b c%";
    /** What SLASHED would look like if the dashboard decoded %25 but not %2F: a different scope. */
    private static final String LOOKALIKE = "a%2Fb c%";
    /** Non-ASCII, ';' (a path parameter when raw) and '+' (a plus in a path, not a space). */
    private static final String OTHER = "ünï;x+y";

    @RegisterExtension
    final DashboardFixture fixture = DashboardFixture.seededWith(Snapshots.accepted("default", 1),
            Snapshots.accepted(SLASHED, 1), Snapshots.accepted(SLASHED, 2), Snapshots.accepted(SLASHED, 3),
            Snapshots.accepted(LOOKALIKE, 7), Snapshots.accepted(OTHER, 4));
    private final HttpClient http = HttpClient.newHttpClient();
    private Dashboard dashboard;

    @BeforeEach
    void startDashboard() throws Exception {
        dashboard = fixture.startDashboard(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, TOKEN,
                "TEST_TOKEN", "default"));
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(dashboard.uri().resolve(path.substring(1))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(dashboard.uri().resolve(path.substring(1)))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aScopeWithSlashPercentAndSpaceIsReadAndPinnedUnderItsEncodedName() throws Exception {
        String versionsPath = DashboardRoute.VERSIONS.path(SLASHED, 0);
        assertThat(versionsPath).isEqualTo("/api/v1/scopes/a%2Fb%20c%25/versions");

        HttpResponse<String> r = get(versionsPath + "?last=2");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode versions = JSON.readTree(r.body());
        assertThat(versions.get("total").asInt()).isEqualTo(3);
        assertThat(versions.get("versions")).extracting(v -> v.get("version").asLong()).containsExactly(3L, 2L);
        JsonNode lookalike = JSON.readTree(get(DashboardRoute.VERSIONS.path(LOOKALIKE, 0)).body());
        assertThat(lookalike.get("versions")).extracting(v -> v.get("version").asLong()).containsExactly(7L);

        for (DashboardRoute read : new DashboardRoute[] {DashboardRoute.VERSION, DashboardRoute.TIMELINES,
                DashboardRoute.RHO, DashboardRoute.CALIBRATION}) {
            HttpResponse<String> a = get(read.path(SLASHED, 2));
            assertThat(a.statusCode()).as(read + ": " + a.body()).isEqualTo(200);
        }
        assertThat(JSON.readTree(get(DashboardRoute.VERSION.path(SLASHED, 2)).body()).get("params").get("alphaP")
                .get("value").asDouble()).isEqualTo(2.5);

        r = post(DashboardRoute.PIN.path(SLASHED, 0), "{\"version\": 2, \"reason\": \"slashed scope\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).get("scope").asText()).isEqualTo(SLASHED);
        assertThat(Broker.controlRecords()).singleElement().satisfies(c -> {
            assertThat(c.getScope()).isEqualTo(SLASHED);
            assertThat(c.getVersion()).isEqualTo(2L);
        });
        Broker.await(Duration.ofSeconds(30), () -> {
            try {
                JsonNode now = JSON.readTree(get(versionsPath).body());
                return now.get("pinnedVersion").asLong() == 2;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }, "the pin of '" + SLASHED + "' shown under its encoded name");
        assertThat(JSON.readTree(get(DashboardRoute.VERSIONS.path(LOOKALIKE, 0)).body()).get("pinnedVersion").isNull())
                .as("the look-alike scope is not pinned").isTrue();

        r = post(DashboardRoute.UNPIN.path(SLASHED, 0), "{\"reason\": \"done\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    @Test
    void aScopeWithNonAsciiSemicolonAndPlusIsRead() throws Exception {
        String path = DashboardRoute.VERSIONS.path(OTHER, 0);
        assertThat(path).isEqualTo("/api/v1/scopes/%C3%BCn%C3%AF%3Bx%2By/versions");
        HttpResponse<String> r = get(path);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).get("versions")).extracting(v -> v.get("version").asLong())
                .containsExactly(4L);
    }

    /**
     * A '%' without two hex digits never reaches the API: Undertow's request parser answers it with its own empty 400
     * (and closes the connection) before any handler runs. Escapes that are well formed but not UTF-8 do reach it, and
     * get the API's JSON 400, on reads and writes alike.
     */
    @Test
    void aPathThatIsNoValidEncodingIsABadRequest() throws Exception {
        for (String scope : new String[] {"%zz", "a%2", "%%41"}) {
            assertThat(rawGet("/api/v1/scopes/" + scope + "/versions")).as(scope).startsWith("HTTP/1.1 400 ");
        }
        for (String scope : new String[] {"%C3%28", "%FF", "a%E2%82"}) { // a bad continuation, no UTF-8 byte, cut short
            String answer = rawGet("/api/v1/scopes/" + scope + "/versions");
            assertThat(answer).as(scope).startsWith("HTTP/1.1 400 ");
            assertThat(errorOf(answer)).as(scope)
                    .isEqualTo("the scope in the path, '" + scope + "', does not decode as UTF-8");
        }
        String body = "{\"version\": 1, \"reason\": \"r\"}";
        String pin = raw("POST /api/v1/scopes/%FF/pin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                + "Authorization: Bearer " + TOKEN + "\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body);
        assertThat(pin).startsWith("HTTP/1.1 400 ");
        assertThat(errorOf(pin)).contains("does not decode as UTF-8");
        assertThat(Broker.controlRecords()).isEmpty();
    }

    private static String errorOf(String answer) throws Exception {
        return JSON.readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4)).get("error").asText();
    }

    /** One GET on a fresh connection with the path exactly as given (HttpClient's URI refuses a bad escape). */
    private String rawGet(String path) throws Exception {
        return raw("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    }

    /** Sends {@code request} as it is on a fresh connection; the whole answer. */
    private String raw(String request) throws Exception {
        try (Socket socket = new Socket(dashboard.uri().getHost(), dashboard.uri().getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
