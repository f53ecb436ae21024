package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;

import static io.tierroute.schemas.avro.SnapshotStatus.ACCEPTED;
import static io.tierroute.schemas.avro.SnapshotStatus.REJECTED;
import static org.assertj.core.api.Assertions.assertThat;

class ActivationRuleTest {

    private final ActivationRule rule = new ActivationRule();

    @Test
    void withoutControlTheHighestAcceptedVersionIsActive() {
        assertThat(rule.activeVersion("default")).isEmpty();
        rule.onSnapshot("default", 1, ACCEPTED, 0);
        rule.onSnapshot("default", 2, ACCEPTED, 0);
        rule.onSnapshot("default", 3, REJECTED, 0);
        assertThat(rule.activeVersion("default")).hasValue(2);
        assertThat(rule.activeVersion("other")).isEmpty();
    }

    @Test
    void aPinHoldsAgainstEveryLaterFittedSnapshot() {
        rule.onSnapshot("default", 1, ACCEPTED, 0);
        rule.onSnapshot("default", 2, ACCEPTED, 0);
        assertThat(rule.onControl(control(ControlAction.PIN, 1L, 1))).isTrue();
        rule.onSnapshot("default", 3, ACCEPTED, 1);
        rule.onSnapshot("default", 4, ACCEPTED, 1);
        assertThat(rule.activeVersion("default")).hasValue(1);
        assertThat(rule.isPinned("default")).isTrue();
    }

    @Test
    void aControlRecordTheJobWouldDeadLetterChangesNothing() {
        rule.onSnapshot("default", 1, ACCEPTED, 0);
        rule.onSnapshot("default", 2, ACCEPTED, 0);
        assertThat(rule.onControl(control(ControlAction.PIN, 1L, 1))).isTrue();
        assertThat(rule.onControl(control(ControlAction.UNPIN, -5L, 7))).isFalse(); // bad version
        assertThat(rule.onControl(control(ControlAction.UNPIN, null, 0))).isFalse(); // bad sequence
        assertThat(rule.onControl(control(ControlAction.PIN, null, 8))).isFalse(); // PIN without a version
        assertThat(rule.onControl(SnapshotControl.newBuilder().setScope("default").setAction(ControlAction.UNPIN)
                .setVersion(null).setReason("r").setActor("").setTimestampMs(0).setSequence(9).build())).isFalse();
        assertThat(rule.activeVersion("default")).hasValue(1);
        // and the refused sequences did not raise the bar for the next valid record
        assertThat(rule.onControl(control(ControlAction.UNPIN, 1L, 2))).isTrue();
        assertThat(ControlRecordCheck.problem(control(ControlAction.UNPIN, -5L, 7))).contains("version");
    }

    /**
     * A sequence at Long.MAX_VALUE locked the scope's controls for good (nothing can be above it; the CLI's next sequence
     * overflowed), and a version there made the job's next version overflow: both are bounded at 2^62, refused like
     * every other invalid record, and the bar for the next valid record stays where it was.
     */
    @Test
    void aSequenceOrVersionPastTwoToTheSixtySecondIsRefused() {
        rule.onSnapshot("default", 1, ACCEPTED, 0);
        assertThat(ControlRecordCheck.problem(control(ControlAction.PIN, 1L, Long.MAX_VALUE)))
                .contains("sequence must be <= 2^62");
        assertThat(ControlRecordCheck.problem(control(ControlAction.UNPIN, null, ControlRecordCheck.MAX_SEQUENCE + 1)))
                .contains("sequence");
        assertThat(ControlRecordCheck.problem(control(ControlAction.PIN, Long.MAX_VALUE, 1)))
                .contains("version must be <= 2^62");
        assertThat(ControlRecordCheck.problem(control(ControlAction.UNPIN, ControlRecordCheck.MAX_VERSION + 1, 1)))
                .contains("version");
        assertThat(ControlRecordCheck.problem(control(ControlAction.PIN, ControlRecordCheck.MAX_VERSION,
                ControlRecordCheck.MAX_SEQUENCE))).as("the bounds themselves are valid").isNull();

        assertThat(rule.onControl(control(ControlAction.PIN, 1L, Long.MAX_VALUE))).isFalse();
        assertThat(rule.onControl(control(ControlAction.PIN, Long.MAX_VALUE, 2))).isFalse();
        assertThat(rule.isPinned("default")).isFalse();
        assertThat(rule.onControl(control(ControlAction.PIN, 1L, 3))).as("the scope's controls are not locked").isTrue();
        assertThat(rule.activeVersion("default")).hasValue(1);
    }

    /** A snapshot no job would publish (past 2^62: the job's start-up read skips it) never outranks the job's. */
    @Test
    void anAcceptedSnapshotPastTwoToTheSixtySecondIsNeverActive() {
        rule.onSnapshot("default", 3, ACCEPTED, 0);
        rule.onSnapshot("default", Long.MAX_VALUE, ACCEPTED, 0);
        rule.onSnapshot("default", ControlRecordCheck.MAX_VERSION + 1, ACCEPTED, 0);
        assertThat(rule.activeVersion("default")).hasValue(3);
        rule.onSnapshot("default", 4, ACCEPTED, 0);
        assertThat(rule.activeVersion("default")).as("the job's next version takes over").hasValue(4);
    }

