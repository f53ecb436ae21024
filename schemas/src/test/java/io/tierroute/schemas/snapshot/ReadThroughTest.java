package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.tierroute.schemas.avro.SnapshotStatus.ACCEPTED;
import static org.assertj.core.api.Assertions.assertThat;

/** Rounds of reading through with a fake consumer: its end offsets and positions per partition ("params", "control"). */
class ReadThroughTest {

    private final ActivationRule rule = new ActivationRule();
    private final ReadThrough.Subject subject = ReadThrough.of(rule);
    private final AtomicLong now = new AtomicLong();
    private final ReadThrough<String> rounds = new ReadThrough<>(now::get);
    private final Map<String, Long> ends = new HashMap<>(Map.of("params", 0L, "control", 0L));
    private final Map<String, Long> positions = new HashMap<>(Map.of("params", 0L, "control", 0L));
    private final AtomicInteger endFetches = new AtomicInteger();

    private boolean afterPoll() {
        return rounds.afterPoll(subject, () -> {
            endFetches.incrementAndGet();
            return Map.copyOf(ends);
        }, positions::get);
    }

    private void publishSnapshot(long version, long stamp) {
        ends.merge("params", 1L, Long::sum);
        rule.onSnapshot("default", version, ACCEPTED, stamp);
        positions.merge("params", 1L, Long::sum);
    }

    /**
     * v13 (stamped 3) was read while the PIN of sequence 3 sits in a stalled control fetch: the round's end offsets,
     * fetched after v13 was read, include the PIN, so the round cannot end before the PIN is read; nothing is released.
     */
    @Test
    void aControlRecordThatIsOnlyLateIsReadBeforeTheRoundEnds() {
        publishSnapshot(12, 2);
        rule.onControl(control(ControlAction.UNPIN, 5L, 2));
        positions.put("control", 2L);
        ends.put("control", 3L); // the PIN (sequence 3) is committed, not fetched yet
        publishSnapshot(13, 3);
        assertThat(afterPoll()).isFalse();
        assertThat(endFetches).hasValue(1);
        assertThat(rule.activeVersion("default")).hasValue(12);
        for (int i = 0; i < 5; i++) {
            assertThat(afterPoll()).as("the control fetch stalls").isFalse();
        }
        assertThat(endFetches).as("one round, not one fetch per poll").hasValue(1);
        assertThat(rule.activeVersion("default")).hasValue(12);

        rule.onSnapshot("default", 7, ACCEPTED, 0); // (7 was read long ago; here only so that the pin names a version)
        rule.onControl(control(ControlAction.PIN, 7L, 3));
        positions.put("control", 3L);
        assertThat(afterPoll()).as("the round ends with nothing to release").isFalse();
        assertThat(rule.activeVersion("default")).hasValue(7);
        assertThat(rounds.rounds()).isEqualTo(1);
    }

    /** The control record is gone: the round ends at once (nothing new on the topics) and releases the snapshot. */
    @Test
    void aControlRecordThatIsGoneNoLongerHoldsTheScopeBack() {
        publishSnapshot(1, 0);
        publishSnapshot(2, 4);
        assertThat(rule.activeVersion("default")).hasValue(1);
        assertThat(afterPoll()).isTrue();
        assertThat(rule.activeVersion("default")).hasValue(2);
        assertThat(afterPoll()).as("nothing waits: no further round").isFalse();
        assertThat(endFetches).hasValue(1);
    }

    /** A snapshot read after the round's end offsets were fetched waits for a round of its own. */
    @Test
    void aSnapshotReadDuringARoundWaitsForTheNextOne() {
        publishSnapshot(1, 0);
        publishSnapshot(2, 4);
        ends.put("params", 5L); // more on the topic than read: the round goes on
        assertThat(afterPoll()).isFalse();
        publishSnapshot(3, 5); // read during the round (offset 2 of params; ends were fetched before it was)
        positions.put("params", 5L);
        assertThat(afterPoll()).as("the round releases 2, and a new one starts for 3").isTrue();
        assertThat(rule.activeVersion("default")).hasValue(2);
        assertThat(endFetches).hasValue(2);
        assertThat(afterPoll()).isFalse(); // params end is 6 by now, position 5
        positions.put("params", 6L);
        assertThat(afterPoll()).isTrue();
        assertThat(rule.activeVersion("default")).hasValue(3);
    }

