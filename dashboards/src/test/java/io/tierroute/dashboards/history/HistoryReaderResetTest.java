package io.tierroute.dashboards.history;

import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.Snapshots;
import io.tierroute.deploy.local.KafkaBrokerProcess;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.deploy.local.ProjectTopics;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A running history reader whose history goes away under it, against real brokers: the topics deleted and created again
 * (the shared embedded broker), and the broker replaced by a new cluster on the same port (broker processes). It does
 * not rewind into a mix of the two histories (the old versions beside the new ones, the new control records ignored as
 * stale against the old sequence) but notices, says so, and reads the new topics from the beginning.
 */
class HistoryReaderResetTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /**
     * The identity's waits in the tests of a cluster that does not answer: shorter than production's 5 s and 10 s, and
     * as far apart (the question must still be out when the first wait ends, whatever else the machine runs).
     */
    private static final Duration CONFIRM_WAIT = Duration.ofSeconds(2);
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(7);
    /**
     * The confirm wait (and answer timeout) of the identity whose wait a stop ends: long, so that a wait the stop did
     * not end stays far above the bound on one it ended, which includes making the Admin client (slow on a loaded
     * machine).
     */
    private static final Duration STOP_WAIT = Duration.ofSeconds(30);
    /** alphaD of every snapshot of the new history: tells its versions from the old ones of the same number. */
    private static final double NEW_ALPHA_D = 77;

    private HistoryReader reader;

    @BeforeEach
    void emptyTopics() throws Exception {
        Broker.resetTopics();
    }

    @AfterEach
    void closeReader() {
        if (reader != null) {
            reader.close();
        }
    }

    @Test
    void topicsCreatedAgainWithLowerVersionsAndANewPinAreReadFromScratch() throws Exception {
        try (KafkaProducer<byte[], byte[]> p = Broker.producer()) {
            for (long v = 1; v <= 12; v++) {
                Broker.publish(p, Snapshots.accepted("default", v).build());
            }
            control(p, ControlAction.PIN, 10, 1);
            control(p, ControlAction.UNPIN, 10, 2);
            control(p, ControlAction.PIN, 11, 3);
        }
        SnapshotHistory history = new SnapshotHistory();
        reader = new HistoryReader(Broker.bootstrap(), history).start();
        assertThat(reader.awaitReady(WAIT)).isTrue();
        assertThat(history.activeVersion("default")).hasValue(11);

        Broker.resetTopics(); // both topics deleted and created again: empty, the reader's positions past their ends
        try (KafkaProducer<byte[], byte[]> p = Broker.producer()) {
            for (long v = 1; v <= 4; v++) {
                Broker.publish(p, Snapshots.accepted("default", v).setAlphaD(Snapshots.fv(NEW_ALPHA_D, 800)).build());
            }
            control(p, ControlAction.PIN, 3, 1); // sequence 1: stale against the old history's 3
        }

        Broker.await(WAIT, () -> history.ready() && history.controlSequence("default") == 1
                && history.scope("default").map(s -> s.versions().size() == 4).orElse(false), "the new history, alone");
        ScopeState st = history.scope("default").orElseThrow();
        assertThat(st.pinnedVersion()).isEqualTo(3L);
        assertThat(st.activeVersion()).isEqualTo(3L);
        assertThat(st.versions()).extracting(VersionRecord::version).containsExactly(1L, 2L, 3L, 4L);
        assertThat(history.version("default", 3).orElseThrow().params().get("alphaD").value())
                .as("version 3 of the new history").isEqualTo(NEW_ALPHA_D);
        assertThat(reader.historyResets()).isPositive();
        assertThat(reader.lastHistoryReset()).containsAnyOf("recreated or truncated", "deleted and created again",
                "was deleted (Kafka at ");
        assertThat(reader.lastError()).as("cleared once the new history is read").isNull();
    }

    /**
     * Only the control topic lost its records (created again empty, or its records deleted) while the snapshots keep
     * the control sequence their job had applied: such a snapshot is held back only until the reader has read both
     * topics through, then counts — at start-up and while following — instead of leaving the scope without an active
     * version for ever (and the dashboard at odds with the selectors).
     */
    @Test
    void aSnapshotWhoseControlRecordIsGoneCountsOnceBothTopicsAreReadThrough() throws Exception {
        try (KafkaProducer<byte[], byte[]> p = Broker.producer()) {
            Broker.publish(p, Snapshots.accepted("default", 1).build());
            Broker.publish(p, Snapshots.accepted("default", 2).setControlSequence(3).build());
        }
        SnapshotHistory history = new SnapshotHistory();
        reader = new HistoryReader(Broker.bootstrap(), history).start();
        assertThat(reader.awaitReady(WAIT)).isTrue();
        Broker.await(WAIT, () -> history.activeVersion("default").orElse(0) == 2, "version 2 active");

        try (KafkaProducer<byte[], byte[]> p = Broker.producer()) {
            Broker.publish(p, Snapshots.accepted("default", 3).setControlSequence(4).build());
        }
        Broker.await(WAIT, () -> history.activeVersion("default").orElse(0) == 3, "version 3 active while following");
        assertThat(history.waitsForReadThrough()).isFalse();
    }

    /**
     * Review finding: the job publishes during the reader's start-up while the control record its snapshots are stamped
     * with is gone: the history is marked ready only once the round of reading through under way when catch-up ended
     * has released what was read, never on version 1 a moment before. Without the fix this fails whenever that round is
     * still under way when catch-up is reached, which a job publishing every millisecond makes the usual case.
     */
    @Test
    void aSnapshotHeldBackWhenCatchUpEndsIsReleasedBeforeTheHistoryIsReady() throws Exception {
        long publishedBeforeStart = 51;
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean stop = new AtomicBoolean();
        try (KafkaProducer<byte[], byte[]> p = Broker.producer()) {
            Broker.publish(p, Snapshots.accepted("default", 1).build());
            Thread job = new Thread(() -> {
                for (long v = 2; v <= 3000 && !stop.get(); v++) {
                    ParameterSnapshot s = Snapshots.accepted("default", v).setControlSequence(3).build(); // 1–3 gone
                    p.send(new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey("default", v)
                            .getBytes(StandardCharsets.UTF_8), Codecs.PARAMETER_SNAPSHOT.encode(s)));
                    if (v == publishedBeforeStart) {
                        p.flush();
                        started.countDown();
                    } else if (v > publishedBeforeStart) {
                        LockSupport.parkNanos(1_000_000); // a job still publishing while the reader starts
                    }
                }
                p.flush();
            }, "job");
            job.start();
            try {
                assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
                SnapshotHistory history = new SnapshotHistory();
                reader = new HistoryReader(Broker.bootstrap(), history).start();
                assertThat(reader.awaitReady(WAIT)).isTrue();
                assertThat(history.activeVersion("default").orElse(0)).as("ready on a released version, not on 1")
                        .isGreaterThanOrEqualTo(publishedBeforeStart);
            } finally {
                stop.set(true);
                job.join();
            }
        }
    }

    /**
     * The broker replaced by a new cluster on the same port (a second {@code tierroute demo --kafka-port N}), its topics
     * already longer than the reader's positions: no position past an end tells, the cluster and topic ids do, asked
     * before the records fetched from the new log are applied. The periodic question is an hour apart here, so that
     * the one asked before applying is what must tell (the reader fetches from the new cluster as soon as it answers:
     * applied at once, its versions 4 to 6 would sit beside the old 1 to 3).
     */
    @Test
    void aBrokerReplacedByANewClusterOnTheSamePortIsReadAgainFromScratch(@TempDir Path tmp) throws Exception {
        int port = LoopbackPorts.free();
        int controllerPort = LoopbackPorts.free();
        SnapshotHistory history = new SnapshotHistory();
        try (KafkaBrokerProcess first = broker(tmp.resolve("first"), port, controllerPort)) {
            first.start(Duration.ofSeconds(120));
            ProjectTopics.create(first.bootstrapServers(), (short) 1);
            try (KafkaProducer<byte[], byte[]> p = producer(first.bootstrapServers())) {
                for (long v = 1; v <= 3; v++) {
                    Broker.publish(p, Snapshots.accepted("default", v).build());
                }
            }
            reader = new HistoryReader(first.bootstrapServers(), history, new Properties(), Duration.ofHours(1)).start();
            assertThat(reader.awaitReady(WAIT)).isTrue();
            assertThat(history.activeVersion("default")).hasValue(3);
        }
        try (KafkaBrokerProcess second = broker(tmp.resolve("second"), port, controllerPort)) {
            second.start(Duration.ofSeconds(120)); // formatted anew: another cluster id, on the same address
            ProjectTopics.create(second.bootstrapServers(), (short) 1);
            try (KafkaProducer<byte[], byte[]> p = producer(second.bootstrapServers())) {
                for (long v = 1; v <= 6; v++) {
                    Broker.publish(p, Snapshots.accepted("default", v).setAlphaD(Snapshots.fv(NEW_ALPHA_D, 800)).build());
                }
                control(p, ControlAction.PIN, 2, 1);
            }
            Broker.await(Duration.ofSeconds(60), () -> history.ready() && history.controlSequence("default") == 1
                    && history.activeVersion("default").orElse(0) == 2, "the new cluster's pin on 2");
            assertThat(history.scope("default").orElseThrow().versions()).hasSize(6)
                    .allSatisfy(v -> assertThat(v.params().get("alphaD").value()).isEqualTo(NEW_ALPHA_D));
            assertThat(reader.historyResets()).as("one reset: the new cluster's topics are not a second change")
                    .isEqualTo(1);
            assertThat(reader.lastHistoryReset()).as("told by the cluster id, or by the consumer's own check of its "
                    + "position against the new log").containsAnyOf("is another cluster now (cluster id ",
                    "recreated or truncated");
            System.out.println("[measured] the new cluster noticed by: " + reader.lastHistoryReset());
        }
    }

    private static KafkaBrokerProcess broker(Path dir, int port, int controllerPort) {
        List<Path> classpath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of).toList();
        return new KafkaBrokerProcess(new KafkaBrokerProcess.Settings(dir, port, controllerPort, classpath,
                "tierroute-test:" + dir, Map.of()));
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        return new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, "linger.ms", 0), new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    /** Started before the topics exist: the status says so while it waits, and nothing of it once they are read. */
    @Test
    void topicsThatDoNotExistYetAreWaitedForAndTheWaitIsNoLongerReportedOnceRead() throws Exception {
        Broker.get().deleteTopics(Topics.ALL);
        SnapshotHistory history = new SnapshotHistory();
        reader = new HistoryReader(Broker.bootstrap(), history).start();
        Broker.await(WAIT, () -> String.valueOf(reader.lastError()).startsWith("topics [" + Topics.PARAMS + ", "
                + Topics.CONTROL + "] do not exist yet on "), "the wait reported");
        Topics.Spec params = Topics.specs().stream().filter(t -> t.name().equals(Topics.PARAMS)).findFirst().orElseThrow();
        Broker.get().createTopic(params.name(), params.partitions(), params.configs());
        Broker.await(WAIT, () -> String.valueOf(reader.lastError()).startsWith("topic " + Topics.CONTROL
                + " does not exist yet on "), "the one still missing named, not the list");
        Broker.resetTopics();
        try (KafkaProducer<byte[], byte[]> p = Broker.producer()) {
            Broker.publish(p, Snapshots.accepted("default", 1).build());
        }
        assertThat(reader.awaitReady(WAIT)).isTrue();
        Broker.await(WAIT, () -> history.activeVersion("default").orElse(0) == 1, "version 1 read");
        assertThat(reader.lastError()).as("the topics exist now").isNull();
        assertThat(reader.historyResets()).isZero();
    }

    /** An identity that asks a cluster that is not there, with the tests' short waits. */
    private static HistoryIdentity identityOfNowhere(String nowhere, Duration period) {
        return identityOfNowhere(nowhere, period, CONFIRM_WAIT, ANSWER_TIMEOUT);
    }

    private static HistoryIdentity identityOfNowhere(String nowhere, Duration period, Duration confirmWait,
                                                     Duration answerTimeout) {
        return new HistoryIdentity(nowhere, new Properties(), List.of(Topics.PARAMS, Topics.CONTROL), period, confirmWait,
                answerTimeout);
    }

    /**
     * A cluster that does not answer: the first confirm waits its whole wait and lets the records through;
     * the next does not wait again while that question is out (records a dead broker left buffered are not held
     * 5 s each poll); and a stop ends a wait at once, so close() is not held up.
     */
    @Test
    void confirmWaitsOnceForAClusterThatDoesNotAnswerAndNotPastAStop() {
        String nowhere = "127.0.0.1:" + LoopbackPorts.free();
        try (HistoryIdentity identity = identityOfNowhere(nowhere, Duration.ofHours(1))) {
            long start = System.nanoTime();
            assertThat(identity.confirm(() -> true)).isNull();
            long firstMs = (System.nanoTime() - start) / 1_000_000;
            start = System.nanoTime();
            assertThat(identity.confirm(() -> true)).isNull();
            long secondMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(firstMs).as("waited for an answer").isGreaterThanOrEqualTo(CONFIRM_WAIT.toMillis());
            assertThat(secondMs).as("no second wait while the first question is out").isLessThan(1_000);
        }
        try (HistoryIdentity identity = identityOfNowhere(nowhere, Duration.ofHours(1), STOP_WAIT, STOP_WAIT)) {
            long start = System.nanoTime();
            assertThat(identity.confirm(() -> false)).isNull(); // makes the Admin client, asks, and is stopped
            assertThat((System.nanoTime() - start) / 1_000_000).as("a stop ends the wait, of " + STOP_WAIT)
                    .isLessThan(STOP_WAIT.toMillis() / 3);
        }
    }

    /**
     * Once the question a confirm gave up on has been answered (here: failed at the Admin client's answer timeout),
     * by a check between two polls that returned records, the next confirm asks anew and waits again: a question
     * check() asked since may predate the records.
     */
    @Test
    void confirmWaitsAgainOnceTheQuestionItGaveUpOnHasBeenAnswered() {
        String nowhere = "127.0.0.1:" + LoopbackPorts.free();
        try (HistoryIdentity identity = identityOfNowhere(nowhere, Duration.ofMillis(50))) {
            assertThat(identity.confirm(() -> true)).isNull(); // waits, then gives up on its question
            Broker.await(Duration.ofSeconds(30), () -> identity.check() == null && identity.answersTaken() > 0,
                    "the given-up question answered (failed) and taken by check()");
            long start = System.nanoTime();
            assertThat(identity.confirm(() -> true)).isNull();
            assertThat((System.nanoTime() - start) / 1_000_000).as("waited again, for a question of its own")
                    .isGreaterThanOrEqualTo(CONFIRM_WAIT.toMillis());
        }
    }

    @Test
    void theIdentityTellsATopicDeletedAndCreatedAgain() throws Exception {
        try (HistoryIdentity identity = new HistoryIdentity(Broker.bootstrap(), new Properties(),
                List.of(Topics.PARAMS, Topics.CONTROL), Duration.ofMillis(50))) {
            Broker.await(WAIT, () -> identity.check() == null && identity.topicId(Topics.CONTROL) != null
                    && identity.topicId(Topics.PARAMS) != null && identity.clusterId() != null, "the first answer");
            var before = identity.topicId(Topics.PARAMS);
            for (int i = 0; i < 5; i++) { // unchanged topics: no change, however often asked
                TimeUnit.MILLISECONDS.sleep(60);
                assertThat(identity.check()).isNull();
            }
            Broker.resetTopics();
            String[] change = new String[1];
            Broker.await(WAIT, () -> (change[0] = identity.check()) != null, "the change");
            // asked every 50 ms, it may see the topics gone twice before they are back: deleted, then read afresh
            assertThat(change[0]).matches("tierroute\\.(params|control) was deleted (and created again \\(topic id .+, "
                    + "was .+\\)|\\(Kafka at .+ no longer has it; topic id was .+\\))");
            Broker.await(WAIT, () -> identity.check() == null && identity.topicId(Topics.PARAMS) != null
                    && !identity.topicId(Topics.PARAMS).equals(before), "the new params topic id");
        }
    }

    /**
     * A topic deleted under a running dashboard (and not created again) was taken as "no answer" and never told: the
     * status said nothing wrong and a rollback said "retry" for ever. Now the reader says it, and so does a write.
     */
    @Test
    void aTopicDeletedUnderARunningReaderIsToldAndItsCreationReadFromScratch() throws Exception {
        try (KafkaProducer<byte[], byte[]> p = Broker.producer()) {
            Broker.publish(p, Snapshots.accepted("default", 1).build());
            Broker.publish(p, Snapshots.accepted("default", 2).build());
        }
        SnapshotHistory history = new SnapshotHistory();
        reader = new HistoryReader(Broker.bootstrap(), history, new Properties(), Duration.ofMillis(200)).start();
        assertThat(reader.awaitReady(WAIT)).isTrue();
        Broker.await(WAIT, () -> reader.identityTopicId(Topics.CONTROL) != null, "the identity's first answer");
        var deletedId = reader.identityTopicId(Topics.CONTROL);
        try (io.tierroute.dashboards.control.ControlWriter writer = new io.tierroute.dashboards.control.ControlWriter(
                Broker.bootstrap(), history, new Properties(), reader::kafkaOutage, reader::missingTopics)) {
            Broker.get().deleteTopics(List.of(Topics.CONTROL));
            Broker.await(WAIT, () -> reader.missingTopics() != null, "the deleted topic waited for");
            assertThat(reader.lastHistoryReset()).contains(Topics.CONTROL + " was deleted (Kafka at " + Broker.bootstrap()
                    + " no longer has it; topic id was ");
            assertThat(reader.missingTopics()).isEqualTo("topic " + Topics.CONTROL + " does not exist yet on "
                    + Broker.bootstrap());
            Broker.await(WAIT, () -> reader.missingTopics().equals(reader.lastError()), "said in the status");
            assertThat(history.ready()).isFalse();
            assertThatThrownBy(() -> writer.rollback("default", null, "alice", "bad fit"))
                    .hasMessage("the dashboard is still reading the snapshot history from Kafka (topic "
                            + Topics.CONTROL + " does not exist yet on " + Broker.bootstrap()
                            + "); nothing was written: try again once it has read it");

            Topics.Spec control = Topics.specs().stream().filter(t -> t.name().equals(Topics.CONTROL)).findFirst()
                    .orElseThrow();
            Broker.get().createTopic(control.name(), control.partitions(), control.configs());
            assertThat(reader.awaitReady(WAIT)).isTrue();
            Broker.await(WAIT, () -> history.ready() && reader.lastError() == null, "read again");
            assertThat(reader.missingTopics()).isNull();
            assertThat(history.scope("default").orElseThrow().versions()).hasSize(2);
            // The new topic the identity's reference, and one answer taken after the one that made it so: the reader
            // thread has acted on that one's comparison by then (a change would be a second reset), so none is pending.
            Broker.await(WAIT, () -> reader.identityTopicId(Topics.CONTROL) != null
                    && !reader.identityTopicId(Topics.CONTROL).equals(deletedId), "the new topic's id as the reference");
            long answers = reader.identityAnswers();
            Broker.await(WAIT, () -> reader.identityAnswers() > answers, "an answer after it");
            assertThat(reader.historyResets()).as("the deletion, and not the creation as a second change").isEqualTo(1);
            assertThat(writer.rollback("default", null, "alice", "bad fit").version()).isEqualTo(1L);
        }
    }

    /** A broker that has not learned of a topic yet answers once without it: no change, the id is kept. */
    @Test
    void oneAnswerWithoutATopicIsNoDeletionButTwoInARowAre() throws Exception {
        try (HistoryIdentity identity = new HistoryIdentity(Broker.bootstrap(), new Properties(),
                List.of(Topics.PARAMS, Topics.CONTROL), Duration.ofHours(1))) {
            Broker.await(WAIT, () -> identity.confirm(() -> true) == null && identity.topicId(Topics.CONTROL) != null
                    && identity.topicId(Topics.PARAMS) != null, "the reference");
            var control = identity.topicId(Topics.CONTROL);
            Broker.get().deleteTopics(List.of(Topics.CONTROL));
            Broker.await(WAIT, HistoryReaderResetTest::unknownToTheCluster, "the topic gone");
            assertThat(identity.confirm(() -> true)).as("one answer without it").isNull();
            assertThat(identity.topicId(Topics.CONTROL)).as("kept").isEqualTo(control);
            assertThat(identity.confirm(() -> true)).isEqualTo(Topics.CONTROL + " was deleted (Kafka at "
                    + Broker.bootstrap() + " no longer has it; topic id was " + control + ")");
            assertThat(identity.topicId(Topics.CONTROL)).isNull();
            assertThat(identity.confirm(() -> true)).as("told once").isNull();
        } finally {
            Broker.resetTopics();
        }
    }

    private static boolean unknownToTheCluster() {
        try (org.apache.kafka.clients.admin.Admin a = org.apache.kafka.clients.admin.Admin.create(
                Map.of("bootstrap.servers", Broker.bootstrap()))) {
            return !a.listTopics().names().get(30, TimeUnit.SECONDS).contains(Topics.CONTROL);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Asked before records are applied, the identity answers at once, however far away the periodic question is. */
    @Test
    void theIdentityConfirmedBeforeApplyingTellsAChangeAtOnce() throws Exception {
        try (HistoryIdentity identity = new HistoryIdentity(Broker.bootstrap(), new Properties(),
                List.of(Topics.PARAMS, Topics.CONTROL), Duration.ofHours(1))) {
            Broker.await(WAIT, () -> identity.confirm(() -> true) == null && identity.topicId(Topics.PARAMS) != null
                    && identity.topicId(Topics.CONTROL) != null && identity.confirm(() -> true) == null,
                    "the first answer, twice the same: the reference");
            assertThat(identity.confirm(() -> true)).as("the same topics").isNull();
            var params = identity.topicId(Topics.PARAMS);
            var control = identity.topicId(Topics.CONTROL);
            Broker.resetTopics();
            assertThat(identity.check()).as("the periodic question: an hour away").isNull();
            // The broker may learn of the new topics one at a time: each confirm tells what changed since the last.
            List<String> changes = new ArrayList<>();
            Broker.await(WAIT, () -> {
                String c = identity.confirm(() -> true);
                if (c != null) {
                    changes.add(c);
                }
                return !params.equals(identity.topicId(Topics.PARAMS)) && !control.equals(identity.topicId(Topics.CONTROL));
            }, "both new topic ids, told by confirm");
            assertThat(changes).isNotEmpty().allSatisfy(c -> assertThat(c)
                    .matches("tierroute\\.(params|control) was deleted .+"));
            assertThat(identity.confirm(() -> true)).as("the new topics are the reference now").isNull();
        }
    }

    private static void control(KafkaProducer<byte[], byte[]> p, ControlAction action, long version, long sequence)
            throws Exception {
        SnapshotControl c = SnapshotControl.newBuilder().setScope("default").setAction(action).setVersion(version)
                .setReason("test").setActor("alice").setTimestampMs(Snapshots.T0).setSequence(sequence).build();
        p.send(new ProducerRecord<>(Topics.CONTROL, Topics.controlKey("default", sequence)
                .getBytes(StandardCharsets.UTF_8), Codecs.SNAPSHOT_CONTROL.encode(c))).get(30, TimeUnit.SECONDS);
    }
}
