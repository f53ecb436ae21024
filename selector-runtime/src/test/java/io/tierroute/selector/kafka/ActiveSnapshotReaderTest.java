package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.selector.kafka.ActiveSnapshotReader.Outcome;
import io.tierroute.selector.kafka.ActiveSnapshotReader.Read;
import io.tierroute.selector.kafka.ActiveSnapshotReader.Refused;
import io.tierroute.selector.kafka.ParameterLoader.BadReason;
import io.tierroute.selector.kafka.SnapshotRecordReader.Fetched;
import io.tierroute.selector.kafka.SnapshotRecordReader.Where;
import org.junit.jupiter.api.Test;

import static io.tierroute.selector.kafka.KafkaFixture.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ServedScopeRecords} and {@link ActiveSnapshotReader} without a broker: on records the loader holds, and on
 * read backs answered by a stand-in for the topic (what a re-read or a scan finds is the Kafka tests' concern:
 * ModelByReferenceLoaderTest, ParameterLoaderTest).
 */
class ActiveSnapshotReaderTest {

    private static final String SCOPE = "default";
    private long nextOffset;

    /** The topic as a read back finds it: nothing, transiently or for good. */
    private record Topic(boolean transientFailure) implements ServedScopeRecords.ReadBack {
        @Override
        public Fetched reread(long version, Where where) {
            return new Fetched(null, transientFailure);
        }

        @Override
        public Fetched scan(long version, String why) {
            return new Fetched(null, transientFailure);
        }
    }

    /** Every record the test needs is retained: a read back fails it. */
    private static final ServedScopeRecords.ReadBack NO_READ_BACK = new ServedScopeRecords.ReadBack() {
        @Override
        public Fetched reread(long version, Where where) {
            throw new AssertionError("re-read of version " + version);
        }

        @Override
        public Fetched scan(long version, String why) {
            throw new AssertionError("scan for version " + version);
        }
    };

    private static ServedScopeRecords records(int indexedVersions, int retained) {
        return records(indexedVersions, retained, NO_READ_BACK);
    }

    private static ServedScopeRecords records(int indexedVersions, int retained, ServedScopeRecords.ReadBack topic) {
        return new ServedScopeRecords(indexedVersions, new RetainedRecords(retained, 1 << 20), topic);
    }

    private static ActiveSnapshotReader reader(ServedScopeRecords r) {
        return new ActiveSnapshotReader(SCOPE, r, () -> true);
    }

    private void read(ServedScopeRecords r, ParameterSnapshot s) {
        read(r, s.getVersion(), s.getStatus(), s.getQuantileModel() != null, Codecs.PARAMETER_SNAPSHOT.encode(s));
    }

    private void read(ServedScopeRecords r, long version, SnapshotStatus status, boolean carries, byte[] bytes) {
        r.onRecord(version, status, carries, new Where(0, nextOffset++), bytes);
    }

    private static QuantileForestModel forest(long trainingRows) {
        return QuantileForestModel.newBuilder(KafkaFixture.forest()).setTrainingRows(trainingRows).build();
    }

    private static ParameterSnapshot carrier(long version, SnapshotStatus status, long trainingRows) {
        return snapshot(SCOPE, version).setStatus(status).setQuantileModel(forest(trainingRows))
                .setQuantileModelVersion(version).build();
    }

    private static ParameterSnapshot referrer(long version, long carrier) {
        return snapshot(SCOPE, version).setQuantileModelVersion(carrier).build();
    }

    private static ParameterSnapshot readSnapshot(Outcome o) {
        assertThat(o).isInstanceOf(Read.class);
        return ((Read) o).snapshot();
    }

    @Test
    void aRetainedVersionIsReadWhole() {
        ServedScopeRecords r = records(10, 10);
        read(r, snapshot(SCOPE, 5).build());
        ParameterSnapshot s = readSnapshot(reader(r).read(5));
        assertThat(s.getVersion()).isEqualTo(5);
        assertThat(s.getAlphaP().getValue()).isEqualTo(5.5);
    }

    @Test
    void aSnapshotNamingACarrierGetsTheCarriersModel() {
        ServedScopeRecords r = records(10, 10);
        read(r, carrier(1, SnapshotStatus.REJECTED, 2_000)); // not in the LRU: the newest carrier's bytes are held
        read(r, referrer(2, 1));
        ParameterSnapshot s = readSnapshot(reader(r).read(2));
        assertThat(s.getQuantileModel()).isNotNull();
        assertThat(s.getQuantileModel().getTrainingRows()).isEqualTo(2_000);
    }

    @Test
    void theAppliedSetsModelServesItsCarrierWhenTheCarriersBytesAreNoLongerHeld() {
        ServedScopeRecords r = records(10, 1); // the LRU keeps one record
        ParameterSnapshot first = carrier(1, SnapshotStatus.ACCEPTED, 1_000);
        read(r, first);
        r.carriers().applied(first);
        read(r, carrier(2, SnapshotStatus.ACCEPTED, 2_000)); // the newest carrier now; 1 leaves the LRU
        read(r, referrer(3, 1));
        ParameterSnapshot s = readSnapshot(reader(r).read(3));
        assertThat(s.getQuantileModel().getTrainingRows()).as("the applied set's model, not read back").isEqualTo(1_000);
    }

    @Test
    void aCarrierFoundGoneIsRefusedWithoutAnotherLook() {
        ServedScopeRecords r = records(10, 10);
        read(r, referrer(2, 1));
        r.carriers().missing(1);
        Outcome o = reader(r).read(2);
        assertThat(o).isEqualTo(new Refused(BadReason.MISSING, "version 1 of scope 'default' (it carries the "
                + "output-length model of version 2) is no longer on tierroute.params"));
    }

