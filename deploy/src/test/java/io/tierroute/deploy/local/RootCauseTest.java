package io.tierroute.deploy.local;

import static io.tierroute.deploy.local.FlinkRestClientSlotsTest.captured;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ConnectException;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The root cause {@code submit} reports for a job that does not run, from {@code GET /jobs/<id>/exceptions} of a real
 * Flink 2.2.1 session cluster: a job of parallelism 2 on one free slot, restarting (each attempt a
 * NoResourceAvailableException under two CompletionExceptions), then FAILED once its restarts were used up.
 */
class RootCauseTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NO_SLOT = "NoResourceAvailableException: Could not acquire the minimum required resources.";

    @Test
    void aFailedJobsInnermostCauseUnderTheLineFlinkReportsItUnder() throws Exception {
        RootCause c = RootCause.of(captured("exceptions-no-resource-failed.json")).orElseThrow();
        assertThat(c.exceptionClass()).isEqualTo("NoResourceAvailableException");
        assertThat(c.innermost()).isEqualTo(NO_SLOT);
        assertThat(c.first()).isEqualTo("JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy("
                + "maxNumberRestartAttempts=2, backoffTimeMS=2000)");
        assertThat(c.toString()).isEqualTo(NO_SLOT + " (Flink reports it under " + c.first() + ")");
    }

    @Test
    void wrappersThatOnlyRepeatTheCauseAreLeftOut() throws Exception {
        RootCause c = RootCause.of(captured("exceptions-no-resource-restarting.json")).orElseThrow();
        assertThat(c.first()).isEqualTo("CompletionException: CompletionException: " + NO_SLOT);
        assertThat(c.toString()).isEqualTo(NO_SLOT);
    }

    @Test
    void noExceptionYetIsNoneAndAnOlderFlinksRootExceptionIsRead() throws Exception {
        // what the waiting job's answer was before its first slot request failed
        assertThat(RootCause.of(JSON.readTree("{\"exceptionHistory\":{\"entries\":[],\"truncated\":false}}"))).isEmpty();
        assertThat(RootCause.of(JSON.readTree("{\"root-exception\":\"java.lang.IllegalStateException: boom\\n\\tat a.B.c"
                + "(B.java:1)\\n\",\"exceptionHistory\":{\"entries\":[]}}")))
                .contains(new RootCause("IllegalStateException: boom", "IllegalStateException: boom"));
    }

    @Test
    void aJobNotRunningSaysWhatItsTasksWaitForAndWhy() throws Exception {
        FlinkRestClient.JobDetails waiting = FlinkJobs.jobDetails(captured("job-waiting-for-slots.json"));
        String id = "dd2ddce9ca33bb6b7b22e8b10579ec6e";
        assertThat(FlinkJobs.notRunning(id, waiting, Duration.ofSeconds(30), Optional.empty())).isEqualTo("job " + id
                + " (c) is RUNNING, not fully running after 30 s (0 of 13 tasks running, 13 waiting for a task slot); "
                + "Flink has recorded no exception for it");
        FlinkRestClient.JobDetails failed = new FlinkRestClient.JobDetails("c", "FAILED", waiting.vertexStates(),
                waiting.tasks(), 2);
        assertThat(FlinkJobs.notRunning(id, failed, null, RootCause.of(captured("exceptions-no-resource-failed.json"))))
                .startsWith("job " + id + " (c) is FAILED; root cause: " + NO_SLOT + " (Flink reports it under JobException: ");
    }

    /**
     * A fitting job's params sink failing on a broker that went away, as Flink 2.2 records it (frames abridged): the
     * writer's failure has a Suppressed block (the producer's close failed too, for a cause of its own), printed after
     * the main chain's last {@code Caused by:}, one tab deeper.
     */
    static final String SINK_FAILURE_WITH_SUPPRESSED = String.join("\n",
            "org.apache.flink.runtime.JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy("
                    + "maxNumberRestartAttempts=20, backoffTimeMS=2000)",
            "\tat org.apache.flink.runtime.executiongraph.failover.ExecutionFailureHandler.handleFailure("
                    + "ExecutionFailureHandler.java:213)",
            "\tat org.apache.flink.runtime.scheduler.DefaultScheduler.recordTaskFailure(DefaultScheduler.java:294)",
            "Caused by: org.apache.flink.util.FlinkRuntimeException: Failed to send data to Kafka tierroute.params-0 with "
                    + "FlinkKafkaInternalProducer{transactionalId='tierroute-fitting-0-3', inTransaction=true, closed=false} ",
            "\tat org.apache.flink.connector.kafka.sink.KafkaWriter$WriterCallback.throwException(KafkaWriter.java:440)",
            "\tat org.apache.flink.streaming.runtime.tasks.StreamTask.invoke(StreamTask.java:857)",
            "\t... 3 more",
            "Caused by: org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for tierroute.params-0:"
                    + "120000 ms has passed since batch creation",
            "\tSuppressed: java.lang.IllegalStateException: could not close FlinkKafkaInternalProducer{transactionalId="
                    + "'tierroute-fitting-0-3'}",
            "\t\tat org.apache.flink.connector.kafka.sink.KafkaWriter.close(KafkaWriter.java:251)",
            "\t\t... 5 more",
            "\tCaused by: org.apache.kafka.common.KafkaException: Cannot execute transactional method because we are in "
                    + "an error state",
            "\t\tat org.apache.kafka.clients.producer.internals.TransactionManager.maybeFailWithError("
                    + "TransactionManager.java:1010)",
            "\t\t... 6 more",
            "\t\tSuppressed: org.apache.flink.runtime.jobmanager.scheduler.NoResourceAvailableException: not this one",
            "\t\tCaused by: java.io.IOException: nor this one",
            "");

    @Test
    void theCausesOfASuppressedBlockAreNotTheMainChains() throws Exception {
        RootCause c = RootCause.fromTrace(SINK_FAILURE_WITH_SUPPRESSED).orElseThrow();
        assertThat(c.innermost()).isEqualTo("TimeoutException: Expiring 1 record(s) for tierroute.params-0:120000 ms has "
                + "passed since batch creation");
        assertThat(c.noResourceAvailable()).isFalse();
        // the same from GET /jobs/<id>/exceptions
        var answer = JSON.createObjectNode();
        answer.putObject("exceptionHistory").putArray("entries").addObject()
                .put("exceptionName", "org.apache.flink.runtime.JobException: Recovery is suppressed by ...")
                .put("stacktrace", SINK_FAILURE_WITH_SUPPRESSED);
        assertThat(RootCause.of(answer).orElseThrow()).isEqualTo(c);
        assertThat(RootCause.of(captured("exceptions-no-resource-failed.json")).orElseThrow().noResourceAvailable()).isTrue();
    }

    @Test
    void aTraceAsTheJdkPrintsItKeepsToTheMainChain() {
        // Flink records a failure with ExceptionUtils.stringifyException, i.e. Throwable.printStackTrace
        ConnectException refused = new ConnectException("Connection refused");
        IllegalStateException close = new IllegalStateException("close failed", new java.io.IOException("Broken pipe"));
        close.addSuppressed(new UnsupportedOperationException("inner", new ArithmeticException("deeper")));
        refused.addSuppressed(close);
        RuntimeException middle = new RuntimeException("sending failed", refused);
        middle.addSuppressed(new IllegalArgumentException("early", new ArrayStoreException("early cause")));
        IllegalStateException top = new IllegalStateException("the task failed", middle);
        StringWriter trace = new StringWriter();
        top.printStackTrace(new PrintWriter(trace, true));
        assertThat(trace.toString()).as("the JDK's layout this relies on").contains("\n\tSuppressed: java.lang."
                + "IllegalStateException: close failed", "\n\tCaused by: java.io.IOException: Broken pipe",
                "\n\t\tCaused by: java.lang.ArithmeticException: deeper", "\nCaused by: java.net.ConnectException");

        assertThat(RootCause.fromTrace(trace.toString())).contains(new RootCause("IllegalStateException: the task failed",
                "ConnectException: Connection refused"));
        // an indented trace (as quoted inside another message) keeps its own main chain
        String indented = trace.toString().lines().map(l -> "    " + l).reduce((a, b) -> a + "\n" + b).orElseThrow();
        assertThat(RootCause.fromTrace(indented).orElseThrow().innermost()).isEqualTo("ConnectException: Connection refused");
    }
}
