package io.tierroute.dashboards.web;

import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.Dashboard;
import io.tierroute.dashboards.DashboardFixture;
import io.tierroute.dashboards.Snapshots;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code Expect: 100-continue} (RFC 9110 §10.1.1) on the dashboard's write endpoints, on a raw socket: curl sends it
 * before a body over 1 KiB and, unanswered, waits a second before sending the body anyway; a client that waits for
 * the interim answer would wait for good. The server answers 100 as soon as the handler reads the body, and a write
 * it refuses before reading the body is answered at once.
 */
class DashboardExpectContinueTest {

    private static final String TOKEN = "t0ken";
    /**
     * How long a read of the next answer may take before it is a failure: a server that ignores the header waits for
     * the body, and the read for good.
     */
    private static final int READ_TIMEOUT_MS = 5_000;
    /**
     * A bound on the answer to the head alone. A server that waits for the body answers nothing, and the read runs
     * into {@link #READ_TIMEOUT_MS}: that, not curl's own one-second wait, is what the bound has to tell apart, so it
     * sits well above a round trip on a loaded CI machine (where 1 s is too tight) and below the read timeout.
     */
    private static final Duration ANSWER_BOUND = Duration.ofSeconds(4);

    @RegisterExtension
    final DashboardFixture fixture = DashboardFixture.seededWith(Snapshots.accepted("default", 1),
            Snapshots.accepted("default", 2), Snapshots.accepted("default", 3));
    private Dashboard dashboard;

    @BeforeEach
    void startDashboard() throws Exception {
        dashboard = fixture.startDashboard(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, TOKEN,
                "TEST_TOKEN", "default"));
        // One refused write, untimed, before the timed ones: a fresh server's first requests load classes and start
        // handler threads, which on a busy machine can take most of curl's second (it writes nothing).
        try (Socket socket = connect()) {
            socket.getOutputStream().write(head("pin", "warm-up", new byte[1]));
            socket.getOutputStream().flush();
            assertThat(readHead(socket.getInputStream())).startsWith("HTTP/1.1 401");
        }
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket(dashboard.uri().getHost(), dashboard.uri().getPort());
        socket.setSoTimeout(READ_TIMEOUT_MS);
        return socket;
    }

    private static byte[] head(String action, String token, byte[] body) {
        return ("POST /api/v1/scopes/default/" + action + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Authorization: Bearer " + token + "\r\nContent-Length: " + body.length
                + "\r\nExpect: 100-continue\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Rollback, pin and unpin, each on a connection of its own: the head alone gets {@code 100 Continue} without
     * the body, then the body gets the write's 200, and each write is on the control topic.
     */
    @Test
    void everyWriteThatExpectsContinueIsToldToSendItsBodyAtOnceAndIsThenWritten() throws Exception {
        String[][] writes = {
                {"rollback", "{\"reason\": \"expect rollback\"}"},
                {"pin", "{\"version\": 1, \"reason\": \"expect pin\"}"},
                {"unpin", "{\"reason\": \"expect unpin\"}"}};
        for (String[] w : writes) {
            byte[] body = w[1].getBytes(StandardCharsets.US_ASCII);
            try (Socket socket = connect()) {
                OutputStream out = socket.getOutputStream();
                InputStream in = socket.getInputStream();
                long from = System.nanoTime();
                out.write(head(w[0], TOKEN, body));
                out.flush();
                String interim = readHead(in);
                Duration waited = Duration.ofNanos(System.nanoTime() - from);
                assertThat(interim).as(w[0]).startsWith("HTTP/1.1 100");
                assertThat(waited).as(w[0] + ": the 100 came without the body").isLessThan(ANSWER_BOUND);

                out.write(body);
                out.flush();
                assertThat(readHead(in)).as(w[0]).startsWith("HTTP/1.1 200");
            }
        }
        assertThat(Broker.controlRecords()).extracting(SnapshotControl::getAction)
                .containsExactly(ControlAction.PIN, ControlAction.PIN, ControlAction.UNPIN);
        assertThat(Broker.controlRecords()).extracting(SnapshotControl::getReason)
                .containsExactly("expect rollback", "expect pin", "expect unpin");
    }

    /** A wrong token is refused on the head alone: the client gets its 401 at once, never a 100, and sends no body. */
    @Test
    void aWriteWithAWrongTokenIsRefusedBeforeItsBodyIsSent() throws Exception {
        byte[] body = "{\"version\": 1, \"reason\": \"never sent\"}".getBytes(StandardCharsets.US_ASCII);
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            long from = System.nanoTime();
            out.write(head("pin", "wrong", body));
            out.flush();
            String answer = readHead(in);
            assertThat(answer).startsWith("HTTP/1.1 401");
            assertThat(Duration.ofNanos(System.nanoTime() - from)).as("refused without the body")
                    .isLessThan(ANSWER_BOUND);
        }
        assertThat(Broker.controlRecords()).isEmpty();
    }

    /** The status line and headers of the next response. */
    private static String readHead(InputStream in) throws IOException {
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
