package io.tierroute.dashboards.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.dashboards.Dashboard;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.StringJoiner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * More than 16 query (or path) parameters is the dashboard's JSON 400 saying so, on every path: Undertow, which answered
 * it with a bare 400 before any handler, now parses what a 32 KiB request head can hold and leaves the refusal to
 * {@link ParameterLimit}. No Kafka is needed: the refusal comes before anything reads the history.
 */
class ParameterLimitTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private Dashboard dashboard;

    @BeforeEach
    void start() throws IOException {
        dashboard = Dashboard.start(new Dashboard.Settings("127.0.0.1:" + freePort(), "127.0.0.1", 0,
                "t0ken-t0ken-t0ken", "TEST_TOKEN", "default"));
    }

    @AfterEach
    void stop() {
        dashboard.close();
    }

    @Test
    void moreThanSixteenParametersIsAJson400() throws Exception {
        assertThat(get("/healthz?" + parameters(16))).startsWith("HTTP/1.1 200 ");
        for (String target : new String[] {"/healthz?" + parameters(17), "/api/v1/status?" + parameters(17),
                "/index.html?" + parameters(17)}) {
            String answer = get(target);
            assertThat(answer).as(target).startsWith("HTTP/1.1 400 ").contains("Content-Type: application/json");
            assertThat(error(answer)).as(target).isEqualTo("17 query parameters; at most 16 are read (the API takes "
                    + "one at most: ?last=N on versions and timelines)");
        }
        // 10,000 in 20 KB, within the 32 KiB request head: Undertow (which stopped at 16) parses them all.
        assertThat(error(get("/healthz?" + "a&".repeat(10_000)))).startsWith("10000 query parameters");
        assertThat(error(get("/healthz;" + "a;".repeat(17)))).startsWith("17 path parameters");
    }

    private static String parameters(int n) {
        StringJoiner q = new StringJoiner("&");
        for (int i = 0; i < n; i++) {
            q.add("p" + i + "=1");
        }
        return q.toString();
    }

    private static String error(String answer) throws Exception {
        return JSON.readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4)).get("error").asText();
    }

    /** One GET on a fresh connection with the target exactly as given; the whole answer. */
    private String get(String target) throws Exception {
        try (Socket socket = new Socket(dashboard.uri().getHost(), dashboard.uri().getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        }
    }
}
