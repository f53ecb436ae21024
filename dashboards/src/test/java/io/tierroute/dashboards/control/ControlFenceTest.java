package io.tierroute.dashboards.control;

import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.DashboardFixture;
import io.tierroute.dashboards.Snapshots;
import io.tierroute.dashboards.history.HistoryReader;
import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two writers of one scope at once (a QA run: two `snapshots pin`, or the CLI and the dashboard, took the same
 * sequence; the loser's record stayed on the compacted topic and, once compaction kept the last record of the
 * key, won there). With the fence only one record commits, and readers see committed records only.
 */
class ControlFenceTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @RegisterExtension
    final DashboardFixture fixture = DashboardFixture.seededWith(Snapshots.accepted("default", 1),
            Snapshots.accepted("default", 2), Snapshots.accepted("default", 3));

    private static SnapshotControl pin(long version, long sequence, String actor) {
        return SnapshotControl.newBuilder().setScope("default").setAction(ControlAction.PIN).setVersion(version)
                .setActor(actor).setReason("race").setTimestampMs(1L).setSequence(sequence).build();
    }

    private static ControlFence open(String who) {
        return ControlFence.open(Broker.bootstrap(), new Properties(), "default", TIMEOUT, who);
    }

    @Test
    void theWriterFencedByALaterOneCommitsNothingAndTheLaterOneSeesAClearField() {
        try (ControlFence first = open("first"); ControlFence second = open("second")) {
            long seen = ControlFence.lastSequence(Broker.bootstrap(), new Properties(), "default", TIMEOUT);
            assertThat(seen).isZero();
            assertThatThrownBy(() -> first.commit(pin(2, seen + 1, "alice")))
                    .isInstanceOf(ControlFence.Fenced.class).hasMessageContaining("another writer");
            second.commit(pin(1, seen + 1, "bob"));
        }
        assertThat(Broker.controlRecords()).as("only the later writer's record is committed")
                .extracting(SnapshotControl::getActor).containsExactly("bob");
        assertThat(ControlFence.lastSequence(Broker.bootstrap(), new Properties(), "default", TIMEOUT)).isEqualTo(1);
    }

    /** Every write has its own key, so compaction keeps each (who pinned, who unpinned and why), not a scope's last. */
    @Test
    void everyWriteOfAScopeIsKeptUnderItsOwnKey() {
        try (ControlFence fence = open("first")) {
            fence.commit(pin(2, 1, "alice"));
        }
        try (ControlFence fence = open("second")) {
            fence.commit(pin(3, 2, "bob"));
        }
        assertThat(Broker.controlKeys()).containsExactly("default#0000000000000000001", "default#0000000000000000002");
        assertThat(Broker.controlRecords()).extracting(SnapshotControl::getActor).containsExactly("alice", "bob");
    }

    /**
     * A commit whose answer was lost is looked for on the topic before it is called failed. A lost answer cannot be
     * made on a real broker at will; what it leaves behind can: the record committed, the writer's producer fenced.
     * Here the writer's record lands, a later writer then opens the fence, and the writer's commit of that record
     * meets the fence: it is found as the scope's last committed record and reported as written, not as fenced, and
     * nothing is added to the topic.
     */
    @Test
    void aFencedCommitWhoseRecordIsAlreadyOnTheTopicIsFoundThereAndNotReportedAsFailed() {
        SnapshotControl mine = pin(2, 1, "alice");
        try (ControlFence first = open("first")) {
            first.commit(mine);
            try (ControlFence later = open("later")) {
                first.commit(mine); // fenced by 'later': its record is the scope's last, so it is reported as landed
            }
        }
        assertThat(Broker.controlRecords()).as("the record once, and nothing of the fenced attempt")
                .containsExactly(mine);
    }

    /**
     * The look on the topic compares the whole record, not the sequence: a fenced writer whose sequence the later
     * writer committed (another version, actor and reason) is told it was fenced, and only the later record is there.
     */
    @Test
    void aFencedCommitIsReportedFencedWhenAnotherWritersRecordTookItsSequence() {
        try (ControlFence first = open("first"); ControlFence second = open("second")) {
            second.commit(pin(1, 1, "bob"));
            assertThatThrownBy(() -> first.commit(pin(2, 1, "alice")))
                    .isInstanceOf(ControlFence.Fenced.class).hasMessageContaining("was not committed");
        }
        assertThat(Broker.controlRecords()).extracting(SnapshotControl::getActor).containsExactly("bob");
    }

    /** A fenced commit with nothing committed by anyone is reported Fenced, and the topic stays empty. */
    @Test
    void aFencedCommitWithNothingOnTheTopicIsReportedFencedAndLeavesTheTopicEmpty() {
        try (ControlFence first = open("first"); ControlFence second = open("second")) {
            assertThatThrownBy(() -> first.commit(pin(2, 1, "alice")))
                    .isInstanceOf(ControlFence.Fenced.class).hasMessageContaining("another writer of scope 'default'");
            assertThat(Broker.controlRecords()).as("nothing committed while 'second' holds the fence").isEmpty();
        }
        assertThat(Broker.controlRecords()).isEmpty();
        assertThat(ControlFence.lastSequence(Broker.bootstrap(), new Properties(), "default", TIMEOUT)).isZero();
    }

    /** A trim's deletions: tombstones of the scope's versions in one transaction, which a reader then forgets. */
    @Test
    void deletionsAreCommittedTombstonesThatReadersApply() throws Exception {
        try (ControlFence fence = open("trim")) {
            fence.commitDeletions(java.util.List.of(1L, 2L));
        }
        assertThat(Broker.paramsTombstoneKeys()).containsExactly(io.tierroute.schemas.Topics.paramsKey("default", 1),
                io.tierroute.schemas.Topics.paramsKey("default", 2));
        SnapshotHistory history = new SnapshotHistory();
        try (HistoryReader reader = new HistoryReader(Broker.bootstrap(), history).start()) {
            assertThat(reader.awaitReady(Duration.ofSeconds(30))).isTrue();
            assertThat(history.version("default", 1)).isEmpty();
            assertThat(history.version("default", 2)).isEmpty();
            assertThat(history.version("default", 3)).isPresent();
            assertThat(history.rollbackTarget("default")).isEmpty();
        }
    }

    /**
     * A trim's deletions committed while the fitting job's transaction is open lie past the committed end until that
     * transaction ends, so the dashboard's history does not hold them yet: its pin of a deleted version waits for them
     * behind the fence and is refused, instead of pinning a version no reader has any more.
     */
    @Test
    void aDashboardPinWaitsForATrimsDeletionsBehindAnOpenJobTransactionAndIsRefused() throws Exception {
        SnapshotHistory history = new SnapshotHistory();
        try (HistoryReader reader = new HistoryReader(Broker.bootstrap(), history).start();
             ControlWriter writer = new ControlWriter(Broker.bootstrap(), history);
             org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> job = jobWithAnOpenTransaction()) {
            assertThat(reader.awaitReady(Duration.ofSeconds(30))).isTrue();
            try (ControlFence trim = open("trim")) {
                trim.commitDeletions(java.util.List.of(1L));
            }
            Thread.sleep(500);
            assertThat(history.version("default", 1)).as("behind the job's open transaction").isPresent();

            java.util.concurrent.CompletableFuture<ControlWriter.Written> pin = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> writer.pin("default", 1, "alice", "back to 1"));
            Thread.sleep(1_000);
            assertThat(pin).as("waits for the params topic's end").isNotDone();
            job.commitTransaction();
            assertThatThrownBy(() -> pin.get(30, java.util.concurrent.TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ControlRefusedException.class).hasMessageContaining("version 1");
            assertThat(Broker.controlRecords()).isEmpty();
            assertThat(history.version("default", 1)).isEmpty();
        }
    }

    /** An open job transaction alone does not hold up a pin: no trim's deletions of the scope wait behind it. */
    @Test
    void aDashboardPinDoesNotWaitForAnOpenJobTransactionWithoutDeletions() throws Exception {
        SnapshotHistory history = new SnapshotHistory();
        try (HistoryReader reader = new HistoryReader(Broker.bootstrap(), history).start();
             ControlWriter writer = new ControlWriter(Broker.bootstrap(), history);
             org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> job = jobWithAnOpenTransaction()) {
            assertThat(reader.awaitReady(Duration.ofSeconds(30))).isTrue();
            long start = System.nanoTime();
            assertThat(writer.pin("default", 1, "alice", "rollback while the job hangs").sequence()).isEqualTo(1);
            // A pin that waited for the job's open transaction would fail above (the history cannot read past it), so
            // this bound only says the pin finished: 30 s, not the writer's 10 s Kafka timeout, for a loaded machine.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
            job.abortTransaction();
        }
    }

    /**
     * A producer like the fitting job's params sink, with a transaction left open on version 4 (the job between two
     * checkpoints, or hanging): it holds the params topic's committed end back.
     */
    private static org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> jobWithAnOpenTransaction()
            throws Exception {
        Properties tx = new Properties();
        tx.put("bootstrap.servers", Broker.bootstrap());
        tx.put("transactional.id", "tierroute-params-test-job");
        var job = new org.apache.kafka.clients.producer.KafkaProducer<>(tx,
                new org.apache.kafka.common.serialization.ByteArraySerializer(),
                new org.apache.kafka.common.serialization.ByteArraySerializer());
        job.initTransactions();
        job.beginTransaction();
        job.send(new org.apache.kafka.clients.producer.ProducerRecord<>(io.tierroute.schemas.Topics.PARAMS,
                io.tierroute.schemas.Topics.paramsKey("default", 4).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                io.tierroute.schemas.Codecs.PARAMETER_SNAPSHOT.encode(Snapshots.accepted("default", 4).build()))).get();
        return job;
    }

    /** A pin that opens its fence while a trim holds the scope's fence wins: the trim deletes nothing. */
    @Test
    void deletionsFencedByALaterWriterDeleteNothing() {
        try (ControlFence trim = open("trim"); ControlFence pin = open("pin")) {
            assertThatThrownBy(() -> trim.commitDeletions(java.util.List.of(1L, 2L)))
                    .isInstanceOf(ControlFence.Fenced.class).hasMessageContaining("deletions");
            pin.commit(pin(1, 1, "alice"));
        }
        assertThat(Broker.paramsTombstoneKeys()).isEmpty();
        assertThat(Broker.controlRecords()).extracting(SnapshotControl::getActor).containsExactly("alice");
    }

    @Test
    void theLastSequenceIsReadPastAnotherScopesOpenTransaction() throws Exception {
        // A writer of another scope stopped between send and commit: its open transaction holds the partition's
        // committed end back, and a read that stopped there would miss this scope's record committed after it.
        Properties tx = new Properties();
        tx.put("bootstrap.servers", Broker.bootstrap());
        tx.put("transactional.id", ControlFence.TRANSACTIONAL_ID_PREFIX + "other");
        try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> other =
                     new org.apache.kafka.clients.producer.KafkaProducer<>(tx,
                             new org.apache.kafka.common.serialization.ByteArraySerializer(),
                             new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            other.initTransactions();
            other.beginTransaction();
            SnapshotControl otherPin = SnapshotControl.newBuilder(pin(1, 1, "carol")).setScope("other").build();
            other.send(new org.apache.kafka.clients.producer.ProducerRecord<>(io.tierroute.schemas.Topics.CONTROL,
                    "other".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    io.tierroute.schemas.Codecs.SNAPSHOT_CONTROL.encode(otherPin))).get();
            try (ControlFence mine = open("mine")) {
                mine.commit(pin(2, 1, "alice"));
            }
            long start = System.nanoTime();
            java.util.concurrent.CompletableFuture<Long> seen = java.util.concurrent.CompletableFuture.supplyAsync(() ->
                    ControlFence.lastSequence(Broker.bootstrap(), new Properties(), "default", TIMEOUT));
            Thread.sleep(1_000);
            assertThat(seen).as("waits for the open transaction rather than answer 0").isNotDone();
            other.abortTransaction();
            assertThat(seen.get(30, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        }
    }

    @Test
    void aDashboardWriteThatFencesAnotherWriterIsTheOnlyOneAndItsAnswerIsTrue() throws Exception {
        SnapshotHistory history = new SnapshotHistory();
        try (HistoryReader reader = new HistoryReader(Broker.bootstrap(), history).start();
             ControlWriter writer = new ControlWriter(Broker.bootstrap(), history)) {
            assertThat(reader.awaitReady(Duration.ofSeconds(30))).isTrue();
            try (ControlFence cli = open("cli")) { // the CLI has read sequence 0 and is about to write
                ControlWriter.Written w = writer.pin("default", 2, "alice", "v3 is bad");
                assertThat(w.sequence()).isEqualTo(1);
                assertThatThrownBy(() -> cli.commit(pin(1, 1, "bob"))).isInstanceOf(ControlFence.Fenced.class);
            }
            assertThat(Broker.controlRecords()).extracting(SnapshotControl::getActor).containsExactly("alice");
            assertThat(history.activeVersion("default")).hasValue(2);

            // The next write reads past what it fenced: its sequence follows the committed record.
            ControlWriter.Written unpin = writer.unpin("default", "alice", "fixed");
            assertThat(unpin.sequence()).isEqualTo(2);
        }
    }

    @Test
    void aRollbackFromAVersionNoLongerActiveIsRefused() throws Exception {
        SnapshotHistory history = new SnapshotHistory();
        try (HistoryReader reader = new HistoryReader(Broker.bootstrap(), history).start();
             ControlWriter writer = new ControlWriter(Broker.bootstrap(), history)) {
            assertThat(reader.awaitReady(Duration.ofSeconds(30))).isTrue();
            // Two operators saw version 3 active and each rolls back once.
            assertThat(writer.rollback("default", 3L, "alice", "v3 is bad").version()).isEqualTo(2L);
            assertThatThrownBy(() -> writer.rollback("default", 3L, "bob", "v3 is bad"))
                    .isInstanceOf(ControlRefusedException.class).hasMessageContaining("version 2 is active now");
            assertThat(history.activeVersion("default")).hasValue(2);
            assertThat(Broker.controlRecords()).hasSize(1);
        }
    }
}
