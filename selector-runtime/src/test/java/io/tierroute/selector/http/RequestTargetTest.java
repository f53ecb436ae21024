package io.tierroute.selector.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.StringJoiner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The request target is decoded once, strictly, by the API ({@link RequestTarget}) rather than by Undertow: a valid
 * escape means what it meant before, one that is not UTF-8 and a request with too many parameters get the API's JSON
 * 400 (Undertow routed on U+FFFD and answered a bare 400), and a '%' without two hex digits is still Undertow's bare 400.
 * Raw requests on a socket: HttpClient's URI refuses the bad escapes these send.
 */
class RequestTargetTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String AUTH = "Authorization: Bearer " + ApiTestServer.TOKEN + "\r\n";

    @TempDir
    Path dir;
    private ApiTestServer api;

    @BeforeEach
    void start() {
        // Names with a space, non-ASCII, '+', '%' and '/' in them: each reachable only through its escapes.
        api = new ApiTestServer("""
                workers:
                  - {name: "w 0"}
                  - {name: "ü-1"}
                  - {name: "a+b"}
                  - {name: "50%"}
                  - {name: "x/y"}
                """, dir, ApiTestServer.TOKEN);
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void validEscapesNameWhatTheyNamedBefore() throws Exception {
        for (String[] c : new String[][] {{"w%200", "w 0"}, {"%C3%BC-1", "ü-1"}, {"a+b", "a+b"}, {"a%2Bb", "a+b"},
                {"50%25", "50%"}}) {
            String answer = drain(c[0]);
            assertThat(answer).as(c[0]).startsWith("HTTP/1.1 200 ");
            assertThat(body(answer).get("worker").asText()).as(c[0]).isEqualTo(c[1]);
        }
        // As before, an encoded slash stays encoded in a path (it is no separator): "x/y" cannot be named there.
        String slash = drain("x%2Fy");
        assertThat(slash).startsWith("HTTP/1.1 404 ");
        assertThat(error(slash)).isEqualTo("unknown worker 'x%2Fy'");
        // A query is decoded too, '+' as a space: "ye%73" is "yes", refused as it was.
        assertThat(error(post("/v1/route?dry_run=ye%73", "{\"text\":\"hi\"}", 400)))
                .isEqualTo("dry_run must be true or false, got 'yes'");
        assertThat(error(post("/v1/route?dry_run=+tru%65", "{\"text\":\"hi\"}", 400)))
                .isEqualTo("dry_run must be true or false, got ' true'");
        assertThat(body(post("/v1/route?dry_run=tru%65", "{\"text\":\"hi\"}", 200)).has("worker")).isTrue();
    }

    @Test
    void anEscapeThatIsNotUtf8IsAJson400NamingIt() throws Exception {
        assertThat(error(get("/v1/workers%E0%A4", 400))).isEqualTo("the path is not valid percent-encoded UTF-8: "
                + "'%E0%A4' at character 12 of '/v1/workers%E0%A4' (percent-encode the UTF-8 bytes of every character, "
                + "as encodeURIComponent does)");
        assertThat(error(get("/v1/workers?scope=%E0%A4", 400)))
                .startsWith("query parameter 'scope' is not valid percent-encoded UTF-8: '%E0%A4' at character 1");
        assertThat(error(get("/v1/workers?%FF=1", 400)))
                .startsWith("a query parameter's name is not valid percent-encoded UTF-8: '%FF'");
        assertThat(error(get("/v1/workers/w%C3%28/drain;x=1", 400))).contains("'%C3' at character 14"); // ( is no continuation
        // Refused before anything acted on it: no worker was drained.
        String drain = drain("%C3%BC%FF-1");
        assertThat(drain).startsWith("HTTP/1.1 400 ").contains("Content-Type: application/json");
        assertThat(error(drain)).contains("'%FF' at character 19");
        for (JsonNode w : body(get("/v1/workers", 200)).get("workers")) {
            assertThat(w.get("draining").asBoolean()).as(w.toString()).isFalse();
        }
    }

    @Test
    void tooManyParametersAreAJson400UpToWhatARequestHeadHolds() throws Exception {
        assertThat(get("/healthz?" + parameters(RequestTarget.MAX_PARAMETERS), 200)).endsWith("ok");
        assertThat(error(get("/healthz?" + parameters(RequestTarget.MAX_PARAMETERS + 1), 400)))
                .startsWith("1001 query parameters; at most 1000 are read");
        // 30,000 in 60 KB, within the 64 KiB request head: Undertow (which stopped at 1,000) parses them all.
        assertThat(error(get("/healthz?" + "a&".repeat(30_000), 400))).startsWith("30000 query parameters");
        assertThat(error(get("/healthz;" + "a;".repeat(1_001), 400))).startsWith("1001 path parameters");
    }

    /** What cannot be intercepted: Undertow's parser refuses a '%' without two hex digits whatever its options. */
    @Test
    void aMalformedEscapeIsStillUndertowsBare400() throws Exception {
        for (String target : new String[] {"/v1/workers%zz", "/v1/workers?scope=%4", "/healthz%"}) {
            String answer = raw("GET " + target + " HTTP/1.1\r\nHost: s\r\n\r\n");
            assertThat(answer).as(target).startsWith("HTTP/1.1 400 ").contains("Content-Length: 0")
                    .contains("Connection: close");
        }
    }

    private static String parameters(int n) {
        StringJoiner q = new StringJoiner("&");
        for (int i = 0; i < n; i++) {
            q.add("p" + i + "=1");
        }
        return q.toString();
    }

    private String drain(String encodedName) throws Exception {
        return raw("POST /v1/workers/" + encodedName + "/drain HTTP/1.1\r\nHost: s\r\n" + AUTH
                + "Content-Length: 0\r\nConnection: close\r\n\r\n");
    }

    private String get(String target, int status) throws Exception {
        String answer = raw("GET " + target + " HTTP/1.1\r\nHost: s\r\nConnection: close\r\n\r\n");
        assertThat(answer).as(target).startsWith("HTTP/1.1 " + status + " ");
        return answer;
    }

    private String post(String target, String json, int status) throws Exception {
        String answer = raw("POST " + target + " HTTP/1.1\r\nHost: s\r\nConnection: close\r\nContent-Length: "
                + json.length() + "\r\n\r\n" + json);
        assertThat(answer).as(target).startsWith("HTTP/1.1 " + status + " ");
        return answer;
    }

    private static JsonNode body(String answer) throws Exception {
        return JSON.readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4));
    }

    private static String error(String answer) throws Exception {
        return body(answer).get("error").asText();
    }

    /** Sends {@code request} as it is on a fresh connection; the whole answer, read until the server closes. */
    private String raw(String request) throws Exception {
        try (Socket socket = new Socket(api.uri("/").getHost(), api.uri("/").getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
