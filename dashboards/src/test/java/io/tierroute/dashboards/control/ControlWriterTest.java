package io.tierroute.dashboards.control;

import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.DashboardFixture;
import io.tierroute.dashboards.Snapshots;
import io.tierroute.dashboards.history.HistoryReader;
import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.snapshot.ControlRecordCheck;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The control writer and history reader against a real embedded broker. */
class ControlWriterTest {

    @RegisterExtension
    final DashboardFixture fixture = DashboardFixture.seededWith(Snapshots.accepted("default", 1),
            Snapshots.accepted("default", 2), Snapshots.rejected("default", 3), Snapshots.accepted("default", 4));
    private HistoryReader reader;
    private ControlWriter writer;

    @BeforeEach
    void setUp() throws Exception {
        SnapshotHistory history = new SnapshotHistory();
        reader = new HistoryReader(Broker.bootstrap(), history).start();
        assertThat(reader.awaitReady(Duration.ofSeconds(30))).as("history caught up").isTrue();
        writer = new ControlWriter(Broker.bootstrap(), history);
    }

    @AfterEach
    void tearDown() {
        writer.close();
        reader.close();
    }

    @Test
    void rollbackPinsThePreviousAcceptedVersionAndRecordsWhoAndWhy() {
        assertThat(reader.history().activeVersion("default")).hasValue(4);
        ControlWriter.Written w = writer.rollback("default", "alice", "alphaD looks wrong");
        assertThat(w.version()).as("skips the rejected version 3").isEqualTo(2L);
        assertThat(w.sequence()).isEqualTo(1);
        assertThat(w.previousActive()).isEqualTo(4L);
        assertThat(reader.history().activeVersion("default")).hasValue(2);

        ControlWriter.Written again = writer.rollback("default", "alice", "further back");
        assertThat(again.version()).isEqualTo(1L);
        assertThat(again.sequence()).isEqualTo(2);

        ControlWriter.Written unpin = writer.unpin("default", "bob", "fixed");
        assertThat(unpin.action()).isEqualTo("UNPIN");
        assertThat(unpin.version()).as("an unpin names the version that was pinned").isEqualTo(1L);
        assertThat(unpin.sequence()).isEqualTo(3);

        List<SnapshotControl> onTopic = Broker.controlRecords();
        assertThat(onTopic).extracting(SnapshotControl::getSequence).containsExactly(1L, 2L, 3L);
        assertThat(onTopic).extracting(SnapshotControl::getAction)
                .containsExactly(ControlAction.PIN, ControlAction.PIN, ControlAction.UNPIN);
        assertThat(onTopic.get(0).getActor()).isEqualTo("alice");
        assertThat(onTopic.get(0).getReason()).isEqualTo("alphaD looks wrong");
        assertThat(onTopic.get(2).getActor()).isEqualTo("bob");
    }

    /**
     * v4 is bad: a rollback pins 2 (sequence 1), an unpin (2) leaves 2 active, and the job publishes v5 (stamped 2),
     * active. A rollback from 5 goes back to 2, which was active before it, not to 4, the version rolled back from as
     * bad (it pinned 4: the highest accepted version below the active one).
     */
    @Test
    void aRollbackAfterAnUnpinGoesToTheVersionActiveBeforeNotToTheOneRolledBackFrom() throws Exception {
        assertThat(writer.rollback("default", 4L, "alice", "v4 is bad").version()).isEqualTo(2L);
        writer.unpin("default", "bob", "fit fixed");
        try (var producer = Broker.producer()) {
            Broker.publish(producer, Snapshots.accepted("default", 5).setControlSequence(2).build());
        }
        Broker.await(Duration.ofSeconds(20), () -> reader.history().activeVersion("default").orElse(0) == 5,
                "version 5 active");

        ControlWriter.Written w = writer.rollback("default", 5L, "carol", "v5 is bad too");

        assertThat(w.version()).as("the version active before 5").isEqualTo(2L);
        assertThat(reader.history().activeVersion("default")).hasValue(2);
    }

    @Test
    void pinningAnUnknownOrRejectedVersionIsRefusedWithTheReason() {
        assertThatThrownBy(() -> writer.pin("default", 99, "alice", "try"))
                .isInstanceOf(ControlRefusedException.class).hasMessageContaining("version 99")
                .hasMessageContaining("unknown");
        assertThatThrownBy(() -> writer.pin("default", 3, "alice", "try"))
                .isInstanceOf(ControlRefusedException.class).hasMessageContaining("REJECTED")
                .hasMessageContaining("alphaP jumped");
        assertThatThrownBy(() -> writer.pin("nope", 1, "alice", "try"))
                .hasMessageContaining("unknown scope 'nope'")
                .satisfies(e -> assertThat(((ControlRefusedException) e).status()).as("as a read of it").isEqualTo(404));
        assertThatThrownBy(() -> writer.unpin("default", "alice", "try")).hasMessageContaining("not pinned");
        assertThatThrownBy(() -> writer.pin("default", 1, " ", "try")).hasMessageContaining("actor");
        assertThatThrownBy(() -> writer.pin("default", 1, "alice", "")).hasMessageContaining("reason");
        assertThat(Broker.controlRecords()).as("nothing written").isEmpty();

        ControlWriter.Written w = writer.pin("default", 1, "alice", "known good");
        assertThat(w.sequence()).isEqualTo(1);
        assertThat(reader.history().scope("default").orElseThrow().pinnedVersion()).isEqualTo(1L);
        assertThatThrownBy(() -> writer.pin("default", 1, "bob", "again"))
                .isInstanceOf(ControlRefusedException.class).hasMessageContaining("already pinned to it");
        assertThat(Broker.controlRecords()).as("the refused pin wrote nothing").hasSize(1);
    }

