package io.tierroute.selector.kafka;

import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.params.ParameterStore;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.tierroute.selector.kafka.KafkaFixture.await;
import static io.tierroute.selector.kafka.KafkaFixture.control;
import static io.tierroute.selector.kafka.KafkaFixture.publish;
import static io.tierroute.selector.kafka.KafkaFixture.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A snapshot that names the record carrying its output-length model ({@code quantileModelVersion}) instead of
 * carrying it, against a real broker: the loader finds that record (held, re-read by offset, scanned for) in whatever
 * status it was published, and refuses the snapshot, keeping the set in force, when it is gone.
 */
class ModelByReferenceLoaderTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private final List<ParameterLoader> loaders = new ArrayList<>();
    private KafkaProducer<byte[], byte[]> producer;

    @BeforeEach
    void setUp() throws Exception {
        KafkaFixture.resetTopics();
        producer = KafkaFixture.producer();
    }

    @AfterEach
    void tearDown() {
        loaders.forEach(ParameterLoader::close);
        producer.close();
    }

    private ParameterLoader start(ParameterStore store, KafkaSettings settings, int indexedVersions)
            throws InterruptedException {
        return KafkaFixture.startLoader(settings, store, indexedVersions, loaders, WAIT);
    }

    private static ParameterStore store() {
        return KafkaFixture.loaderStore();
    }

    /** The fixture forest, told apart by its training rows. */
    private static QuantileForestModel forest(long trainingRows) {
        return QuantileForestModel.newBuilder(KafkaFixture.forest()).setTrainingRows(trainingRows).build();
    }

    private void carrier(long version, SnapshotStatus status, QuantileForestModel model) {
        publish(producer, snapshot("default", version).setStatus(status).setQuantileModel(model)
                .setQuantileModelVersion(version).build());
    }

    private void referrer(long version, long carrier) {
        publish(producer, snapshot("default", version).setQuantileModelVersion(carrier).build());
    }

    @Test
    void aSnapshotNamingARejectedCarrierGetsThatModelAndFollowersReuseIt() throws Exception {
        carrier(1, SnapshotStatus.ACCEPTED, forest(1_000));
        carrier(2, SnapshotStatus.REJECTED, forest(2_000)); // a retrained forest the gate first refused
        ParameterStore store = store();
        ParameterLoader l = start(store, KafkaFixture.settings(), ParameterLoader.DEFAULT_INDEXED_VERSIONS);
        assertThat(store.current().version()).isEqualTo(1);
        assertThat(store.current().outputModel()).isNotNull();
        assertThat(store.current().outputModelVersion()).as("a carrier names itself").isEqualTo(1);

        referrer(3, 2);
        await(WAIT, () -> store.current().version() == 3, "version 3 applied");
        assertThat(((io.tierroute.selector.params.ForestOutputModel) store.current().outputModel()).trainingRows())
                .as("the model of the rejected record 2, which version 3 names").isEqualTo(2_000);
        assertThat(store.current().outputModelVersion()).as("the record carrying it, for /v1/params").isEqualTo(2);
        for (long v = 4; v <= 6; v++) {
            referrer(v, 2);
        }
        await(WAIT, () -> store.current().version() == 6, "version 6 applied");
        assertThat(((io.tierroute.selector.params.ForestOutputModel) store.current().outputModel()).trainingRows())
                .isEqualTo(2_000);
        assertThat(l.rereads() + l.scans()).as("the newest carrier is held: nothing read back").isZero();
    }

    /**
     * A carrier whose forest the evaluator refuses (a cycle, which a job's gate passed before gate and evaluator shared
     * one check) is applied with the model in
     * use, and so is every version naming it: before, each was refused whole and the selector stayed on version 1.
     */
    @Test
    void aForestTheEvaluatorRefusesKeepsTheModelInUseAndTheVersionsStillApply() throws Exception {
        carrier(1, SnapshotStatus.ACCEPTED, forest(1_000));
        ParameterStore store = store();
        ParameterLoader l = start(store, KafkaFixture.settings(), ParameterLoader.DEFAULT_INDEXED_VERSIONS);
        assertThat(store.current().version()).isEqualTo(1);

        QuantileForestModel cyclic = forest(2_000);
        List<Integer> left = new ArrayList<>(cyclic.getNodeLeft());
        left.set(cyclic.getTreeRoots().get(0), cyclic.getTreeRoots().get(0));
        carrier(2, SnapshotStatus.ACCEPTED, QuantileForestModel.newBuilder(cyclic).setNodeLeft(left).build());
        referrer(3, 2);
        await(WAIT, () -> store.current().version() == 3, "version 3 applied");
        assertThat(((io.tierroute.selector.params.ForestOutputModel) store.current().outputModel()).trainingRows())
                .as("version 1's model, still in use").isEqualTo(1_000);
        assertThat(store.current().outputModelVersion()).isEqualTo(1);
        assertThat(l.forestsRefused()).isEqualTo(2);
        assertThat(l.badRecords()).as("nothing refused whole").isZero();
    }

    /**
     * The history as {@code snapshots trim} leaves it (tombstones of every version no reader needs; the pinned one, its
     * rollback target and the forest carrier stay): a running loader keeps its version and forest, one starting on
     * the trimmed topic lands on the same, and both follow the unpin's successor.
     */
    @Test
    void aTrimmedHistoryChangesNothingForARunningOrAStartingLoader() throws Exception {
        carrier(1, SnapshotStatus.ACCEPTED, forest(1_000));
        for (long v = 2; v <= 30; v++) {
            referrer(v, 1);
        }
        control(producer, "default", ControlAction.PIN, 6L, 1);
        KafkaSettings small = KafkaFixture.settings().withParams(new KafkaSettings.Params(true, 2, WAIT, false, KafkaSettings.Params.DEFAULTS.rhoMaxAge()));
        ParameterStore running = store();
        ParameterLoader l = start(running, small, 4);
        assertThat(running.current().version()).isEqualTo(6);

        for (long v : List.of(2L, 3L, 4L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L, 20L)) {
            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(Topics.PARAMS,
                    Topics.paramsKey("default", v).getBytes(java.nio.charset.StandardCharsets.UTF_8), null)).get();
        }
        ParameterStore starting = store();
        ParameterLoader fresh = start(starting, small, 4);
        await(WAIT, () -> l.paramsRecordsRead() == fresh.paramsRecordsRead(), "the running loader read the tombstones");
        for (ParameterStore s : List.of(running, starting)) {
            assertThat(s.current().version()).isEqualTo(6);
            assertThat(((io.tierroute.selector.params.ForestOutputModel) s.current().outputModel()).trainingRows())
                    .as("version 1's forest, which version 6 names").isEqualTo(1_000);
        }
        assertThat(l.badRecords()).as("a tombstone is a deletion, not a bad record").isZero();

        control(producer, "default", ControlAction.PIN, 5L, 2); // the rollback target stayed
        await(WAIT, () -> running.current().version() == 5 && starting.current().version() == 5, "rolled back to 5");
        control(producer, "default", ControlAction.UNPIN, 5L, 3);
        publish(producer, snapshot("default", 31).setQuantileModelVersion(1L).setControlSequence(3).build());
        await(WAIT, () -> running.current().version() == 31 && starting.current().version() == 31,
                "the unpin's successor");
        assertThat(starting.current().outputModelVersion()).isEqualTo(1);
    }

    @Test
    void aFreshLoaderReReadsAnOldCarrierByOffsetAndAScanFindsOneOlderThanTheIndex() throws Exception {
        carrier(1, SnapshotStatus.ACCEPTED, forest(1_000));
        for (long v = 2; v <= 8; v++) {
            referrer(v, 1);
        }
        carrier(9, SnapshotStatus.ACCEPTED, forest(9_000));
        referrer(10, 9);
        KafkaSettings small = KafkaFixture.settings().withParams(new KafkaSettings.Params(true, 2, WAIT, false, KafkaSettings.Params.DEFAULTS.rhoMaxAge()));
        ParameterStore store = store();
        ParameterLoader l = start(store, small, 3);
        assertThat(store.current().version()).isEqualTo(10);
        assertThat(((io.tierroute.selector.params.ForestOutputModel) store.current().outputModel()).trainingRows())
                .isEqualTo(9_000);

        control(producer, "default", ControlAction.PIN, 7L, 1); // 7 is older than the 3 indexed versions: scanned for
        await(WAIT, () -> store.current().version() == 7, "rolled back to 7");
        assertThat(((io.tierroute.selector.params.ForestOutputModel) store.current().outputModel()).trainingRows())
                .as("version 1's model, which version 7 names").isEqualTo(1_000);
        assertThat(store.current().outputModelVersion()).isEqualTo(1);
        assertThat(l.lastSwapNanos()).isPositive();
        assertThat(l.rereads()).as("carrier 1's offset is indexed: read back by it").isEqualTo(1);
        assertThat(l.scans()).as("version 7 itself is older than the offset index").isEqualTo(1);
    }

    @Test
    void aSnapshotWhoseCarrierIsGoneOrCarriesNothingIsRefusedAndTheSetInForceStays() throws Exception {
        carrier(1, SnapshotStatus.ACCEPTED, forest(1_000));
        KafkaFixture.send(producer, Topics.PARAMS, Topics.paramsKey("default", 1), null); // trimmed from the history
        referrer(2, 1);
        ParameterStore store = store();
        ParameterLoader l = start(store, KafkaFixture.settings(), ParameterLoader.DEFAULT_INDEXED_VERSIONS);
        assertThat(l.badRecords(Topics.PARAMS, ParameterLoader.BadReason.MISSING)).isEqualTo(1);
        assertThat(store.current().version()).as("nothing applied: the configured set stays").isZero();
        assertThat(l.status().lastError()).contains("version 1 of scope 'default'")
                .contains("carries the output-length model of version 2").contains("no longer on " + Topics.PARAMS);

        long scans = l.scans();
        referrer(3, 1); // the job names the lost carrier in every snapshot after it: no scan each time
        await(WAIT, () -> l.badRecords(Topics.PARAMS, ParameterLoader.BadReason.MISSING) == 2, "version 3 refused");
        assertThat(l.scans()).as("a carrier found gone is not scanned for again").isEqualTo(scans);

        // names a record that carries no model
        publish(producer, snapshot("default", 4).build());
        await(WAIT, () -> store.current().version() == 4, "version 4 applied");
        referrer(5, 4);
        await(WAIT, () -> l.badRecords(Topics.PARAMS, ParameterLoader.BadReason.UNUSABLE) == 1, "version 5 refused");
        assertThat(l.status().lastError()).contains("carries no model");
        assertThat(store.current().version()).isEqualTo(4);

        // names a later version: a malformed reference
        referrer(6, 9);
        await(WAIT, () -> l.badRecords(Topics.PARAMS, ParameterLoader.BadReason.UNUSABLE) == 2, "version 6 refused");
        assertThat(l.status().lastError()).contains("not an earlier version");
        assertThat(store.current().version()).isEqualTo(4);
    }
}
