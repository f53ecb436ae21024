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
