package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A REST error is one line: the innermost cause of the server's trace, not Flink's wrappers. */
class FlinkRestClientErrorsTest {

    /** The shape of Flink 1.20's answer to POST /jars/ID/run with --parallelism 0 (frames abridged). */
    private static final String RUN_ERROR = String.join("\n",
            "org.apache.flink.runtime.rest.handler.RestHandlerException: Could not execute application.",
            "\tat org.apache.flink.runtime.webmonitor.handlers.JarRunHandler.lambda$handleRequest$1(JarRunHandler.java:114)",
            "\tat java.base/java.util.concurrent.CompletableFuture.uniHandle(CompletableFuture.java:934)",
            "Caused by: java.util.concurrent.CompletionException: org.apache.flink.util.FlinkRuntimeException: "
                    + "Could not execute application.",
            "\t... 1 more",
            "Caused by: org.apache.flink.util.FlinkRuntimeException: Could not execute application.",
            "\t... 1 more",
            "Caused by: org.apache.flink.client.program.ProgramInvocationException: The main method caused an error: "
                    + "tierroute fitting job: --parallelism must be >= 1, got 0 (run with --help for every flag)",
            "\t... 4 more",
            "Caused by: java.lang.IllegalArgumentException: tierroute fitting job: --parallelism must be >= 1, got 0 "
                    + "(run with --help for every flag)",
            "\tat io.tierroute.jobs.JobSettings.require(JobSettings.java:357)",
            "\t... 7 more");

    /**
     * A --flink URL with another service's port (Kafka's, from a copied command line) got the JDK client's
     * "java.io.IOException: HTTP/1.1 header parser received no bytes"; it now says what that may mean. The server here
     * accepts each connection and closes it unanswered, as a Kafka broker does with an HTTP request.
     */
    @Test
    void aPortThatClosesWithoutAnHttpAnswerIsSaidToBeNoFlinkRestPort() throws Exception {
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread closer = new Thread(() -> {
                while (!server.isClosed()) {
                    try (java.net.Socket s = server.accept()) {
                        s.getInputStream().read(new byte[1024]);
                    } catch (java.io.IOException e) {
                        return; // the server socket closed: the test is over
                    }
                }
            });
            closer.setDaemon(true);
            closer.start();
            FlinkRestClient rest = new FlinkRestClient(java.net.URI.create("http://127.0.0.1:" + server.getLocalPort()),
                    java.time.Duration.ofSeconds(5));
            org.assertj.core.api.Assertions.assertThatThrownBy(rest::overview)
                    .isInstanceOf(FlinkRestClient.FlinkRestException.class)
                    .hasMessageContaining("cannot reach the Flink cluster at http://127.0.0.1:" + server.getLocalPort())
                    .hasMessageContaining("the server there closed the connection without an HTTP answer (HTTP/1.1 "
                            + "header parser received no bytes): not an HTTP port (another service's, such as Kafka's: "
                            + "Flink's REST port is 8081 by default)")
                    .hasMessageNotContaining("java.");
        }
    }

    @Test
    void theRootCauseInOneLine() {
        String line = FlinkErrorText.rootCause(List.of(RUN_ERROR));
        assertThat(line).doesNotContain("\n").isEqualTo("IllegalArgumentException: tierroute fitting job: --parallelism "
                + "must be >= 1, got 0 (run with --help for every flag) (see the Flink JobManager log for the whole cause chain)");
    }

    @Test
    void aPlainErrorStaysAsItIs() {
        assertThat(FlinkErrorText.rootCause(List.of("Could not find jar with id abc.jar"))).isEqualTo("Could not find jar with id abc.jar");
        assertThat(FlinkErrorText.rootCause(List.of("Internal server error.",
                "<Exception on server side:\norg.apache.flink.util.FlinkException: No job xyz\n\tat a.B.c(B.java:1)\n\n"
                        + "End of exception on server side>"))).isEqualTo("FlinkException: No job xyz");
    }

    @Test
    void aFailedSavepointOfAJobFlinkDoesNotKnowIsOneLine() throws Exception {
        // Flink 1.20's failure-cause of POST /jobs/<unknown id>/stop, as a QA run received it (45 lines)
        String trace;
        try (var in = FlinkRestClientErrorsTest.class.getResourceAsStream("/flink/savepoint-of-an-unknown-job.txt")) {
            trace = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        assertThat(FlinkErrorText.rootCause(List.of(trace))).isEqualTo("FlinkJobNotFoundException: Could not find Flink "
                + "job (deadbeefdeadbeefdeadbeefdeadbeef) (see the Flink JobManager log for the whole cause chain)");
    }

    @Test
    void aSuppressedBlocksCausesAreNotTheRootCause() {
        assertThat(FlinkErrorText.rootCause(List.of("Internal server error.", "<Exception on server side:\n"
                + RootCauseTest.SINK_FAILURE_WITH_SUPPRESSED + "\nEnd of exception on server side>")))
                .isEqualTo("TimeoutException: Expiring 1 record(s) for tierroute.params-0:120000 ms has passed since batch "
                        + "creation (see the Flink JobManager log for the whole cause chain)");
    }
}
