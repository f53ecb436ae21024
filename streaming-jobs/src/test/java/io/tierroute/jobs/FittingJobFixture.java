package io.tierroute.jobs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Owns, per test, a fresh embedded broker ({@link TestKafka}) and the fitting jobs started on it, cancelled
 * and closed after the test (after its own {@code @AfterEach}); {@link #miniCluster()} is the class's cluster.
 * Register both: {@code @RegisterExtension static final MiniClusterExtension FLINK = FittingJobFixture.miniCluster();}
 * and {@code @RegisterExtension final FittingJobFixture fixture = new FittingJobFixture();}.
 */
final class FittingJobFixture implements BeforeEachCallback, AfterEachCallback {

    private final List<JobClient> jobs = new ArrayList<>();
    private TestKafka kafka;

    /** One task manager with 4 slots, restart strategy none: a task that fails fails the test. */
    static MiniClusterExtension miniCluster() {
        return miniCluster(c -> {});
    }

    /** As {@link #miniCluster()}, with {@code extra} applied to the cluster's configuration (e.g. a metrics reporter). */
    static MiniClusterExtension miniCluster(Consumer<Configuration> extra) {
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        extra.accept(c);
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(4)
            .setConfiguration(c)
            .build());
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        kafka = new TestKafka();
    }

    /** This test's broker, with the project's topics. */
    TestKafka kafka() {
        return kafka;
    }

    /** {@link TestJobs#settings} against this test's broker, checkpoints under {@code tmp}. */
    JobSettings settings(Path tmp, String tag) {
        return TestJobs.settings(kafka, tmp, tag);
    }

    /** Starts the job (restoring {@code restoreFrom} if not null) and returns once it runs; cancelled after the test. */
    JobClient start(JobSettings s, String restoreFrom) throws Exception {
        return TestJobs.start(s, restoreFrom, jobs);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        try {
            TestJobs.cancelRunning(jobs);
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }
}
