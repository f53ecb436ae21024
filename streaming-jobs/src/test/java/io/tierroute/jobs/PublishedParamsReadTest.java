package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotControl;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaWiring#publishedParams} against a real embedded broker: the active snapshot per scope as
 * {@link io.tierroute.schemas.snapshot.ActivationRule} makes it over the params and control topics, with its model
 * read back from the carrying record. One broker for the class; each test its own scopes.
 */
class PublishedParamsReadTest {
    private static TestKafka kafka;

    @BeforeAll
    static void broker() {
        kafka = new TestKafka();
    }

    @AfterAll
    static void close() {
        kafka.close();
    }

    private static PublishedParams read() {
        return KafkaWiring.publishedParams(JobSettings.builder().set("bootstrap-servers", kafka.bootstrap()).build());
    }

    private static ParameterSnapshot active(PublishedParams p, String scope) {
        byte[] bytes = p.active().get(scope);
        assertThat(bytes).as("an active snapshot of %s", scope).isNotNull();
        return Codecs.PARAMETER_SNAPSHOT.decode(bytes);
    }

    private static void control(String scope, ControlAction action, long version, long sequence) {
        kafka.control(SnapshotControl.newBuilder().setScope(scope).setAction(action).setVersion(version)
            .setReason("test").setActor("PublishedParamsReadTest").setTimestampMs(System.currentTimeMillis())
            .setSequence(sequence).build());
    }

    @Test
    void theActiveSnapshotComesWithTheModelItsCarrierHolds() {
        QuantileForestModel forest = EarlierSnapshots.forest(5_000);
        kafka.send(List.of(
            EarlierSnapshots.record(EarlierSnapshots.carrying(EarlierSnapshots.accepted("m-ref", 1, null, 3, 0.01), forest)),
            EarlierSnapshots.record(EarlierSnapshots.naming(EarlierSnapshots.accepted("m-ref", 2, 1L, 2, 0.01), 1))));
        // an older writer carried its model inline without naming a carrier
        ParameterSnapshot inline = EarlierSnapshots.accepted("m-inline", 1, null, 2, 0.01);
        inline.setQuantileModel(forest);
        kafka.send(EarlierSnapshots.record(inline));

        PublishedParams p = read();
        ParameterSnapshot ref = active(p, "m-ref");
        assertThat(ref.getVersion()).isEqualTo(2);
        assertThat(ref.getQuantileModel()).as("read back from version 1").isEqualTo(forest);
        assertThat(ref.getQuantileModelVersion()).isEqualTo(1L);
        ParameterSnapshot old = active(p, "m-inline");
        assertThat(old.getQuantileModel()).isEqualTo(forest);
        assertThat(old.getQuantileModelVersion()).as("its own record carries it").isEqualTo(1L);
    }

    @Test
    void anActiveVersionWhoseCarrierWasTrimmedComesWithoutAModel() {
        kafka.send(List.of(
            EarlierSnapshots.record(EarlierSnapshots.carrying(EarlierSnapshots.accepted("m-gone", 1, null, 3, 0.01),
                EarlierSnapshots.forest(5_000))),
            EarlierSnapshots.record(EarlierSnapshots.naming(EarlierSnapshots.accepted("m-gone", 2, 1L, 2, 0.01), 1)),
            EarlierSnapshots.tombstone("m-gone", 1)));

        ParameterSnapshot a = active(read(), "m-gone");
        assertThat(a.getVersion()).isEqualTo(2);
        assertThat(a.getAlphaD().getValue()).isEqualTo(2.0);
        assertThat(a.getQuantileModel()).isNull();
        assertThat(a.getQuantileModelVersion()).as("names no carrier it does not have").isNull();
    }

    @Test
    void tombstonesPinsAndUndecodableRecordsAreReadAsEveryReaderReadsThem() {
        kafka.send(List.of(
            EarlierSnapshots.record(EarlierSnapshots.accepted("t", 1, null, 2, 0.01)),
            EarlierSnapshots.record(EarlierSnapshots.accepted("t", 2, 1L, 3, 0.01)),
            EarlierSnapshots.tombstone("t", 2),
            EarlierSnapshots.record(EarlierSnapshots.accepted("pinned", 1, null, 2, 0.01)),
            EarlierSnapshots.record(EarlierSnapshots.accepted("pinned", 2, 1L, 3, 0.01)),
            EarlierSnapshots.record(EarlierSnapshots.accepted("bad", 1, null, 2, 0.01)),
            new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey("bad", 2).getBytes(StandardCharsets.UTF_8),
                "not avro".getBytes(StandardCharsets.UTF_8)),
            new ProducerRecord<>(Topics.CONTROL, "bad".getBytes(StandardCharsets.UTF_8),
                "not avro either".getBytes(StandardCharsets.UTF_8))));
        control("pinned", ControlAction.PIN, 1, 1);

