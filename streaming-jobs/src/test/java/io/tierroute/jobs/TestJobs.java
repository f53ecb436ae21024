package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** Starts the fitting job on the test's MiniCluster against a {@link TestKafka}, with fast test cadences. */
final class TestJobs {
    private TestJobs() {}

    /** Settings with 500 ms checkpoints and publication, checkpoints under {@code tmp}. */
    static JobSettings settings(TestKafka kafka, Path tmp, String tag) {
        return JobSettings.builder()
            .set("bootstrap-servers", kafka.bootstrap())
            .set("group-id", "fit-" + tag)
            .set("transactional-id-prefix", "params-" + tag + "-" + UUID.randomUUID())
            .set("parallelism", 2)
            .set("checkpoint-interval", Duration.ofMillis(500))
            .set("checkpoint-dir", tmp.resolve("checkpoints").toUri().toString())
            .set("publish-interval", Duration.ofMillis(500))
            .set("forest-interval", Duration.ofSeconds(3))
            .set("forest-trees", 10)
            .set("idleness", Duration.ofSeconds(2))
            .build();
    }

    /**
     * Submits the job as {@code FittingJobMain} does (what the topics hold seeds the counters and the
     * active snapshots of scopes without state), optionally restoring {@code restoreFrom}; adds it to {@code started}
     * and returns once it runs.
     */
    static JobClient start(JobSettings s, String restoreFrom, List<JobClient> started) throws Exception {
        return start(s, restoreFrom, started, new Configuration());
    }

    /** As {@link #start(JobSettings, String, List)}, with {@code extra} over the job's configuration. */
    static JobClient start(JobSettings s, String restoreFrom, List<JobClient> started, Configuration extra)
            throws Exception {
        Configuration conf = KafkaWiring.configuration(s);
        conf.addAll(extra);
        if (restoreFrom != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        new FittingJob(KafkaWiring.sources(s), KafkaWiring.paramsSink(s), KafkaWiring.deadLetterSink(s), s,
            KafkaWiring.publishedParams(s)).build(env);
        JobClient job = env.executeAsync(s.jobName());
        started.add(job);
        long deadline = System.currentTimeMillis() + 30_000;
        while (job.getJobStatus().get() != JobStatus.RUNNING) {
            assertThat(System.currentTimeMillis()).as("job running").isLessThan(deadline);
            Thread.sleep(100);
        }
        return job;
    }

    /** Cancels every job in {@code jobs} that has not ended (a test's clean-up). */
    static void cancelRunning(List<JobClient> jobs) throws Exception {
        for (JobClient j : jobs) {
            if (!j.getJobStatus().get().isGloballyTerminalState()) {
                j.cancel().get();
            }
        }
    }
}
