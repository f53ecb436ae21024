package io.tierroute.dashboards.history;

import io.tierroute.dashboards.Snapshots;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The history model without Kafka: statuses by the activation rule, rollback targets, bounded memory. */
class SnapshotHistoryTest {

    private static SnapshotControl control(ControlAction a, Long version, long seq) {
        return SnapshotControl.newBuilder().setScope("default").setAction(a).setVersion(version).setReason("test")
                .setActor("ops").setTimestampMs(1).setSequence(seq).build();
    }

    @Test
    void activeAndPinnedComeFromTheActivationRule() {
        SnapshotHistory h = new SnapshotHistory();
        h.onSnapshot(Snapshots.accepted("default", 1).build(), 0);
        h.onSnapshot(Snapshots.accepted("default", 2).build(), 1);
        h.onSnapshot(Snapshots.rejected("default", 3).build(), 2);
        assertThat(h.activeVersion("default")).hasValue(2);
        assertThat(h.rollbackTarget("default")).hasValue(1);

        assertThat(h.onControl(control(ControlAction.PIN, 1L, 1))).isTrue();
        assertThat(h.rollbackTarget("default")).as("nothing older than 1").isEmpty();
        assertThat(h.rolledBackFrom("default")).containsExactly(2L);
        ScopeState s = h.scope("default").orElseThrow();
        assertThat(s.activeVersion()).isEqualTo(1L);
        assertThat(s.pinned()).isTrue();
        assertThat(s.pinnedVersion()).isEqualTo(1L);
        assertThat(s.controls()).extracting(ScopeState.ControlEntry::actor).containsExactly("ops");

        assertThat(h.onControl(control(ControlAction.UNPIN, 1L, 1))).as("stale sequence ignored").isFalse();
        assertThat(h.scope("default").orElseThrow().pinned()).isTrue();
        h.onSnapshot(Snapshots.accepted("default", 4).setControlSequence(0).build(), 3);
        assertThat(h.activeVersion("default")).as("no fitted snapshot slips past a pin").hasValue(1);

        assertThat(h.onControl(control(ControlAction.UNPIN, 1L, 2))).isTrue();
        assertThat(h.activeVersion("default")).as("unpinned: the pinned version until the job republishes").hasValue(1);
        h.onSnapshot(Snapshots.accepted("default", 5).setControlSequence(2).build(), 4);
        assertThat(h.activeVersion("default")).hasValue(5);
        assertThat(h.controlSequence("default")).isEqualTo(2);
    }

    @Test
    void aSnapshotNamingTheRecordCarryingItsForestShowsThatForest() {
        SnapshotHistory h = new SnapshotHistory(100, 3);
        h.onSnapshot(Snapshots.accepted("default", 1).setQuantileModelVersion(1L).build(), 0);
        for (long v = 2; v <= 4; v++) {
            h.onSnapshot(Snapshots.accepted("default", v).setQuantileModel(null).setQuantileModelVersion(1L).build(), v);
        }
        assertThat(h.version("default", 4).orElseThrow().forest().trainingRows()).isEqualTo(100);
        assertThat(h.version("default", 4).orElseThrow().forestVersion()).isEqualTo(1L);
        assertThat(h.fullSnapshot("default", 4).orElseThrow().getQuantileModel())
                .as("the carrier's forest, held for the full snapshots").isNotNull();

        // a retrained forest, first carried by a rejected record; the carrier of 1 is then used by no full snapshot
        h.onSnapshot(Snapshots.rejected("default", 5).setQuantileModel(
                io.tierroute.schemas.avro.QuantileForestModel.newBuilder(Snapshots.forest()).setTrainingRows(500).build())
                .setQuantileModelVersion(5L).build(), 5);
        for (long v = 6; v <= 8; v++) {
            h.onSnapshot(Snapshots.accepted("default", v).setQuantileModel(null).setQuantileModelVersion(5L).build(), v);
        }
        assertThat(h.fullSnapshot("default", 8).orElseThrow().getQuantileModel().getTrainingRows()).isEqualTo(500);
        assertThat(h.version("default", 8).orElseThrow().forestVersion()).isEqualTo(5L);

        // a pin back to 3 makes the job name carrier 1 again: its forest is no longer held, its shape is
        h.onSnapshot(Snapshots.accepted("default", 9).setQuantileModel(null).setQuantileModelVersion(1L).build(), 9);
        VersionRecord r = h.version("default", 9).orElseThrow();
        assertThat(r.forest().trainingRows()).as("the shape from carrier 1's record").isEqualTo(100);
        assertThat(r.forestVersion()).isEqualTo(1L);
        assertThat(h.fullSnapshot("default", 9).orElseThrow().getQuantileModel()).isNull();
    }