        PublishedParams p = read();
        assertThat(active(p, "t").getVersion()).as("the newest was deleted").isEqualTo(1);
        assertThat(active(p, "pinned").getVersion()).as("pinned").isEqualTo(1);
        assertThat(active(p, "bad").getVersion()).as("the undecodable version 2 is skipped").isEqualTo(1);
        assertThat(p.newest()).as("its key still counts for the sequence").containsEntry("bad", 2L);
    }

    /**
     * Snapshots stamped with control sequences whose records are gone (the control topic recreated empty, its records
     * deleted): the one pass ends with them held back for the record they name, and one more round over both topics
     * releases them, so a start without state continues from the version every selector serves, not from nothing.
     */
    @Test
    void aSnapshotWhoseControlRecordIsGoneIsActiveOnceBothTopicsAreReadThrough() {
        ParameterSnapshot first = EarlierSnapshots.accepted("ctl-gone", 1, null, 2, 0.01);
        ParameterSnapshot second = EarlierSnapshots.accepted("ctl-gone", 2, 1L, 3, 0.01);
        second.setControlSequence(4); // PIN / UNPIN 1–4 are no longer on the control topic
        kafka.send(List.of(EarlierSnapshots.record(first), EarlierSnapshots.record(second)));

        assertThat(active(read(), "ctl-gone").getVersion()).isEqualTo(2);
    }

    /**
     * A key or tombstone naming version Long.MAX_VALUE (garbage under it, or nothing) and a decodable snapshot of that
     * version: the job's next version would overflow at every publish, a restart loop. Skipped: the sequence and the
     * active snapshot come from the others.
     */
    @Test
    void versionsPastTheBoundAreSkipped() {
        ParameterSnapshot huge = EarlierSnapshots.accepted("huge", 1, null, 7, 0.01);
        huge.setVersion(Long.MAX_VALUE);
        kafka.send(List.of(
            EarlierSnapshots.record(EarlierSnapshots.accepted("huge", 1, null, 2, 0.01)),
            EarlierSnapshots.record(EarlierSnapshots.accepted("huge", 2, 1L, 3, 0.01)),
            new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey("huge", Long.MAX_VALUE).getBytes(StandardCharsets.UTF_8),
                "not avro".getBytes(StandardCharsets.UTF_8)),
            EarlierSnapshots.tombstone("huge", Long.MAX_VALUE - 1),
            EarlierSnapshots.record(huge),
            EarlierSnapshots.tombstone("gone", Long.MAX_VALUE)));

        PublishedParams p = read();
        assertThat(p.newest()).as("keys past 2^62 do not count").containsEntry("huge", 2L).doesNotContainKey("gone");
        assertThat(active(p, "huge").getVersion()).isEqualTo(2);
    }

    /** The read a PIN of a version older than the job's history makes: one ACCEPTED version, with its model. */
    @Test
    void oneAcceptedVersionIsReadBackWithItsModelAndNothingElseIs() {
        QuantileForestModel forest = EarlierSnapshots.forest(7_000);
        ParameterSnapshot rejected = EarlierSnapshots.accepted("one", 4, 3L, 9, 0.01);
        rejected.setStatus(io.tierroute.schemas.avro.SnapshotStatus.REJECTED);
        kafka.send(List.of(
            EarlierSnapshots.record(EarlierSnapshots.carrying(EarlierSnapshots.accepted("one", 1, null, 3, 0.01), forest)),
            EarlierSnapshots.record(EarlierSnapshots.naming(EarlierSnapshots.accepted("one", 2, 1L, 4, 0.01), 1)),
            EarlierSnapshots.record(EarlierSnapshots.accepted("one", 3, 2L, 5, 0.01)),
            EarlierSnapshots.record(rejected),
            EarlierSnapshots.record(EarlierSnapshots.accepted("other", 2, 1L, 6, 0.01)),
            EarlierSnapshots.tombstone("one", 3)));
        PublishedParams p = read();
        assertThat(p.readerSettings()).as("a job started with this read can read again")
            .containsEntry("bootstrap.servers", kafka.bootstrap());

        ParameterSnapshot two = PublishedParams.readAccepted(p.readerSettings(), "one", 2);
        assertThat(two.getVersion()).isEqualTo(2);
        assertThat(two.getAlphaD().getValue()).isEqualTo(4.0);
        assertThat(two.getQuantileModel()).as("read back from version 1, which carries it").isEqualTo(forest);
        assertThat(two.getQuantileModelVersion()).isEqualTo(1L);
        assertThat(PublishedParams.readAccepted(p.readerSettings(), "one", 3)).as("deleted by a tombstone").isNull();
        assertThat(PublishedParams.readAccepted(p.readerSettings(), "one", 4)).as("rejected").isNull();
        assertThat(PublishedParams.readAccepted(p.readerSettings(), "one", 9)).as("never published").isNull();
        assertThat(PublishedParams.readAccepted(p.readerSettings(), "one", 1).getQuantileModelVersion())
            .as("its own record carries it").isEqualTo(1L);
    }

    @Test
    void nothingWhenTheParamsTopicDoesNotExist() {
        try (EmbeddedKafka empty = EmbeddedKafka.start()) {
            PublishedParams p = KafkaWiring.publishedParams(JobSettings.builder()
                .set("bootstrap-servers", empty.bootstrapServers()).build());
            assertThat(p.newest()).isEmpty();
            assertThat(p.active()).isEmpty();
        }
    }
}