    @Test
    void pinningAnUnknownOrRejectedVersionActivatesNothing() {
        rule.onSnapshot("default", 1, ACCEPTED, 0);
        rule.onSnapshot("default", 2, REJECTED, 0);
        rule.onControl(control(ControlAction.PIN, 2L, 1));
        assertThat(rule.activeVersion("default")).isEmpty();
        rule.onControl(control(ControlAction.PIN, 7L, 2));
        assertThat(rule.activeVersion("default")).isEmpty();
        rule.onSnapshot("default", 7, ACCEPTED, 0);
        assertThat(rule.activeVersion("default")).hasValue(7);
    }

    @Test
    void unpinKeepsThePinnedVersionUntilTheJobPublishesAfterTheUnpin() {
        rule.onSnapshot("default", 9, ACCEPTED, 0);
        rule.onSnapshot("default", 10, ACCEPTED, 0); // the bad one
        rule.onControl(control(ControlAction.PIN, 9L, 1)); // rollback
        rule.onSnapshot("default", 11, ACCEPTED, 1); // fitted while pinned
        rule.onControl(control(ControlAction.UNPIN, 9L, 2));
        assertThat(rule.activeVersion("default")).hasValue(9);
        rule.onSnapshot("default", 12, REJECTED, 2);
        assertThat(rule.activeVersion("default")).hasValue(9);
        rule.onSnapshot("default", 13, ACCEPTED, 2);
        assertThat(rule.activeVersion("default")).hasValue(13);
    }

    @Test
    void staleControlSequencesAreIgnored() {
        rule.onSnapshot("default", 1, ACCEPTED, 0);
        rule.onSnapshot("default", 2, ACCEPTED, 0);
        assertThat(rule.onControl(control(ControlAction.PIN, 1L, 5))).isTrue();
        assertThat(rule.onControl(control(ControlAction.UNPIN, 1L, 5))).isFalse();
        assertThat(rule.onControl(control(ControlAction.UNPIN, 1L, 4))).isFalse();
        assertThat(rule.activeVersion("default")).hasValue(1);
        assertThat(rule.controlSequence("default")).isEqualTo(5);
    }

    /**
     * Ends on an UNPIN of 5 that no snapshot has seen yet (version 6 was published under sequence 3): 5 stays active.
     * That depends on the stale-sequence check (an earlier record applied last would win: 1, or 6 after UNPIN 1) and on
     * the {@code controlSequence >= s} filter (without it the highest accepted, 6, would win); control records are
     * shuffled too, as a reader of a re-written topic could see them.
     */
    @Test
    void theOutcomeDoesNotDependOnHowTheTwoTopicsInterleave() {
        List<SnapshotControl> controls = new ArrayList<>(List.of(
                control("s", ControlAction.PIN, 1L, 1),
                control("s", ControlAction.UNPIN, 1L, 2),
                control("s", ControlAction.PIN, 5L, 3),
                control("s", ControlAction.UNPIN, 5L, 4)));
        Random random = new Random(7);
        for (int trial = 0; trial < 200; trial++) {
            if (trial % 2 == 1) {
                Collections.shuffle(controls, random); // every other trial: the control records out of order as well
            }
            ActivationRule fresh = new ActivationRule();
            List<Runnable> order = new ArrayList<>();
            // Each topic is read in its own order; only the interleaving varies.
            List<Boolean> picks = new ArrayList<>();
            for (int i = 0; i < 6; i++) picks.add(true);
            for (int i = 0; i < controls.size(); i++) picks.add(false);
            Collections.shuffle(picks, random);
            int s = 0;
            int c = 0;
            for (boolean snapshot : picks) {
                if (snapshot) {
                    int idx = s++;
                    order.add(() -> replay(fresh, idx));
                } else {
                    SnapshotControl next = controls.get(c++);
                    order.add(() -> fresh.onControl(next));
                }
            }
            order.forEach(Runnable::run);
            assertThat(fresh.activeVersion("s")).as("trial %d", trial).isEqualTo(OptionalLong.of(5));
        }
    }

    private static void replay(ActivationRule target, int index) {
        long[][] rows = {{1, 0, 0}, {2, 0, 0}, {3, 0, 1}, {4, 1, 2}, {5, 0, 2}, {6, 0, 3}};
        long[] row = rows[index];
        target.onSnapshot("s", row[0], row[1] == 0 ? ACCEPTED : SnapshotStatus.REJECTED, row[2]);
    }

    private static SnapshotControl control(ControlAction action, Long version, long sequence) {
        return control("default", action, version, sequence);
    }

    private static SnapshotControl control(String scope, ControlAction action, Long version, long sequence) {
        return SnapshotControl.newBuilder().setScope(scope).setAction(action).setVersion(version)
                .setReason("test").setActor("tester").setTimestampMs(0).setSequence(sequence).build();
    }
}
