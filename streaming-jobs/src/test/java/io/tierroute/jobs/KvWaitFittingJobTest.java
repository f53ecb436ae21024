package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotStatus;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admission wait's τ₀, α and k fitted by the real job (MiniCluster, embedded KRaft broker) from decisions and
 * completions with a known decode step {@code τ₀ + α·KV_used} per predicted token and waits {@code k·W} beyond the
 * predicted time to first token, and published in an accepted snapshot.
 */
class KvWaitFittingJobTest {
    static final double TAU0_US = 2000;
    static final double PER_KV_TOKEN_US = 0.01;
    static final double SCALE = 0.6;

    @RegisterExtension
    static final MiniClusterExtension FLINK = FittingJobFixture.miniCluster();

    @RegisterExtension
    final FittingJobFixture fixture = new FittingJobFixture();
    @TempDir
    Path tmp;

    @Test
    void fitsAndPublishesTheAdmissionWait() throws Exception {
        TestKafka kafka = fixture.kafka();
        Workload w = new Workload(17, "kv", System.currentTimeMillis() - Duration.ofMinutes(40).toMillis(), 0.05)
            .withKvWait(TAU0_US, PER_KV_TOKEN_US, SCALE);
        kafka.send(w.telemetry(20));
        kafka.send(w.requests(4_000));
        fixture.start(fixture.settings(tmp, "kvwait"), null);

        long n = w.requests();
        ParameterSnapshot s = kafka.awaitSnapshot(p -> p.getStatus() == SnapshotStatus.ACCEPTED
            && p.getDecodeStepUs().getSamples() == n, Duration.ofSeconds(60), "with the decode step fitted on all " + n
            + " rows");
        String report = String.format("version %d: tau0=%.1f (truth %.1f, n=%d) alpha=%.5f (truth %.5f) k=%.4f (truth "
                + "%.2f, rows with W > 0: %d)", s.getVersion(), s.getDecodeStepUs().getValue(), TAU0_US,
            s.getDecodeStepUs().getSamples(), s.getDecodeStepKvUs().getValue(), PER_KV_TOKEN_US,
            s.getKvWaitScale().getValue(), SCALE, s.getKvWaitScale().getSamples());
        System.out.println("[KvWaitFittingJobTest] " + report);
        assertThat(s.getDecodeStepUs().getValue()).as(report).isCloseTo(TAU0_US, within(0.05 * TAU0_US));
        assertThat(s.getDecodeStepKvUs().getSamples()).as(report).isEqualTo(n);
        assertThat(s.getDecodeStepKvUs().getValue()).as(report)
            .isCloseTo(PER_KV_TOKEN_US, within(0.05 * PER_KV_TOKEN_US));
        assertThat(s.getKvWaitScale().getSamples()).as("k fitted, not held: " + report).isGreaterThanOrEqualTo(200);
        assertThat(s.getKvWaitScale().getValue()).as(report).isCloseTo(SCALE, within(0.05 * SCALE));
    }
}