    @Test
    void aVersionTheTopicNoLongerHoldsIsRefusedAsMissingWithWhereItWas() {
        ServedScopeRecords r = records(10, 1, new Topic(false));
        read(r, snapshot(SCOPE, 1).build());
        read(r, snapshot(SCOPE, 2).build()); // 1 leaves the LRU: it would be re-read at partition 0 offset 0
        assertThat(reader(r).read(1)).isEqualTo(new Refused(BadReason.MISSING,
                "active version 1 of scope 'default' is no longer on tierroute.params at partition 0 offset 0"));
        assertThat(reader(r).read(7)).as("never indexed: scanned for, not found").isEqualTo(new Refused(
                BadReason.MISSING, "active version 7 of scope 'default' is no longer on tierroute.params"));
    }

    @Test
    void aReadBackThatFailsTransientlyIsRetriedNotRefused() {
        ServedScopeRecords r = records(10, 1, new Topic(true));
        read(r, snapshot(SCOPE, 1).build());
        read(r, snapshot(SCOPE, 2).build());
        assertThat(reader(r).read(1)).isEqualTo(new ActiveSnapshotReader.Retry("active version 1 of scope 'default'"));
    }

    @Test
    void aCarrierFoundGoneIsMarkedSoTheNextReferrerIsNotReadBackAgain() {
        ServedScopeRecords r = records(10, 1, new Topic(false));
        read(r, carrier(1, SnapshotStatus.ACCEPTED, 1_000));
        read(r, carrier(2, SnapshotStatus.ACCEPTED, 2_000)); // the newest carrier; 1 leaves the LRU
        read(r, referrer(3, 1));
        Outcome o = reader(r).read(3);
        assertThat(o).isEqualTo(new Refused(BadReason.MISSING, "version 1 of scope 'default' (it carries the "
                + "output-length model of version 3) is no longer on tierroute.params at partition 0 offset 0"));
        assertThat(r.carriers().isMissing(1)).isTrue();
    }

    @Test
    void aLoaderClosedDuringAReadBackStopsThere() {
        ServedScopeRecords r = records(10, 1, new Topic(false));
        read(r, snapshot(SCOPE, 1).build());
        read(r, snapshot(SCOPE, 2).build());
        assertThat(new ActiveSnapshotReader(SCOPE, r, () -> false).read(1)).isInstanceOf(ActiveSnapshotReader.Stopped.class);
    }

    @Test
    void undecodableBytesAreRefusedAsCorrupt() {
        ServedScopeRecords r = records(10, 10);
        read(r, 5, SnapshotStatus.ACCEPTED, false, new byte[] {1, 2, 3});
        Outcome o = reader(r).read(5);
        assertThat(o).isInstanceOf(Refused.class);
        assertThat(((Refused) o).reason()).isEqualTo(BadReason.CORRUPT);
        assertThat(((Refused) o).message()).startsWith("version 5: ");
    }

    @Test
    void aRecordOfAnotherVersionUnderTheVersionsKeyIsRefused() {
        ServedScopeRecords r = records(10, 10);
        read(r, 5, SnapshotStatus.ACCEPTED, false, Codecs.PARAMETER_SNAPSHOT.encode(snapshot(SCOPE, 6).build()));
        assertThat(reader(r).read(5)).isEqualTo(new Refused(BadReason.UNUSABLE,
                "the record read for version 5 of scope 'default' is version 6 of scope 'default'"));
    }

    @Test
    void aModelNamedAndCarriedAtOnceIsRefusedAsUnusable() {
        ServedScopeRecords r = records(10, 10);
        read(r, snapshot(SCOPE, 4).setQuantileModel(forest(1)).setQuantileModelVersion(3L).build());
        Outcome o = reader(r).read(4);
        assertThat(o).isInstanceOf(Refused.class);
        assertThat(((Refused) o).reason()).isEqualTo(BadReason.UNUSABLE);
        assertThat(((Refused) o).message()).startsWith("version 4 of scope 'default' cannot be used: ");
    }

    @Test
    void theIndexKeepsTheHighestAcceptedVersionsAndDropsARejectedOne() {
        ServedScopeRecords r = records(2, 10);
        read(r, snapshot(SCOPE, 1).build());
        read(r, snapshot(SCOPE, 2).build());
        read(r, snapshot(SCOPE, 3).build());
        assertThat(r.indexed()).as("the lowest left the index").isEqualTo(2);
        assertThat(r.acceptedAt(1)).isNull();
        assertThat(r.acceptedAt(3)).isEqualTo(new Where(0, 2));
        read(r, snapshot(SCOPE, 3).setStatus(SnapshotStatus.REJECTED).build()); // republished rejected
        assertThat(r.acceptedAt(3)).isNull();
        assertThat(r.retained()).as("nor retained").isEqualTo(2);
    }

    @Test
    void aNewestRejectedVersionIsShownUntilAnAcceptedOneOvertakesItOrItIsTrimmed() {
        ServedScopeRecords r = records(10, 10);
        read(r, snapshot(SCOPE, 1).build());
        read(r, snapshot(SCOPE, 2).setStatus(SnapshotStatus.REJECTED).build());
        assertThat(r.newestRejectedAboveAccepted()).isEqualTo(2L);
        read(r, snapshot(SCOPE, 3).build());
        assertThat(r.newestRejectedAboveAccepted()).as("an accepted version is newer").isNull();
        read(r, snapshot(SCOPE, 4).setStatus(SnapshotStatus.REJECTED).build());
        assertThat(r.newestRejectedAboveAccepted()).isEqualTo(4L);
        r.onTombstone(4);
        assertThat(r.newestRejectedAboveAccepted()).as("trimmed from the history").isNull();
        r.clear();
        assertThat(r.indexed()).isZero();
        assertThat(r.retained()).isZero();
    }
}
