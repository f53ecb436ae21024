package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.snapshot.FittedProvenance;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.kafka.ParameterLoader;
import io.tierroute.selector.kafka.SnapshotConverter;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.protocol.WorkerRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole control loop on real parts: generated telemetry, decisions and completions with known
 * true parameters go through the fitting job (Flink MiniCluster) into {@code tierroute.params}
 * (embedded KRaft broker), and a running selector's {@link ParameterLoader} swaps them into its
 * {@link ParameterStore}. Asserts on what the selector serves, not on the topic.
 */
class SelectorFollowsJobTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FittingJobFixture.miniCluster();

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final List<String> WORKERS =
        IntStream.range(0, Workload.WORKERS).mapToObj(i -> "w" + i).toList();

    @RegisterExtension
    final FittingJobFixture fixture = new FittingJobFixture();
    @TempDir
    Path tmp;
    private final List<ParameterLoader> selectors = new ArrayList<>();

    /** Before the fixture cancels the jobs and closes the broker. */
    @AfterEach
    void stopSelectors() {
        selectors.forEach(ParameterLoader::close);
    }

    /**
     * The workload's telemetry has CPU links only: the CPU peak the job fitted overrides the selector's configured
     * link, while NVMe and remote carry DESIGN defaults no snapshot fitted, which leave the configured links (NaN).
     */
    private static void assertBandwidthsServed(TestKafka kafka, ParameterSet served) {
        ParameterSnapshot s = kafka.snapshots().stream().filter(p -> p.getVersion() == served.version())
            .findFirst().orElseThrow();
        for (TierBandwidth tb : s.getBandwidths()) {
            double override = served.bandwidthOverride(Tier.valueOf(tb.getTier().name()).ordinal());
            if (tb.getTier() == io.tierroute.schemas.avro.Tier.CPU) {
                assertThat(FittedProvenance.neverFitted(tb.getBytesPerSecond())).as("CPU BW_t fitted by v%d", s.getVersion())
                    .isFalse();
                assertThat(override).as("CPU BW_t served").isEqualTo(tb.getBytesPerSecond().getValue());
            } else {
                assertThat(FittedProvenance.neverFitted(tb.getBytesPerSecond())).as("%s never fitted", tb.getTier())
                    .isTrue();
                assertThat(override).as("%s: the configured link stays", tb.getTier()).isNaN();
            }
        }
    }

    @Test
    void aRunningSelectorServesTheFittedParametersAndHonoursPinsAcrossRestarts() throws Exception {
        TestKafka kafka = fixture.kafka();
        Workload w = new Workload(11, "default", System.currentTimeMillis() - Duration.ofMinutes(40).toMillis(), 0.05);
        kafka.send(w.telemetry(60));
        kafka.send(w.requests(20_000));
        JobSettings settings = settings();
        JobClient job = fixture.start(settings, null);
        ParameterStore store = startSelector();

        // 1. The selector swaps in a snapshot fitted on every row; its α's and λ are the truth's.
        long rows = w.requests();
        ParameterSnapshot fitted = kafka.awaitSnapshot(p -> p.getStatus() == SnapshotStatus.ACCEPTED
            && p.getAlphaP().getSamples() == rows, WAIT, "fitted on all " + rows + " rows");
        await(() -> store.current().version() >= fitted.getVersion(), "selector applies v" + fitted.getVersion());
        CostParameters live = store.current().cost();
        double[] served = {live.alphaP(), live.alphaP2(), live.alphaD(), live.alphaD2(), live.alphaT(),
            live.alphaHo(), live.alphaWf(), live.alphaWf2()};
        for (int j = 0; j < served.length; j++) {
            assertThat(served[j]).as("%s served by the selector (v%d)", Workload.NAMES[j], store.current().version())
                .isCloseTo(Workload.TRUTH[j], within(0.05 * Workload.TRUTH[j]));
        }
        assertThat(live.lambda()).as("lambda served").isCloseTo(Workload.LAMBDA, within(0.10 * Workload.LAMBDA));
        assertBandwidthsServed(kafka, store.current());

        // 2. The job fits newer data and the selector follows; then a rollback pins the fitted version
        //    above, and the selector serves it while the job keeps fitting.
        long pinned = fitted.getVersion();
        kafka.send(w.requests(1_500));
        long more = w.requests();
        ParameterSnapshot newer = kafka.awaitSnapshot(p -> p.getStatus() == SnapshotStatus.ACCEPTED
            && p.getAlphaP().getSamples() == more, WAIT, "fitted on all " + more + " rows");
        await(() -> store.current().version() >= newer.getVersion(), "selector applies v" + newer.getVersion());
        kafka.control(control(ControlAction.PIN, pinned, 1));
        await(() -> store.current().version() == pinned, "selector serves the pinned v" + pinned);
        kafka.send(w.requests(1_500));
        long afterPin = w.requests();
        ParameterSnapshot whilePinned = kafka.awaitSnapshot(p -> p.getControlSequence() == 1
            && p.getAlphaP().getSamples() == afterPin, WAIT, "fitted while pinned");
        assertThat(whilePinned.getVersion()).isGreaterThan(newer.getVersion());
        assertThat(store.current().version()).as("pinned version still served").isEqualTo(pinned);

        // 3. A selector restart lands on the pinned version, not the newest.
        selectors.remove(0).close();
        ParameterStore restarted = startSelector();
        assertThat(restarted.current().version()).as("restarted selector").isEqualTo(pinned);

        // 4. A job restart from a savepoint keeps publishing, and the pin still holds.
        String savepoint = job.stopWithSavepoint(false, tmp.resolve("savepoints").toUri().toString(),
            SavepointFormatType.CANONICAL).get();
        fixture.start(settings, savepoint);
        kafka.send(w.requests(1_500));
        ParameterSnapshot afterJobRestart = kafka.awaitSnapshot(p -> p.getControlSequence() == 1
            && p.getVersion() > whilePinned.getVersion(), WAIT, "published after the job restart");
        assertThat(afterJobRestart.getParentVersion()).as("gated against the pin").isEqualTo(pinned);
        assertThat(restarted.current().version()).as("pin survives the job restart").isEqualTo(pinned);

        // 5. Unpin: the selector moves on to the first accepted snapshot the job fits after the unpin.
        kafka.control(control(ControlAction.UNPIN, pinned, 2));
        ParameterSnapshot resumed = kafka.awaitSnapshot(p -> p.getControlSequence() == 2
            && p.getStatus() == SnapshotStatus.ACCEPTED, WAIT, "accepted after the unpin");
        await(() -> restarted.current().version() >= resumed.getVersion(), "selector resumes at v" + resumed.getVersion());
    }

    private ParameterStore startSelector() throws InterruptedException {
        ParameterStore store = new ParameterStore(ParameterSet.defaults(WORKERS.size()));
        KafkaSettings settings = KafkaSettings.defaults(fixture.kafka().bootstrap())
            .withKvEvents(new KafkaSettings.KvEvents(false, "latest"))
            .withDecisions(new KafkaSettings.Decisions(false, 16, Duration.ofMillis(20), 16 * 1024, "none"));
        ParameterLoader loader = new ParameterLoader(settings, store,
            new SnapshotConverter(new WorkerRegistry(WORKERS), CostParameters.DEFAULTS, 0.5)).start();
        selectors.add(loader);
        assertThat(loader.awaitReady(WAIT)).as("selector's loader caught up").isTrue();
        return store;
    }

    private JobSettings settings() {
        return fixture.settings(tmp, "selector-e2e");
    }

    private static SnapshotControl control(ControlAction action, long version, long sequence) {
        return SnapshotControl.newBuilder().setScope("default").setAction(action).setVersion(version)
            .setReason("e2e").setActor("SelectorFollowsJobTest").setTimestampMs(System.currentTimeMillis())
            .setSequence(sequence).build();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("timed out waiting: " + what).isLessThan(deadline);
            Thread.sleep(50);
        }
    }
}