    /**
     * Version 5 is marked ACCEPTED but selectors cannot use it (α_p NaN: a writer other than the job). Pinned, it would
     * leave every selector on what it served: refused, nothing written. A rollback from 6, whose target by the rule is
     * 5 (active before it), pins 4 instead, the version selectors served while 5 was active.
     */
    @Test
    void aVersionSelectorsCannotUseIsNeitherPinnedNorRolledBackTo() throws Exception {
        try (var producer = Broker.producer()) {
            Broker.publish(producer, Snapshots.accepted("default", 5).setAlphaP(Snapshots.fv(Double.NaN, 10)).build());
        }
        Broker.await(Duration.ofSeconds(20), () -> reader.history().activeVersion("default").orElse(0) == 5,
                "version 5 active by the rule");
        assertThat(reader.history().servedVersion("default")).hasValue(4);
        assertThatThrownBy(() -> writer.pin("default", 5, "alice", "try"))
                .isInstanceOf(ControlRefusedException.class)
                .hasMessage("cannot pin version 5 of scope 'default': selectors cannot use it (alphaP must be finite, "
                        + "got NaN); pinned, they would keep serving the version they serve now");

        try (var producer = Broker.producer()) {
            Broker.publish(producer, Snapshots.accepted("default", 6).build());
        }
        Broker.await(Duration.ofSeconds(20), () -> reader.history().activeVersion("default").orElse(0) == 6,
                "version 6 active");
        assertThat(Broker.controlRecords()).as("nothing written").isEmpty();

        ControlWriter.Written back = writer.rollback("default", 6L, "alice", "v6 is bad");
        assertThat(back.version()).as("not 5, active before 6 but never served: 4, served meanwhile").isEqualTo(4L);
        assertThat(reader.history().servedVersion("default")).hasValue(4);
    }

    @Test
    void aScopeWhoseControlSequenceIsAtTheBoundIsRefused() {
        try (ControlFence fence = ControlFence.open(Broker.bootstrap(), new Properties(), "default",
                Duration.ofSeconds(10), "test")) {
            fence.commit(SnapshotControl.newBuilder().setScope("default").setAction(ControlAction.PIN).setVersion(2L)
                    .setReason("at the bound").setActor("test").setTimestampMs(0)
                    .setSequence(ControlRecordCheck.MAX_SEQUENCE).build());
        }
        Broker.await(Duration.ofSeconds(30), () -> reader.history().controlSequence("default")
                == ControlRecordCheck.MAX_SEQUENCE, "the history read the record");
        // Before: 2^62 + 1 was written, every reader ignored it, and the dashboard answered 202 unconfirmed.
        assertThatThrownBy(() -> writer.pin("default", 4, "alice", "try"))
                .isInstanceOf(ControlRefusedException.class)
                .hasMessageContaining("scope 'default'").hasMessageContaining("control sequence is exhausted")
                .satisfies(e -> assertThat(((ControlRefusedException) e).status()).isEqualTo(409));
        assertThatThrownBy(() -> writer.unpin("default", "alice", "try")).hasMessageContaining("exhausted");
        assertThat(Broker.controlRecords()).as("nothing more written").hasSize(1);
    }

    /**
     * The control topic was recreated (empty) after the job had applied control sequence 7, which it stamped on v5. A
     * pin numbered from the topic alone (1) would be ignored by the job (not above 7) and applied by every reader: the
     * job would go on gating against another version than the one the selectors serve. It takes 8.
     */
    @Test
    void aWriteAfterTheControlTopicLostRecordsNumbersAboveTheSnapshotsStamps() throws Exception {
        try (var producer = Broker.producer()) {
            Broker.publish(producer, Snapshots.accepted("default", 5).setControlSequence(7).build());
        }
        Broker.await(Duration.ofSeconds(20), () -> reader.history().activeVersion("default").orElse(0) == 5,
                "version 5 released once both topics were read through");

        ControlWriter.Written w = writer.pin("default", 2, "alice", "after the control topic was recreated");

        assertThat(w.sequence()).isEqualTo(8);
        assertThat(Broker.controlRecords()).extracting(SnapshotControl::getSequence).containsExactly(8L);
        assertThat(reader.history().activeVersion("default")).hasValue(2);
    }

    @Test
    void theSequenceContinuesFromWhatIsAlreadyOnTheTopic() {
        writer.pin("default", 2, "alice", "first");
        writer.close();
        reader.close();
        SnapshotHistory fresh = new SnapshotHistory();
        reader = new HistoryReader(Broker.bootstrap(), fresh).start();
        try {
            assertThat(reader.awaitReady(Duration.ofSeconds(30))).isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        writer = new ControlWriter(Broker.bootstrap(), fresh);
        assertThat(fresh.activeVersion("default")).as("the pin survives a restart").hasValue(2);
        assertThat(writer.pin("default", 4, "alice", "second").sequence()).isEqualTo(2);
    }
}
