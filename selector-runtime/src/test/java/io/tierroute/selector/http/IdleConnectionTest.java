package io.tierroute.selector.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.selector.config.ServerSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's idle keep-alive timeout ({@code server.idleTimeoutMs}) on a raw socket, and why its
 * default is long: a request written on a connection the server has just closed for idleness gets no
 * answer byte at all, which a client cannot tell from a route lost after admission.
 */
class IdleConnectionTest {

    @TempDir
    Path dir;

    /** A two-worker server with these {@code server:} settings. */
    private ApiTestServer server(String serverSettings) throws IOException {
        Files.writeString(dir.resolve("params.yaml"), "scope: default\nversion: 1\nparameters: {}\n");
        return new ApiTestServer("""
                model: {name: m, blockSize: 16, bytesPerToken: 1024}
                workers: {count: 2, namePrefix: w}
                parametersFile: params.yaml
                """ + "server: " + serverSettings + "\n", dir, null);
    }

    @Test
    void anIdleConnectionIsClosedAfterTheConfiguredTimeoutAndARequestOnItGetsNoAnswer() throws Exception {
        // Seconds, not less: a busy CI machine can stall this thread for hundreds of milliseconds between the calls.
        try (ApiTestServer api = server("{idleTimeoutMs: 3000, requestParseTimeoutMs: 2000}");
             Socket socket = new Socket(api.server.uri().getHost(), api.server.uri().getPort())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();

            assertThat(call(out, in)).startsWith("HTTP/1.1 200");
            Thread.sleep(300); // idle well under the timeout: the connection is still served
            assertThat(call(out, in)).startsWith("HTTP/1.1 200");

            long idleFrom = System.nanoTime();
            assertThat(in.read()).as("closed by the server, nothing sent").isEqualTo(-1);
            Duration closedAfter = Duration.ofNanos(System.nanoTime() - idleFrom);
            assertThat(closedAfter).isBetween(Duration.ofMillis(2_000), Duration.ofMillis(15_000));

            // What a client that still holds this connection sees when it sends its next request: no byte back.
            try {
                out.write(request());
                out.flush();
                assertThat(in.read()).isEqualTo(-1);
            } catch (IOException reset) {
                // or the write itself fails: either way no answer
            }
        }
    }

    @Test
    void aRequestWhoseHeadersTrickleBeyondTheParseTimeoutLosesItsConnection() throws Exception {
        try (ApiTestServer api = server("{requestParseTimeoutMs: 500}");
             Socket socket = new Socket(api.server.uri().getHost(), api.server.uri().getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write("GET /healthz HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            long from = System.nanoTime();
            int first = socket.getInputStream().read(); // headers never finished: the server gives up
            Duration after = Duration.ofNanos(System.nanoTime() - from);
            assertThat(first).isEqualTo(-1);
            assertThat(after).isLessThan(Duration.ofMillis(8_000));
        }
    }

    @Test
    void theDefaultIdleTimeoutOutlastsCommonClientsKeepAlive() {
        // JDK HttpClient keeps idle connections 20 min (jdk.httpclient.keepalive.timeout), Envoy 1 h.
        assertThat(Duration.ofMillis(ServerSettings.DEFAULTS.idleTimeoutMs())).isGreaterThan(Duration.ofHours(1));
    }

    private static byte[] request() {
        return "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    }

    /** One request and its whole answer (headers, then Content-Length bytes of body) as text. */
    private static String call(OutputStream out, InputStream in) throws IOException {
        out.write(request());
        out.flush();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed after " + head.size() + " bytes");
            }
            head.write(b);
        }
        String headers = head.toString(StandardCharsets.US_ASCII);
        int length = 0;
        for (String line : headers.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        byte[] body = in.readNBytes(length);
        return headers + new String(body, StandardCharsets.UTF_8);
    }
}
