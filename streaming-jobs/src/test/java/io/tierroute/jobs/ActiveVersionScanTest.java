package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.ActiveVersionScan.Where;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import org.junit.jupiter.api.Test;

/** The record of each scope's active version, over params and control records in offset order. */
class ActiveVersionScanTest {
    private final ActiveVersionScan scan = new ActiveVersionScan();
    private long offset;

    /** {@code version} of scope "s" at the next offset; returns where. */
    private Where snapshot(long version, SnapshotStatus status, long controlSequence, boolean carriesModel) {
        ParameterSnapshot s = EarlierSnapshots.accepted("s", version, null, 2, 0.01);
        s.setStatus(status);
        s.setControlSequence(controlSequence);
        if (carriesModel) {
            EarlierSnapshots.carrying(s, EarlierSnapshots.forest(5_000));
        }
        Where w = new Where(0, offset++);
        scan.snapshot(s, w);
        return w;
    }

    private Where accepted(long version, long controlSequence) {
        return snapshot(version, SnapshotStatus.ACCEPTED, controlSequence, false);
    }

    private void control(ControlAction action, long version, long sequence) {
        scan.control(SnapshotControl.newBuilder().setScope("s").setAction(action).setVersion(version).setReason("t")
            .setActor("test").setTimestampMs(0).setSequence(sequence).build());
    }

    private Where active() {
        return scan.activeRecords().get("s");
    }

    @Test
    void theNewestAcceptedVersionNotDeletedIsActive() {
        accepted(1, 0);
        Where two = accepted(2, 0);
        snapshot(3, SnapshotStatus.REJECTED, 0, false);
        assertThat(active()).as("a rejected version is never active").isEqualTo(two);

        Where four = accepted(4, 0);
        assertThat(active()).isEqualTo(four);
        scan.tombstone("s", 4);
        assertThat(active()).as("version 4 deleted").isEqualTo(two);
        Where republished = accepted(4, 0);
        assertThat(active()).as("published again, at its new offset").isEqualTo(republished);
        assertThat(scan.activeRecords()).as("only scope s").containsOnlyKeys("s");
    }

    @Test
    void theLastControlRecordDecidesAsTheActivationRuleSays() {
        Where one = accepted(1, 0);
        accepted(2, 0);
        control(ControlAction.PIN, 1, 1);
        control(ControlAction.PIN, 2, 1); // not above the applied sequence: ignored
        assertThat(active()).as("pinned to 1").isEqualTo(one);

        control(ControlAction.UNPIN, 1, 2);
        accepted(3, 1); // published before the job saw the unpin
        assertThat(active()).as("the unpinned version until a snapshot stamped with the unpin").isEqualTo(one);
        Where four = accepted(4, 2);
        assertThat(active()).isEqualTo(four);

        control(ControlAction.PIN, 5, 3);
        assertThat(scan.activeRecords()).as("a pin of a version never accepted: none active").isEmpty();
    }

    @Test
    void carriersAreFoundInAnyStatusUntilDeletedOrReplaced() {
        Where rejectedCarrier = snapshot(1, SnapshotStatus.REJECTED, 0, true);
        Where acceptedCarrier = snapshot(2, SnapshotStatus.ACCEPTED, 0, true);
        assertThat(scan.carrier("s", 1)).isEqualTo(rejectedCarrier);
        assertThat(scan.carrier("s", 2)).isEqualTo(acceptedCarrier);
        assertThat(scan.carrier("other", 2)).isNull();

        scan.tombstone("s", 1);
        assertThat(scan.carrier("s", 1)).isNull();
        accepted(2, 0); // the version's record again, without its model
        assertThat(scan.carrier("s", 2)).isNull();
    }
}
