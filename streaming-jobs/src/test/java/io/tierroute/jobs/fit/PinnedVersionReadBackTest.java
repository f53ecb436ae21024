package io.tierroute.jobs.fit;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.jobs.EarlierSnapshots;
import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.KafkaWiring;
import io.tierroute.jobs.PublishedParams;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A PIN of a version the job's history does not keep, on the operator harness against a real broker: the operator
 * reads it back from the params topic off the task thread, gates its candidates against it and carries from it what
 * the fit cannot determine yet, keeps it in state across a restore, and reads a version that is not there only once.
 */
class PinnedVersionReadBackTest {
    private static final long TICK = 500;
    private static EmbeddedKafka broker;

    private final SplittableRandom rnd = new SplittableRandom(9);
    private long eventTime = 1_700_000_000_000L;
    /** The harness's processing time. */
    private long now;

    @BeforeAll
    static void start() {
        broker = EmbeddedKafka.start();
        for (Topics.Spec s : Topics.specs()) {
            broker.createTopic(s.name(), s.partitions(), s.configs());
        }
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private static void send(List<ProducerRecord<byte[], byte[]>> records) {
        Properties p = new Properties();
        p.put("bootstrap.servers", broker.bootstrapServers());
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            records.forEach(producer::send);
        }
    }

    private static JobSettings settings() {
        return JobSettings.builder().set("bootstrap-servers", broker.bootstrapServers())
            .set("publish-interval", Duration.ofMillis(TICK)).set("forest-interval", Duration.ofHours(1)).build();
    }

    private static KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot>
            harness(OperatorSubtaskState restore, PublishedParams published) throws Exception {
        var h = new KeyedTwoInputStreamOperatorTestHarness<>(
            new KeyedCoProcessOperator<>(new ScopeFitFunction(settings(), published)),
            new ScopeFitFunctionTest.InputScope(), new ScopeFitFunctionTest.ControlScope(), Types.STRING);
        h.setup();
        if (restore != null) {
            h.initializeState(restore);
        }
        h.open();
        return h;
    }