    /** An older writer repeated its forest inline in every record; a job restored from its state names the first. */
    @Test
    void aForestAnOlderWriterRepeatedIsHeldUnderItsFirstRecord() {
        SnapshotHistory h = new SnapshotHistory(100, 3);
        for (long v = 1; v <= 5; v++) {
            h.onSnapshot(Snapshots.accepted("default", v).build(), v); // inline, no quantileModelVersion
        }
        h.onSnapshot(Snapshots.accepted("default", 6).setQuantileModel(null).setQuantileModelVersion(1L).build(), 6);
        assertThat(h.fullSnapshot("default", 6).orElseThrow().getQuantileModel())
                .as("version 1's forest, held although versions 2..5 repeated it").isNotNull();
    }

    @Test
    void versionsRejectedReasonsAndFittedValuesAreKept() {
        SnapshotHistory h = new SnapshotHistory();
        h.onSnapshot(Snapshots.rejected("pool-a", 7).build(), 0);
        VersionRecord r = h.version("pool-a", 7).orElseThrow();
        assertThat(r.rejected()).isTrue();
        assertThat(r.rejectReasons()).containsExactly("alphaP jumped ×12 against version 6");
        assertThat(r.params().get("alphaP").value()).isEqualTo(40.0);
        assertThat(r.params().get("alphaP").samples()).isEqualTo(30);
        assertThat(r.params()).containsKey("bw.CPU");
        assertThat(r.rhoPairs()).isEqualTo(6);
        assertThat(r.forest().trees()).isEqualTo(1);
        assertThat(h.activeVersion("pool-a")).isEmpty();
        assertThat(h.scopes()).containsExactly("pool-a");
    }

    @Test
    void memoryIsBoundedToTheConfiguredVersionsAndFullSnapshots() {
        SnapshotHistory h = new SnapshotHistory(5, 2);
        for (long v = 1; v <= 12; v++) {
            h.onSnapshot(Snapshots.accepted("default", v).build(), v);
        }
        assertThat(h.scope("default").orElseThrow().versions()).extracting(VersionRecord::version)
                .containsExactly(8L, 9L, 10L, 11L, 12L);
        assertThat(h.fullSnapshot("default", 12)).isPresent();
        assertThat(h.fullSnapshot("default", 11)).isPresent();
        assertThat(h.fullSnapshot("default", 10)).as("only the latest 2 are held in full").isEmpty();
        assertThat(h.latestFullSnapshot("default").orElseThrow().getVersion()).isEqualTo(12);
    }

    @Test
    void versionsNamedToKeepStayBelowTheWindowAndRollbackTargetsComeFromTheRule() {
        SnapshotHistory h = new SnapshotHistory(3, 1, (scope, v) -> scope.equals("default") && v == 2);
        for (long v = 1; v <= 9; v++) {
            h.onSnapshot(Snapshots.accepted("default", v).build(), v);
            h.onSnapshot(Snapshots.accepted("other", v).build(), v);
        }
        assertThat(h.scope("default").orElseThrow().versions()).extracting(VersionRecord::version)
                .containsExactly(2L, 7L, 8L, 9L);
        assertThat(h.scope("other").orElseThrow().versions()).extracting(VersionRecord::version)
                .containsExactly(7L, 8L, 9L);
        assertThat(h.onControl(control(ControlAction.PIN, 2L, 1))).isTrue();
        assertThat(h.rollbackTarget("default")).as("version 1 is below the window, and accepted").hasValue(1);
    }

