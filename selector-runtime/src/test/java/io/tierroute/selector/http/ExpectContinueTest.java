package io.tierroute.selector.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Expect: 100-continue} (RFC 9110 §10.1.1) on a raw socket: curl sends it before a large body
 * and, unanswered, waits a second before sending the body anyway; a gateway may wait for good.
 */
class ExpectContinueTest {

    @TempDir
    Path dir;

    @Test
    void aRouteThatExpectsContinueIsToldToSendItsBodyAndThenRouted() throws Exception {
        Files.writeString(dir.resolve("params.yaml"), "scope: default\nversion: 1\nparameters: {}\n");
        try (ApiTestServer api = new ApiTestServer("""
                model: {name: m, blockSize: 16, bytesPerToken: 1024}
                workers: {count: 2, namePrefix: w}
                parametersFile: params.yaml
                """, dir, null);
             Socket socket = new Socket(api.server.uri().getHost(), api.server.uri().getPort())) {
            socket.setSoTimeout(5_000); // a server that ignores the header leaves this read waiting: a failure
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            byte[] body = "{\"request_id\":\"c1\",\"text\":\"hello\"}".getBytes(StandardCharsets.US_ASCII);
            out.write(("POST /v1/route HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length + "\r\nExpect: 100-continue\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();

            assertThat(head(in)).startsWith("HTTP/1.1 100");

            out.write(body);
            out.flush();
            assertThat(head(in)).startsWith("HTTP/1.1 200");
        }
    }

    /** The status line and headers of the next response. */
    private static String head(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed after " + head.size() + " bytes: " + head.toString(StandardCharsets.US_ASCII));
            }
            head.write(b);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }
}