    /**
     * Review finding: the job publishes during a reader's start-up. Its catch-up target (the ends at the session's start)
     * is reached in the poll that also read v2, stamped with a control record that is gone, while the round's ends
     * (fetched after v2 was read) include v3, published meanwhile: the reader may not say it is caught up, and activate
     * v1, until that round has ended and released v2.
     */
    @Test
    void aReaderIsNotCaughtUpWhileASnapshotReadDuringCatchUpWaitsForItsRound() {
        publishSnapshot(1, 0);
        publishSnapshot(2, 4); // the job published it after the session's start; its control record is gone
        ends.merge("params", 1L, Long::sum); // v3, published while the round's ends are fetched, not read yet
        assertThat(afterPoll()).isFalse();
        assertThat(rounds.caughtUp(subject)).as("v2 waits for the round under way").isFalse();
        assertThat(rule.activeVersion("default")).hasValue(1);

        rule.onSnapshot("default", 3, SnapshotStatus.REJECTED, 0);
        positions.merge("params", 1L, Long::sum);
        assertThat(afterPoll()).as("the round ends and releases v2").isTrue();
        assertThat(rounds.caughtUp(subject)).isTrue();
        assertThat(rule.activeVersion("default")).hasValue(2);
    }

    /**
     * A round that started before catch-up was reached, with a mark taken before a held snapshot was read, does not
     * count: the reader waits for the next round, whose mark covers it.
     */
    @Test
    void onlyARoundStartedOnceCatchUpIsReachedLetsTheReaderSayItIsCaughtUp() {
        publishSnapshot(1, 4);
        ends.merge("params", 1L, Long::sum); // v2 published, not read: round A (mark before v2) goes on
        assertThat(afterPoll()).isFalse();
        readPublished(2, 5); // read during round A; the catch-up target is reached in this poll
        assertThat(rounds.caughtUp(subject)).isFalse();
        ends.merge("params", 1L, Long::sum); // v3 published, not read
        assertThat(afterPoll()).as("round A ends, releasing v1 only; round B starts").isTrue();
        assertThat(rounds.caughtUp(subject)).as("round A started before catch-up was reached").isFalse();
        assertThat(rule.activeVersion("default")).hasValue(1);
        readPublished(3, 6);
        ends.merge("params", 1L, Long::sum); // v4 published, not read: round C will go on
        assertThat(afterPoll()).as("round B ends, releasing v2").isTrue();
        assertThat(rule.waitsForReadThrough()).as("v3 waits for round C").isTrue();
        assertThat(rounds.caughtUp(subject)).as("round B started once catch-up was reached").isTrue();
        assertThat(rule.activeVersion("default")).hasValue(2);
    }

    /** Reads a snapshot already counted in the end offsets. */
    private void readPublished(long version, long stamp) {
        rule.onSnapshot("default", version, ACCEPTED, stamp);
        positions.merge("params", 1L, Long::sum);
    }

    /** Nothing held back: a reader whose catch-up target is reached is caught up at once, with no round. */
    @Test
    void withNothingHeldBackCatchUpNeedsNoRound() {
        publishSnapshot(1, 0);
        assertThat(afterPoll()).isFalse();
        assertThat(rounds.caughtUp(subject)).isTrue();
        assertThat(endFetches).hasValue(0);
    }

    /** End offsets that cannot be had now (no broker) are asked again after a pause, not at every poll. */
    @Test
    void endOffsetsThatCannotBeHadAreAskedAgainLater() {
        publishSnapshot(2, 4);
        AtomicInteger asked = new AtomicInteger();
        ReadThrough<String> r = new ReadThrough<>(now::get);
        for (int i = 0; i < 3; i++) {
            assertThat(r.afterPoll(subject, () -> {
                asked.incrementAndGet();
                return null;
            }, positions::get)).isFalse();
        }
        assertThat(asked).hasValue(1);
        now.addAndGet(ReadThrough.RETRY_NANOS);
        assertThat(r.afterPoll(subject, () -> Map.copyOf(ends), positions::get)).isTrue();
        assertThat(rule.activeVersion("default")).hasValue(2);
    }

    private static SnapshotControl control(ControlAction action, Long version, long sequence) {
        return SnapshotControl.newBuilder().setScope("default").setAction(action).setVersion(version)
                .setReason("test").setActor("tester").setTimestampMs(0).setSequence(sequence).build();
    }
}