    @Test
    void aTombstoneDeletesAVersion() {
        SnapshotHistory h = new SnapshotHistory();
        h.onSnapshot(Snapshots.accepted("default", 1).build(), 0);
        h.onSnapshot(Snapshots.accepted("default", 2).build(), 1);
        h.onTombstone("default", 2);
        assertThat(h.version("default", 2)).isEmpty();
        assertThat(h.activeVersion("default")).hasValue(1);
    }

    /**
     * An accepted version selectors cannot use (written by something other than the job: its α_p is NaN) stays the
     * rule's active version, which the job and selectors name, but the history says they serve the highest usable one
     * below it, and why; a pin of it leaves them on what they served (none known here).
     */
    @Test
    void anUnusableActiveVersionIsMarkedAndTheVersionSelectorsServeIsNamed() {
        SnapshotHistory h = new SnapshotHistory();
        h.onSnapshot(Snapshots.accepted("default", 1).build(), 0);
        h.onSnapshot(Snapshots.accepted("default", 2).build(), 1);
        h.onSnapshot(Snapshots.accepted("default", 200).setAlphaP(Snapshots.fv(Double.NaN, 10)).build(), 2);

        ScopeState s = h.scope("default").orElseThrow();
        assertThat(s.activeVersion()).as("the rule's").isEqualTo(200L);
        assertThat(s.servedVersion()).isEqualTo(2L);
        assertThat(s.servesAnother()).isTrue();
        assertThat(h.servedVersion("default")).hasValue(2);
        assertThat(h.version("default", 200).orElseThrow().unusable()).isEqualTo("alphaP must be finite, got NaN");
        assertThat(h.version("default", 2).orElseThrow().usable()).isTrue();

        h.onSnapshot(Snapshots.accepted("default", 3).build(), 3);
        assertThat(h.scope("default").orElseThrow().servedVersion()).as("good versions below it still arrive")
                .isEqualTo(3L);

        assertThat(h.onControl(control(ControlAction.PIN, 200L, 1))).isTrue();
        ScopeState pinned = h.scope("default").orElseThrow();
        assertThat(pinned.activeVersion()).isEqualTo(200L);
        assertThat(pinned.servedVersion()).as("a pin of it: selectors keep what they served").isNull();
        assertThat(pinned.servesAnother()).isTrue();

        assertThat(h.onControl(control(ControlAction.PIN, 3L, 2))).isTrue();
        assertThat(h.scope("default").orElseThrow().servesAnother()).isFalse();
    }

    /**
     * Only an ACCEPTED version is judged (a REJECTED one is never served; the gate's reasons say why), and a record
     * whose forest reference is wrong as published, which its reader files without the reference, is unusable for it:
     * selectors refuse it. A rollback skips a version selectors cannot use for the one they served meanwhile.
     */
    @Test
    void aWrongForestReferenceIsUnusableARejectedVersionIsNotJudgedAndARollbackSkipsAnUnusableTarget() {
        SnapshotHistory h = new SnapshotHistory();
        h.onSnapshot(Snapshots.rejected("default", 1).setAlphaP(Snapshots.fv(Double.NaN, 10)).build(), 0);
        assertThat(h.version("default", 1).orElseThrow().unusable()).isNull();

        h.onSnapshot(Snapshots.accepted("default", 2).build(), 1);
        h.onSnapshot(Snapshots.accepted("default", 3).setQuantileModel(null).setQuantileModelVersion(null).build(), 2,
                "quantileModelVersion 9 is not an earlier version than 3");
        assertThat(h.version("default", 3).orElseThrow().unusable())
                .isEqualTo("quantileModelVersion 9 is not an earlier version than 3");
        assertThat(h.servedVersion("default")).hasValue(2);

        h.onSnapshot(Snapshots.accepted("default", 4).build(), 3);
        assertThat(h.rollbackTarget("default")).as("the rule's: active before 4").hasValue(3);
        assertThat(h.servableRollbackTarget("default")).as("served while 3 was active").hasValue(2);
    }

