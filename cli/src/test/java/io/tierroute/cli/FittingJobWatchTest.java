package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.local.RootCause;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.util.SerializedThrowable;
import org.junit.jupiter.api.Test;

/** What the demo says of its fitting job, from the looks at it Flink's JobManager answers. */
class FittingJobWatchTest {

    private static final RootCause TIMEOUT = new RootCause("IOException: Could not perform checkpoint 9",
            "TimeoutException: Timeout expired after 60000ms while awaiting InitProducerId");

    /** What the next look at the job answers. */
    private final AtomicReference<FittingJobWatch.Look> job = new AtomicReference<>();
    private final FittingJobWatch watch = new FittingJobWatch(job::get);

    @Test
    void aRestartIsCountedOnceAndSaidWithItsCauseThenTheJobFailingForGoodStopsTheDemo() {
        long now = System.currentTimeMillis();
        job.set(new FittingJobWatch.Look("RUNNING", 0, Optional.empty(), 0, 0));
        assertThat(watch.failure()).isNull();
        assertThat(watch.statusNote()).isEmpty();
        assertThat(watch.summary()).isEmpty();

        job.set(new FittingJobWatch.Look("RESTARTING", now - 2000, Optional.of(TIMEOUT), now - 3000, 0));
        assertThat(watch.failure()).as("a restart is no failure").isNull();
        assertThat(watch.statusNote()).matches(" · fitting job restarting \\(restart 1; failure [34] s ago: "
                + "TimeoutException: Timeout expired after 60000ms while awaiting InitProducerId\\)");

        job.set(new FittingJobWatch.Look("RUNNING", now - 2000, Optional.of(TIMEOUT), now - 3000, 0));
        assertThat(watch.failure()).isNull();
        assertThat(watch.restarts()).as("the same restart, looked at again").isEqualTo(1);
        assertThat(watch.statusNote()).matches(" · fitting job restarted 1× \\(last failure [34] s ago: TimeoutException.*");
        assertThat(watch.summary()).singleElement().asString().startsWith("fitting job: restarted 1 time from its last "
                + "checkpoint; the last restart followed a failure at ")
                .endsWith(": TimeoutException: Timeout expired after 60000ms while awaiting InitProducerId");

        RootCause suppressed = new RootCause("JobException: Recovery is suppressed by "
                + "ExponentialDelayRestartBackoffTimeStrategy(attemptsBeforeResetBackoff=30)", TIMEOUT.innermost());
        job.set(new FittingJobWatch.Look("FAILED", now - 2000, Optional.of(suppressed), now, 0));
        assertThat(watch.failure()).isEqualTo("the fitting job failed: its restarts are used up (last failure: "
                + "TimeoutException: Timeout expired after 60000ms while awaiting InitProducerId)");
    }

    @Test
    void aRestartLongAgoIsOnlyCountedAndANewOneIsCountedAgain() {
        long now = System.currentTimeMillis();
        job.set(new FittingJobWatch.Look("RUNNING", now - 600_000, Optional.of(TIMEOUT), now - 601_000, 0));
        assertThat(watch.statusNote()).isEqualTo(" · fitting job restarted 1×");
        job.set(new FittingJobWatch.Look("RESTARTING", now - 1000, Optional.empty(), now - 601_000, 0));
        assertThat(watch.failure()).isNull();
        assertThat(watch.restarts()).isEqualTo(2);
        assertThat(watch.statusNote()).contains("restart 2; ").contains("Flink has recorded no exception for it");
    }

    @Test
    void aJobNotRecoveredWhenTheDemoStopsIsUnwellUntilACheckpointCompletesAfterItsFailure() {
        long now = System.currentTimeMillis();
        job.set(new FittingJobWatch.Look("INITIALIZING", 0, Optional.empty(), 0, 0));
        assertThat(watch.unwellAtStop()).as("a short --duration: never failed").isNull();
        job.set(new FittingJobWatch.Look("RESTARTING", now - 1000, Optional.of(TIMEOUT), now - 2000, now - 5000));
        assertThat(watch.unwellAtStop()).startsWith("the fitting job had not recovered (restart 1, no checkpoint "
                + "completed since the failure at ").endsWith(": TimeoutException: Timeout expired after 60000ms while "
                + "awaiting InitProducerId)");
        job.set(new FittingJobWatch.Look("RUNNING", now - 1000, Optional.of(TIMEOUT), now - 2000, now - 5000));
        assertThat(watch.unwellAtStop()).as("RUNNING as soon as the back-off ends: no checkpoint since the failure yet")
                .startsWith("the fitting job had not recovered");
        job.set(new FittingJobWatch.Look("RUNNING", now - 1000, Optional.of(TIMEOUT), now - 2000, now - 500));
        assertThat(watch.unwellAtStop()).as("a checkpoint after the failure: recovered").isNull();
    }

    @Test
    void aCancelledJobOrAnUnansweredLookAreSaidAsSuch() {
        FittingJobWatch unanswered = new FittingJobWatch(() -> {
            throw new java.util.concurrent.TimeoutException("Flink is busy");
        });
        assertThat(unanswered.failure()).as("no answer is no failure").isNull();
        assertThat(unanswered.statusNote()).isEmpty();
        job.set(new FittingJobWatch.Look("CANCELED", 0, Optional.empty(), 0, 0));
        assertThat(watch.failure()).isEqualTo("the fitting job is CANCELED");
    }

    /** Flink keeps a failure as a SerializedThrowable whose causes are SerializedThrowables: the innermost, one line. */
    @Test
    void theRootCauseOfAFlinkFailureIsItsInnermostCauseOnOneLine() {
        Exception failure = new java.io.IOException("Could not perform checkpoint 9 for operator params sink",
                new IllegalStateException("Checkpoint was declined.\nsecond line", new org.apache.kafka.common.errors
                        .TimeoutException("Timeout expired after 60000ms while awaiting InitProducerId")));
        RootCause c = FittingJobWatch.rootCause(new SerializedThrowable(failure));
        assertThat(c.first()).isEqualTo("IOException: Could not perform checkpoint 9 for operator params sink");
        assertThat(c.innermost()).isEqualTo("TimeoutException: Timeout expired after 60000ms while awaiting InitProducerId");
        assertThat(FittingJobWatch.oneLine(new SerializedThrowable(new IllegalStateException("a\nb")))).isEqualTo(
                "IllegalStateException: a");
        assertThat(FittingJobWatch.oneLine(new SerializedThrowable(new NullPointerException()))).isEqualTo(
                "NullPointerException");
    }
}
