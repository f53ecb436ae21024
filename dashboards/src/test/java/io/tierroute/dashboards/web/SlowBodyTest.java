package io.tierroute.dashboards.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.dashboards.Dashboard;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Requests that declare a body and do not send it: answered (401 without a token, the status for a GET) and their
 * connections closed, not drained on the dashboard's 8 worker threads. Ten such sockets, no token needed, held the
 * page and the API for as long as they stayed open while /healthz said all was well.
 */
class SlowBodyTest {

    private static final String TOKEN = "t0ken-t0ken-t0ken";

    @Test
    void tenRequestsThatNeverSendTheirBodiesHoldNeitherThePageNorTheApi() throws Exception {
        String bootstrap = "127.0.0.1:" + freePort(); // the history is not needed: only the HTTP side is asked
        try (Dashboard d = Dashboard.start(new Dashboard.Settings(bootstrap, "127.0.0.1", 0, TOKEN, "TEST_TOKEN",
                "default"))) {
            URI base = d.uri();
            List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < 10; i++) {
                    String path = i % 2 == 0 ? "/api/v1/scopes/default/pin" : "/api/v1/status";
                    String method = i % 2 == 0 ? "POST" : "GET";
                    Socket s = new Socket(base.getHost(), base.getPort());
                    s.setSoTimeout(10_000);
                    held.add(s);
                    OutputStream out = s.getOutputStream();
                    out.write((method + " " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 1000\r\n\r\n{").getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
                for (int i = 0; i < held.size(); i++) { // each answered, and its connection closed after it
                    String answer = new String(readToEnd(held.get(i).getInputStream()), StandardCharsets.US_ASCII);
                    assertThat(answer).as("socket " + i).startsWith(i % 2 == 0 ? "HTTP/1.1 401" : "HTTP/1.1 200");
                }
                HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
                for (String p : new String[] {"api/v1/status", ""}) {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve(p))
                            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode()).as(p).isEqualTo(200);
                }
            } finally {
                for (Socket s : held) {
                    s.close();
                }
            }
        }
    }

    @Test
    void aBodyDeclaredLargerThanTheLimitIsA413BeforeItIsReadAndAMediaTypeIsMatchedWhole() throws Exception {
        String bootstrap = "127.0.0.1:" + freePort();
        try (Dashboard d = Dashboard.start(new Dashboard.Settings(bootstrap, "127.0.0.1", 0, TOKEN, "TEST_TOKEN",
                "default"))) {
            URI base = d.uri();
            try (Socket s = new Socket(base.getHost(), base.getPort())) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(("POST /api/v1/scopes/default/pin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                        + TOKEN + "\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n{")
                        .getBytes(StandardCharsets.US_ASCII));
                String answer = new String(readToEnd(s.getInputStream()), StandardCharsets.UTF_8);
                assertThat(answer).startsWith("HTTP/1.1 413").contains("the request body is larger than 16384 bytes");
            }
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(base.resolve(
                    "api/v1/scopes/default/pin")).header("Authorization", "Bearer " + TOKEN)
                    .header("Content-Type", "application/jsonfoo")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"version\":1,\"reason\":\"r\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(415);
        }
    }

    private static byte[] readToEnd(InputStream in) throws java.io.IOException {
        return in.readAllBytes(); // the server closes the connection after its answer
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