    /**
     * A version naming as its forest's carrier a version not on the topic as this history read it (never published
     * with a forest, or deleted) is unusable: a selector reading it then cannot resolve the forest. Versions read
     * before the carrier's deletion stay usable, as for a selector that applied that forest and keeps serving them.
     */
    @Test
    void aVersionNamingAForestCarrierNeverReadIsUnusable() {
        SnapshotHistory h = new SnapshotHistory();
        h.onSnapshot(Snapshots.accepted("default", 1).setQuantileModel(null).build(), 0); // carries none
        h.onSnapshot(Snapshots.accepted("default", 2).setQuantileModelVersion(2L).build(), 1);
        h.onSnapshot(Snapshots.accepted("default", 3).setQuantileModel(null).setQuantileModelVersion(2L).build(), 2);
        assertThat(h.version("default", 3).orElseThrow().usable()).isTrue();

        h.onSnapshot(Snapshots.accepted("default", 4).setQuantileModel(null).setQuantileModelVersion(1L).build(), 3);
        assertThat(h.version("default", 4).orElseThrow().unusable()).isEqualTo("version 1 of scope 'default', which it "
                + "names as carrying its output-length model, carries none on tierroute.params (never published with "
                + "one, or deleted)");
        assertThat(h.servedVersion("default")).hasValue(3);

        h.onTombstone("default", 2);
        h.onSnapshot(Snapshots.accepted("default", 5).setQuantileModel(null).setQuantileModelVersion(2L).build(), 4);
        assertThat(h.version("default", 3).orElseThrow().usable()).as("read before the deletion").isTrue();
        assertThat(h.version("default", 5).orElseThrow().usable()).as("read after it").isFalse();
        assertThat(h.servedVersion("default")).hasValue(3);
    }

    /** The carriers kept are bounded like the window: a reference below the oldest kept is taken to be to one read. */
    @Test
    void theCarriersKeptAreBounded() {
        SnapshotHistory h = new SnapshotHistory(2, 1);
        for (long v = 1; v <= 3; v++) {
            h.onSnapshot(Snapshots.accepted("default", v).build(), v); // an older writer: every record carries it inline
        }
        h.onSnapshot(Snapshots.accepted("default", 4).setQuantileModel(null).setQuantileModelVersion(1L).build(), 4);
        assertThat(h.version("default", 4).orElseThrow().usable()).as("1 dropped from the kept carriers").isTrue();
    }

    /**
     * An ACCEPTED version selectors cannot use stays so below the history's window: which version they serve skips
     * it, as it did while its record was held.
     */
    @Test
    void anUnusableVersionBelowTheWindowIsStillSkipped() {
        SnapshotHistory h = new SnapshotHistory(2, 1);
        h.onSnapshot(Snapshots.accepted("default", 1).build(), 0);
        h.onSnapshot(Snapshots.accepted("default", 5).setAlphaP(Snapshots.fv(Double.NaN, 10)).build(), 1);
        h.onSnapshot(Snapshots.rejected("default", 6).build(), 2);
        h.onSnapshot(Snapshots.rejected("default", 7).build(), 3);
        assertThat(h.version("default", 5)).as("below the window").isEmpty();
        assertThat(h.activeVersion("default")).hasValue(5);
        assertThat(h.servedVersion("default")).as("5 was read unusable").hasValue(1);
        assertThat(h.scope("default").orElseThrow().servesAnother()).isTrue();
    }

    @Test
    void badLimitsAreRefused() {
        assertThatThrownBy(() -> new SnapshotHistory(0, 1)).hasMessageContaining("maxVersions");
    }
}
