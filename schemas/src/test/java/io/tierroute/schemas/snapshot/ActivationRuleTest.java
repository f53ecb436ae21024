package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;

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

    /**
     * A reader that cannot use some versions asks for the rule's choice among the rest: the next one down without a
     * control record, the next one stamped after an UNPIN; a pin of one it cannot use makes nothing active.
     */
    @Test
    void versionsAReaderCannotUseAreSkippedButNotAPinnedOne() {
        rule.onSnapshot("default", 1, ACCEPTED, 0);
        rule.onSnapshot("default", 2, ACCEPTED, 0);
        rule.onSnapshot("default", 200, ACCEPTED, 0);
        assertThat(rule.activeVersion("default")).hasValue(200);
        assertThat(rule.activeVersion("default", v -> v != 200)).hasValue(2);
        assertThat(rule.activeVersion("default", v -> v == 1)).hasValue(1);
        assertThat(rule.activeVersion("default", v -> false)).isEmpty();

        assertThat(rule.onControl(control(ControlAction.PIN, 200L, 1))).isTrue();
        assertThat(rule.activeVersion("default", v -> v != 200)).as("an operator's pin is not overridden").isEmpty();
        assertThat(rule.onControl(control(ControlAction.UNPIN, 200L, 2))).isTrue();
        rule.onSnapshot("default", 3, ACCEPTED, 2);
        rule.onSnapshot("default", 4, ACCEPTED, 2);
        assertThat(rule.activeVersion("default")).hasValue(4);
        assertThat(rule.activeVersion("default", v -> v != 4)).as("the next stamped after the unpin").hasValue(3);
        assertThat(rule.activeVersion("default", v -> v != 3 && v != 4)).as("else the version it names").hasValue(200);
        assertThat(rule.activeVersion("default", v -> v < 3)).as("else the newest below that, never one above")
                .hasValue(2);
    }

    /** A rollback (PIN 3 while 5 was active), then UNPIN 3, on a reader that cannot use 3: never back to 5. */
    @Test
    void aVersionRolledBackFromIsNotServedWhereTheUnpinnedOneCannotBe() {
        for (long v = 1; v <= 5; v++) {
            rule.onSnapshot("default", v, ACCEPTED, 0);
        }
        assertThat(rule.onControl(control(ControlAction.PIN, 3L, 1))).isTrue();
        assertThat(rule.onControl(control(ControlAction.UNPIN, 3L, 2))).isTrue();
        assertThat(rule.readThrough(rule.readMark())).as("nothing waits").isFalse();
        assertThat(rule.activeVersion("default")).hasValue(3);
        assertThat(rule.activeVersion("default", v -> v != 3)).hasValue(2);
        assertThat(rule.activeVersion("default", v -> v > 3)).isEmpty();
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
     * A writer numbers above both the last control record and every snapshot's stamp: after the control topic lost the
     * records the job applied (recreated), the stamps still tell how far the job got, and the job ignores a record not
     * above that.
     */
    @Test
    void theNextSequenceIsAboveTheLastControlRecordAndEverySnapshotsStamp() {
        assertThat(rule.nextSequence("default")).as("nothing read").isEqualTo(1);
        rule.onSnapshot("default", 1, ACCEPTED, 0);
        assertThat(rule.nextSequence("default")).isEqualTo(1);
        rule.onControl(control(ControlAction.PIN, 1L, 2));
        assertThat(rule.nextSequence("default")).as("the last control record").isEqualTo(3);

        rule.onSnapshot("default", 2, REJECTED, 6);
        assertThat(rule.nextSequence("default")).as("a rejected snapshot's stamp counts too").isEqualTo(7);
        rule.onSnapshot("default", 3, ACCEPTED, 4);
        rule.onSnapshot("default", 2, REJECTED, 0); // a tombstone of version 2
        assertThat(rule.nextSequence("default")).as("a rejected record's stamp stays").isEqualTo(7);
        rule.onSnapshot("default", 4, ACCEPTED, ControlRecordCheck.MAX_SEQUENCE + 1);
        assertThat(rule.nextSequence("default")).as("a stamp no job writes is not followed").isEqualTo(7);
        rule.onSnapshot("default", 5, ACCEPTED, ControlRecordCheck.MAX_SEQUENCE);
        assertThat(rule.nextSequence("default")).as("no sequence left to write").isEqualTo(ControlRecordCheck.MAX_SEQUENCE + 1);
        rule.onSnapshot("default", 5, REJECTED, 0); // a tombstone of version 5
        assertThat(rule.nextSequence("default")).as("an accepted version deleted takes its stamp back").isEqualTo(7);
        rule.onControl(control(ControlAction.UNPIN, 1L, 9));
        assertThat(rule.nextSequence("default")).isEqualTo(10);
        assertThat(rule.nextSequence("other")).isEqualTo(1);
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

    /**
     * Defect 1 (audit): a snapshot stamped with a control sequence the reader has not seen was made active before the
     * control record that the job had applied when it published it. Versions 1–12 accepted (11 and 12 published after
     * the unpin, stamped 2); then v13 is published under PIN 7 (sequence 3), and this reader reads v13 first.
     */
    @Test
    void aSnapshotStampedWithAControlSequenceNotSeenYetWaitsForThatControlRecord() {
        for (long v = 1; v <= 10; v++) {
            rule.onSnapshot("default", v, ACCEPTED, v <= 4 ? 0 : 1);
        }
        rule.onSnapshot("default", 11, ACCEPTED, 2);
        rule.onSnapshot("default", 12, ACCEPTED, 2);
        rule.onControl(control(ControlAction.PIN, 5L, 1));
        rule.onControl(control(ControlAction.UNPIN, 5L, 2));
        assertThat(rule.activeVersion("default")).hasValue(12);

        rule.onSnapshot("default", 13, ACCEPTED, 3); // fitted while PIN 7 (sequence 3) held
        assertThat(rule.activeVersion("default")).as("v13 waits for control sequence 3").hasValue(12);
        rule.onControl(control(ControlAction.PIN, 7L, 3));
        assertThat(rule.activeVersion("default")).hasValue(7);
    }

    /** The same before the scope's first control record: v11, fitted under the first PIN, is not live before it. */
    @Test
    void aSnapshotStampedBeforeTheFirstControlRecordIsReadWaitsForIt() {
        for (long v = 1; v <= 10; v++) {
            rule.onSnapshot("default", v, ACCEPTED, 0);
        }
        rule.onSnapshot("default", 11, ACCEPTED, 1);
        assertThat(rule.activeVersion("default")).hasValue(10);
        rule.onControl(control(ControlAction.PIN, 4L, 1));
        assertThat(rule.activeVersion("default")).hasValue(4);
    }

    /**
     * Defect 2 (audit): v10 bad, rolled back to 9 (PIN seq 1), unpinned (seq 2) leaving 9 active; the job publishes
     * v11 (seq 2), active. A rollback from 11 must go back to 9, which was active before it, never to 10, the version
     * rolled back from as bad.
     */
    @Test
    void aRollbackNeverTargetsAVersionRolledBackFrom() {
        for (long v = 1; v <= 10; v++) {
            rule.onSnapshot("default", v, ACCEPTED, 0);
        }
        rule.onControl(control(ControlAction.PIN, 9L, 1)); // rollback from 10
        rule.onControl(control(ControlAction.UNPIN, 9L, 2));
        rule.onSnapshot("default", 11, ACCEPTED, 2);
        assertThat(rule.activeVersion("default")).hasValue(11);
        assertThat(rule.rollbackTarget("default")).hasValue(9);
        assertThat(rule.rolledBackFrom("default")).containsExactly(10L);
    }

    /** Rolling back again from the version a rollback pinned goes further back, never forward to the bad one. */
    @Test
    void aSecondRollbackGoesFurtherBack() {
        for (long v = 1; v <= 10; v++) {
            rule.onSnapshot("default", v, ACCEPTED, 0);
        }
        assertThat(rule.rollbackTarget("default")).hasValue(9);
        rule.onControl(control(ControlAction.PIN, 9L, 1));
        assertThat(rule.rollbackTarget("default")).hasValue(8);
        rule.onControl(control(ControlAction.PIN, 8L, 2));
        assertThat(rule.rollbackTarget("default")).hasValue(7);
        assertThat(rule.rolledBackFrom("default")).containsExactly(9L, 10L);
    }

    /**
     * The target is what was active before the current version, not the newest accepted below it: 4–6 were active
     * before the rollback from 6 to 3, and 8 was fitted under a pin and never active.
     */
    @Test
    void theRollbackTargetIsTheVersionActiveBeforeTheCurrentOne() {
        for (long v = 1; v <= 6; v++) {
            rule.onSnapshot("default", v, ACCEPTED, 0);
        }
        rule.onControl(control(ControlAction.PIN, 3L, 1)); // rollback from 6 to 3 (4 and 5 are suspect too)
        rule.onControl(control(ControlAction.UNPIN, 3L, 2));
        rule.onSnapshot("default", 7, ACCEPTED, 2);
        assertThat(rule.rollbackTarget("default")).hasValue(3);
        rule.onControl(control(ControlAction.PIN, 7L, 3)); // held for an experiment
        rule.onSnapshot("default", 8, ACCEPTED, 3); // fitted while pinned: never active
        rule.onControl(control(ControlAction.UNPIN, 7L, 4));
        rule.onSnapshot("default", 9, REJECTED, 4);
        rule.onSnapshot("default", 10, ACCEPTED, 4);
        assertThat(rule.activeVersion("default")).hasValue(10);
        assertThat(rule.rollbackTarget("default")).as("7 was active before 10; 8 never was").hasValue(7);
    }

    /** An operator who pins a version rolled back from again has changed their mind: it can be a target again. */
    @Test
    void aVersionPinnedAgainAfterARollbackCanBeATargetAgain() {
        for (long v = 1; v <= 10; v++) {
            rule.onSnapshot("default", v, ACCEPTED, 0);
        }
        rule.onControl(control(ControlAction.PIN, 9L, 1)); // from 10
        rule.onControl(control(ControlAction.PIN, 10L, 2)); // 10 was fine after all
        rule.onControl(control(ControlAction.UNPIN, 10L, 3));
        rule.onSnapshot("default", 11, ACCEPTED, 3);
        assertThat(rule.rolledBackFrom("default")).isEmpty();
        assertThat(rule.rollbackTarget("default")).hasValue(10);
    }

    /**
     * A topic written before 2026-12-02 keeps only each scope's last control record: what was active under the lost
     * ones is unknown, so the target is the newest accepted version below the active one that no known rollback moved
     * away from.
     */
    @Test
    void withoutTheEarlierControlRecordsTheTargetIsTheNewestAcceptedBelow() {
        for (long v = 1; v <= 5; v++) {
            rule.onSnapshot("default", v, ACCEPTED, 1); // all fitted under a record that is gone
        }
        rule.onSnapshot("default", 6, ACCEPTED, 2);
        rule.onSnapshot("default", 7, ACCEPTED, 3);
        rule.onControl(control(ControlAction.UNPIN, 4L, 3)); // 1, 2 gone
        assertThat(rule.activeVersion("default")).hasValue(7);
        assertThat(rule.rollbackTarget("default")).as("4, named by the unpin, was active before 7").hasValue(4);
        rule.onControl(control(ControlAction.PIN, 4L, 4));
        assertThat(rule.rollbackTarget("default")).as("nothing known before 4 within the records").hasValue(3);
        assertThat(rule.rolledBackFrom("default")).containsExactly(7L);
    }

    /**
     * Review finding: control records 1–3 deleted, v6–9 fitted under record 2; the UNPIN of sequence 4 names 8. What was
     * active between 5 and 8 is unknown, so the target is the newest accepted version below 8 (the documented answer
     * where the records are gone), not 5 from before the gap.
     */
    @Test
    void aGapInTheControlRecordsBetweenTheActiveVersionAndTheOneBeforeFallsBackToTheNewestAcceptedBelow() {
        for (long v = 1; v <= 5; v++) {
            rule.onSnapshot("default", v, ACCEPTED, 0);
        }
        for (long v = 6; v <= 9; v++) {
            rule.onSnapshot("default", v, ACCEPTED, 2); // records 1–3 are gone
        }
        rule.onControl(control(ControlAction.UNPIN, 8L, 4));
        assertThat(rule.activeVersion("default")).hasValue(8);
        assertThat(rule.rollbackTarget("default")).as("the newest accepted below 8, not 5 from before the gap")
                .hasValue(7);
        assertThat(rule.rolledBackFrom("default")).isEmpty();
    }

    /**
     * Review finding: 2,000 versions fitted under control records that are all deleted, then a PIN of 1990: a rollback
     * must not jump back 1,987 versions to 3, the last version known to have been active before the gap.
     */
    @Test
    void aRollbackNeverJumpsBackAcrossAGapOfDeletedControlRecords() {
        for (long v = 1; v <= 3; v++) {
            rule.onSnapshot("default", v, ACCEPTED, 0);
        }
        for (long v = 4; v <= 2000; v++) {
            rule.onSnapshot("default", v, ACCEPTED, 1 + (v - 4) * 5 / 1997); // sequences 1–5, all deleted
        }
        rule.onControl(control(ControlAction.PIN, 1990L, 6));
        assertThat(rule.activeVersion("default")).hasValue(1990);
        assertThat(rule.rollbackTarget("default")).hasValue(1989);
    }

    /**
     * A version named again after a gap is known to have been active right before what follows it: the walk back from
     * the active version finds it before it reaches the gap.
     */
    @Test
    void aVersionNamedAgainAfterAGapIsStillTheTarget() {
        for (long v = 1; v <= 5; v++) {
            rule.onSnapshot("default", v, ACCEPTED, 0);
        }
        rule.onSnapshot("default", 6, ACCEPTED, 1); // record 1 is gone
        rule.onControl(control(ControlAction.UNPIN, 4L, 2));
        rule.onSnapshot("default", 7, ACCEPTED, 2);
        assertThat(rule.activeVersion("default")).hasValue(7);
        assertThat(rule.rollbackTarget("default")).as("4, named by the unpin, was active before 7").hasValue(4);
    }

    /**
     * A control record that is gone for good (the control topic recreated, its records deleted) while snapshots still
     * carry its sequence: held back until the reader has read both topics through, then released — the answer every
     * reader gave before, and not a scope held back for ever.
     */
    @Test
    void aSnapshotWhoseControlRecordIsGoneIsReleasedOnceTheTopicsAreReadThrough() {
        rule.onSnapshot("default", 1, ACCEPTED, 0);
        rule.onSnapshot("default", 2, ACCEPTED, 3);
        assertThat(rule.activeVersion("default")).hasValue(1);
        assertThat(rule.waitsForReadThrough()).isTrue();
        long mark = rule.readMark();
        rule.onSnapshot("default", 3, ACCEPTED, 4); // read after the mark: the round does not vouch for it
        assertThat(rule.readThrough(mark)).isTrue();
        assertThat(rule.activeVersion("default")).hasValue(2);
        assertThat(rule.waitsForReadThrough()).isTrue();
        assertThat(rule.readThrough(rule.readMark())).isTrue();
        assertThat(rule.activeVersion("default")).hasValue(3);
        assertThat(rule.waitsForReadThrough()).isFalse();
        assertThat(rule.readThrough(rule.readMark())).as("nothing left to release").isFalse();
        rule.onControl(control(ControlAction.PIN, 1L, 1)); // a control record written on the new topic
        assertThat(rule.activeVersion("default")).hasValue(1);
    }

    /** The control record arriving during a round settles it as read: nothing is released past a pin. */
    @Test
    void aLateControlRecordReadDuringTheRoundIsApplied() {
        rule.onSnapshot("default", 12, ACCEPTED, 0);
        rule.onSnapshot("default", 13, ACCEPTED, 1);
        long mark = rule.readMark();
        rule.onControl(control(ControlAction.PIN, 12L, 1)); // within the end offsets fetched after the mark
        assertThat(rule.readThrough(mark)).isFalse();
        assertThat(rule.activeVersion("default")).hasValue(12);
    }

    /**
     * An UNPIN naming a version this reader has not read yet: the newest accepted version read so far may never have
     * been active (3 was fitted while 1 was pinned), so nothing new is active until the named version is read, or the
     * topics are read through without it (deleted: the newest accepted version, as before).
     */
    @Test
    void anUnpinWhoseVersionIsNotReadYetActivatesNothingNew() {
        rule.onControl(control(ControlAction.PIN, 1L, 1));
        rule.onControl(control(ControlAction.UNPIN, 1L, 2));
        rule.onControl(control(ControlAction.PIN, 5L, 3));
        rule.onControl(control(ControlAction.UNPIN, 5L, 4));
        rule.onSnapshot("default", 1, ACCEPTED, 0);
        rule.onSnapshot("default", 2, ACCEPTED, 0);
        rule.onSnapshot("default", 3, ACCEPTED, 1);
        rule.onSnapshot("default", 4, ACCEPTED, 2);
        assertThat(rule.activeVersion("default")).isEmpty();
        assertThat(rule.waitsForReadThrough()).isTrue();
        rule.onSnapshot("default", 5, ACCEPTED, 2);
        assertThat(rule.activeVersion("default")).hasValue(5);
        assertThat(rule.waitsForReadThrough()).isFalse();

        ActivationRule gone = new ActivationRule();
        gone.onSnapshot("default", 3, ACCEPTED, 1);
        gone.onControl(control(ControlAction.UNPIN, 5L, 4));
        assertThat(gone.activeVersion("default")).isEmpty();
        assertThat(gone.readThrough(gone.readMark())).isTrue();
        assertThat(gone.activeVersion("default")).hasValue(3);
    }

    /**
     * The claim of the class for the path, not only the end: random histories in the job's order (snapshots stamped
     * with the control sequence the job had applied, pins of published versions, unpins naming the pinned version),
     * read in random interleavings of the two topics (each in its own order; also with only the last control record,
     * as a topic compacted by scope keeps it): after every record the active version is one the job's own order had
     * active at some point, or none; at the end it is the job's. And with the control records gone, every order ends on
     * the same version once read through, and nothing waits any more.
     */
    @Test
    void everyStateOnTheWayIsOneTheJobHadActive() {
        Random random = new Random(11);
        for (int history = 0; history < 300; history++) {
            List<long[]> snapshots = new ArrayList<>(); // version, accepted (1/0), stamp
            List<SnapshotControl> controls = new ArrayList<>();
            ActivationRule job = new ActivationRule();
            Set<Long> everActive = new HashSet<>();
            List<Long> accepted = new ArrayList<>();
            long sequence = 0;
            Long pinned = null;
            for (int step = 0; step < 40; step++) {
                if (accepted.isEmpty() || random.nextInt(3) > 0) {
                    long v = snapshots.size() + 1;
                    boolean ok = random.nextInt(5) > 0;
                    snapshots.add(new long[] {v, ok ? 1 : 0, sequence});
                    job.onSnapshot("s", v, ok ? ACCEPTED : REJECTED, sequence);
                    if (ok) {
                        accepted.add(v);
                    }
                } else {
                    sequence++;
                    SnapshotControl c = pinned != null && random.nextBoolean()
                            ? control("s", ControlAction.UNPIN, pinned, sequence)
                            : control("s", ControlAction.PIN, accepted.get(random.nextInt(accepted.size())), sequence);
                    pinned = c.getAction() == ControlAction.PIN ? c.getVersion() : null;
                    controls.add(c);
                    job.onControl(c);
                }
                job.activeVersion("s").ifPresent(everActive::add);
            }
            OptionalLong last = job.activeVersion("s");
            List<SnapshotControl> lastOnly = controls.isEmpty() ? List.of() : List.of(controls.get(controls.size() - 1));
            for (int order = 0; order < 20; order++) {
                ActivationRule reader = new ActivationRule();
                List<SnapshotControl> read = order % 4 == 3 ? lastOnly : controls;
                int si = 0;
                int ci = 0;
                while (si < snapshots.size() || ci < read.size()) {
                    if (ci == read.size() || (si < snapshots.size() && random.nextBoolean())) {
                        long[] r = snapshots.get(si++);
                        reader.onSnapshot("s", r[0], r[1] == 1 ? ACCEPTED : REJECTED, r[2]);
                    } else {
                        reader.onControl(read.get(ci++));
                    }
                    OptionalLong now = reader.activeVersion("s");
                    if (now.isPresent()) {
                        assertThat(everActive).as("history %d, order %d", history, order).contains(now.getAsLong());
                    }
                }
                assertThat(reader.activeVersion("s")).as("history %d, order %d", history, order).isEqualTo(last);
                assertThat(reader.waitsForReadThrough()).isFalse();
            }
            OptionalLong whenGone = OptionalLong.empty();
            for (int order = 0; order < 5; order++) {
                ActivationRule reader = new ActivationRule(); // the control topic is recreated empty
                List<long[]> shuffled = new ArrayList<>(snapshots);
                if (order > 0) {
                    Collections.shuffle(shuffled, random); // a params topic copied back in any order
                }
                shuffled.forEach(r -> reader.onSnapshot("s", r[0], r[1] == 1 ? ACCEPTED : REJECTED, r[2]));
                reader.readThrough(reader.readMark());
                assertThat(reader.waitsForReadThrough()).isFalse();
                if (order == 0) {
                    whenGone = reader.activeVersion("s");
                    assertThat(whenGone).as("the newest accepted version").isEqualTo(accepted.isEmpty()
                            ? OptionalLong.empty() : OptionalLong.of(accepted.get(accepted.size() - 1)));
                }
                assertThat(reader.activeVersion("s")).isEqualTo(whenGone);
            }
        }
    }

    /**
     * The rollback target, from every reader that has read everything, whatever the order: the same, older than the
     * active version, accepted, and never a version rolled back from (random histories of rollbacks, pins, unpins).
     */
    @Test
    void theRollbackTargetDoesNotDependOnTheReadOrderAndNeverGoesToAVersionRolledBackFrom() {
        Random random = new Random(5);
        for (int history = 0; history < 300; history++) {
            List<long[]> snapshots = new ArrayList<>();
            List<SnapshotControl> controls = new ArrayList<>();
            ActivationRule job = new ActivationRule();
            Set<Long> rolledBackFrom = new HashSet<>();
            long sequence = 0;
            for (int step = 0; step < 40; step++) {
                OptionalLong active = job.activeVersion("s");
                int what = random.nextInt(6);
                if (what == 0 && active.isPresent() && job.rollbackTarget("s").isPresent()) {
                    long target = job.rollbackTarget("s").getAsLong();
                    assertThat(target).isLessThan(active.getAsLong());
                    assertThat(rolledBackFrom).as("history %d", history).doesNotContain(target);
                    rolledBackFrom.add(active.getAsLong());
                    rolledBackFrom.remove(target);
                    SnapshotControl c = control("s", ControlAction.PIN, target, ++sequence);
                    controls.add(c);
                    job.onControl(c);
                } else if (what == 1 && job.isPinned("s")) {
                    SnapshotControl c = control("s", ControlAction.UNPIN, job.control("s").get().getVersion(),
                            ++sequence);
                    controls.add(c);
                    job.onControl(c);
                } else {
                    long v = snapshots.size() + 1;
                    boolean ok = random.nextInt(5) > 0;
                    snapshots.add(new long[] {v, ok ? 1 : 0, sequence});
                    job.onSnapshot("s", v, ok ? ACCEPTED : REJECTED, sequence);
                }
            }
            assertThat(job.rolledBackFrom("s")).as("history %d", history).containsExactlyInAnyOrderElementsOf(
                    rolledBackFrom);
            OptionalLong target = job.rollbackTarget("s");
            for (int order = 0; order < 10; order++) {
                ActivationRule reader = new ActivationRule();
                int si = 0;
                int ci = 0;
                while (si < snapshots.size() || ci < controls.size()) {
                    if (ci == controls.size() || (si < snapshots.size() && random.nextBoolean())) {
                        long[] r = snapshots.get(si++);
                        reader.onSnapshot("s", r[0], r[1] == 1 ? ACCEPTED : REJECTED, r[2]);
                    } else {
                        reader.onControl(controls.get(ci++));
                    }
                }
                assertThat(reader.rollbackTarget("s")).as("history %d, order %d", history, order).isEqualTo(target);
            }
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