    private void rows(KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot> h,
            String scope, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            h.processElement1(new StreamRecord<>(ScopeInput.of(FitHarness.row(scope, eventTime += 10, rnd))));
        }
    }

    private static SnapshotControl pin(String scope, long version, long sequence) {
        return SnapshotControl.newBuilder().setScope(scope).setAction(ControlAction.PIN).setVersion(version)
            .setReason("roll back").setActor("test").setTimestampMs(0).setSequence(sequence).build();
    }

    /**
     * Ticks until the next snapshot comes: while the active version is read back, ticks publish nothing (the scope stays
     * dirty), so the first snapshot after the control record is gated against what it read. Fails after 30 s.
     */
    private ParameterSnapshot tickUntilPublished(
            KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot> h)
            throws Exception {
        int before = h.extractOutputValues().size();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            h.setProcessingTime(now += TICK);
            List<ParameterSnapshot> out = h.extractOutputValues();
            if (out.size() > before) {
                assertThat(out).as("one snapshot").hasSize(before + 1);
                return out.get(out.size() - 1);
            }
            assertThat(System.nanoTime()).as("a snapshot within 30 s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /**
     * The operator started without state on what the topic holds now, whose active version is 3 (α_d 5): the first
     * snapshot, from too few rows for the regression, is gated against it and carries its α_d.
     */
    private KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot>
            startedOnTheTopicsActiveVersion3(String scope) throws Exception {
        var h = harness(null, KafkaWiring.publishedParams(settings()));
        h.setProcessingTime(now);
        rows(h, scope, 10);
        h.setProcessingTime(now += TICK);
        ParameterSnapshot first = h.extractOutputValues().get(0);
        assertThat(first.getParentVersion()).as("the topic's active version").isEqualTo(3);
        assertThat(first.getAlphaD().getValue()).isEqualTo(5.0);
        return h;
    }

    @Test
    void aPinnedVersionTheHistoryDoesNotKeepIsReadBackGatedAgainstAndKeptAcrossARestore() throws Exception {
        // On the topic: 1 (carries a forest), 2 (names it), 3 active. A start without state adopts 3 alone.
        String scope = "rollback";
        QuantileForestModel forest = EarlierSnapshots.forest(6_000);
        send(List.of(
            EarlierSnapshots.record(EarlierSnapshots.carrying(EarlierSnapshots.accepted(scope, 1, null, 3.0, 0.01),
                forest)),
            EarlierSnapshots.record(EarlierSnapshots.naming(EarlierSnapshots.accepted(scope, 2, 1L, 4.0, 0.01), 1)),
            EarlierSnapshots.record(EarlierSnapshots.accepted(scope, 3, 2L, 5.0, 0.01))));
        var h = startedOnTheTopicsActiveVersion3(scope);

        h.processElement2(new StreamRecord<>(pin(scope, 2, 1)));
        ParameterSnapshot pinned = tickUntilPublished(h);
        assertThat(pinned.getParentVersion()).as("gated against the pinned version, read back").isEqualTo(2);
        assertThat(pinned.getControlSequence()).isEqualTo(1);
        assertThat(pinned.getAlphaD().getValue()).as("carried from version 2, not the default").isEqualTo(4.0);
        assertThat(pinned.getStatus()).as("reasons %s", pinned.getRejectReasons()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(pinned.getQuantileModelVersion()).as("version 2's model, which version 1 carries")
            .isEqualTo(1L);
        OperatorSubtaskState state = h.snapshot(1, now);
        h.close();

        // Restored with no topic to read from: the pinned version is in state now.
        var restored = harness(state, PublishedParams.NONE);
        restored.setProcessingTime(now + TICK - 1);
        rows(restored, scope, 10);
        restored.setProcessingTime(now + TICK);
        List<ParameterSnapshot> out = restored.extractOutputValues();
        assertThat(out).hasSize(1);
        assertThat(out.get(0).getParentVersion()).as("kept in state").isEqualTo(2);
        assertThat(out.get(0).getAlphaD().getValue()).isEqualTo(4.0);
        restored.close();
    }

    /**
     * An UNPIN that comes before the pinned version was read back: that version stays active until a snapshot stamped
     * with the UNPIN's sequence is accepted, so that snapshot, which goes live everywhere, is gated against it too, not
     * against the newest version the job keeps.
     */
    @Test
    void anUnpinBeforeTheReadBackKeepsThePinnedVersionAsTheParentOfWhatGoesLive() throws Exception {
        String scope = "unpinned-early";
        send(List.of(
            EarlierSnapshots.record(EarlierSnapshots.accepted(scope, 1, null, 3.0, 0.01)),
            EarlierSnapshots.record(EarlierSnapshots.accepted(scope, 2, 1L, 4.0, 0.01)),
            EarlierSnapshots.record(EarlierSnapshots.accepted(scope, 3, 2L, 5.0, 0.01))));
        var h = startedOnTheTopicsActiveVersion3(scope);

        h.processElement2(new StreamRecord<>(pin(scope, 2, 1)));
        h.processElement2(new StreamRecord<>(SnapshotControl.newBuilder(pin(scope, 2, 2))
            .setAction(ControlAction.UNPIN).build()));
        ParameterSnapshot live = tickUntilPublished(h);
        assertThat(live.getControlSequence()).isEqualTo(2);
        assertThat(live.getParentVersion()).as("the unpinned version, read back").isEqualTo(2);
        assertThat(live.getAlphaD().getValue()).as("carried from it").isEqualTo(4.0);
        assertThat(live.getStatus()).as("reasons %s", live.getRejectReasons()).isEqualTo(SnapshotStatus.ACCEPTED);
        h.close();
    }

    @Test
    void aPinnedVersionNotOnTheTopicIsReadOnceAndLeavesNothingToGateAgainst() throws Exception {
        String scope = "trimmed";
        send(List.of(
            EarlierSnapshots.record(EarlierSnapshots.accepted(scope, 1, null, 3.0, 0.01)),
            EarlierSnapshots.record(EarlierSnapshots.accepted(scope, 2, 1L, 4.0, 0.01)),
            EarlierSnapshots.tombstone(scope, 1)));
        PublishedParams published = KafkaWiring.publishedParams(settings());
        AtomicInteger reads = new AtomicInteger();
        PinnedVersionLookups lookups = new PinnedVersionLookups((s, v) -> {
            reads.incrementAndGet();
            return PublishedParams.readAccepted(published.readerSettings(), s, v);
        }, true); // waits, as in event-time mode
        try (lookups) {
            assertThat(lookups.poll(scope, 1)).as("deleted by a trim").isNull();
            assertThat(lookups.poll(scope, 1)).isNull();
            assertThat(reads).as("a version found missing is not read again").hasValue(1);
            ParameterSnapshot two = lookups.poll(scope, 2);
            assertThat(two.getVersion()).as("a pin of another version reads that").isEqualTo(2);
            assertThat(reads).hasValue(2);
        }
    }
}
