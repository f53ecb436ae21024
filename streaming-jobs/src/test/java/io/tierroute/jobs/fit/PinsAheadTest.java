package io.tierroute.jobs.fit;

import static io.tierroute.jobs.fit.FitHarness.TICK;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.ActivationRule;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.Test;

/**
 * A PIN of a version the scope has not published yet: {@link ActivationRule} activates that version as soon as it is
 * accepted, so the job's own fitted candidate of that number would have become the pinned version of every reader. The
 * job publishes it REJECTED, also after a restore, and every reader of its records and the control finds it inactive.
 */
class PinsAheadTest {
    private static final long START = 1_700_000_000_000L;
    private final SplittableRandom rnd = new SplittableRandom(3);
    private final List<ParameterSnapshot> published = new ArrayList<>();
    private final List<SnapshotControl> controls = new ArrayList<>();
    private long eventTime = START;
    private long now;

    private ParameterSnapshot publishOne(FitHarness f, int rows) throws Exception {
        f.rows("default", rows, eventTime, rnd);
        eventTime += 10L * rows;
        int before = f.h.extractOutputValues().size();
        f.h.setProcessingTime(now += TICK);
        List<ParameterSnapshot> out = f.h.extractOutputValues();
        assertThat(out).as("one snapshot per tick").hasSize(before + 1);
        published.add(out.get(out.size() - 1));
        return out.get(out.size() - 1);
    }

    private void control(FitHarness f, SnapshotControl c) throws Exception {
        controls.add(c);
        f.control(c);
    }

    /** The active version as a selector computes it from the published records and the control records. */
    private ActivationRule readers() {
        ActivationRule rule = new ActivationRule();
        published.forEach(rule::onSnapshot);
        controls.forEach(rule::onControl);
        return rule;
    }

    @Test
    void aVersionAPinNamedBeforeItExistedIsPublishedRejected() throws Exception {
        FitHarness f = FitHarness.open(FitHarness.settings().build());
        f.h.setProcessingTime(now);
        for (int v = 1; v <= 3; v++) {
            ParameterSnapshot s = publishOne(f, v == 1 ? 400 : 20);
            assertThat(s.getStatus()).as("reasons %s", s.getRejectReasons()).isEqualTo(SnapshotStatus.ACCEPTED);
        }
        control(f, FitHarness.control("default", ControlAction.PIN, 5L, 1, 0));
        ParameterSnapshot four = publishOne(f, 20);
        assertThat(four.getVersion()).isEqualTo(4);
        ParameterSnapshot five = publishOne(f, 20);
        assertThat(five.getVersion()).isEqualTo(5);
        assertThat(five.getStatus()).isEqualTo(SnapshotStatus.REJECTED);
        assertThat(five.getRejectReasons().get(0)).contains("PIN (control sequence 1) named version 5 before it existed");
        assertThat(five.getControlSequence()).isEqualTo(1);
        assertThat(readers().activeVersion("default")).as("no fitted snapshot slips past the pin").isEmpty();
        assertThat(f.function().pinnedBeforeTheyExistedCount()).isEqualTo(1);
        assertThat(publishOne(f, 20).getStatus()).as("6: only the named version").isEqualTo(SnapshotStatus.ACCEPTED);

        // Remembered in keyed state: a restore between the pin and its version still rejects it.
        control(f, FitHarness.control("default", ControlAction.PIN, 8L, 2, 0));
        OperatorSubtaskState state = f.h.snapshot(1, now);
        f.h.close();
        FitHarness restored = FitHarness.restore(state, FitHarness.settings().build());
        restored.h.setProcessingTime(now);
        assertThat(publishOne(restored, 20).getVersion()).isEqualTo(7);
        ParameterSnapshot eight = publishOne(restored, 20);
        assertThat(eight.getVersion()).isEqualTo(8);
        assertThat(eight.getStatus()).isEqualTo(SnapshotStatus.REJECTED);
        assertThat(readers().activeVersion("default")).isEmpty();

        // Unpinned: the next accepted snapshot, stamped with the UNPIN's sequence, is active again.
        control(restored, FitHarness.control("default", ControlAction.UNPIN, 8L, 3, 0));
        ParameterSnapshot nine = publishOne(restored, 20);
        assertThat(nine.getStatus()).as("reasons %s", nine.getRejectReasons()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(readers().activeVersion("default")).hasValue(9);
        restored.h.close();
    }

    @Test
    void aPinUnpinnedBeforeItsVersionExistedNoLongerRejectsIt() throws Exception {
        aPinReplacedBeforeItsVersionExisted(FitHarness.control("default", ControlAction.UNPIN, 5L, 2, 0), 5);
    }

    @Test
    void aPinReplacedByAPinOfAnotherVersionNoLongerRejectsIt() throws Exception {
        aPinReplacedBeforeItsVersionExisted(FitHarness.control("default", ControlAction.PIN, 2L, 2, 0), 2);
    }

    /**
     * A PIN of 5 at version 3, then {@code replacement}: 5 is gated as any version (before, it was still published
     * REJECTED, losing a snapshot that becomes active after an UNPIN).
     */
    private void aPinReplacedBeforeItsVersionExisted(SnapshotControl replacement, long activeThen) throws Exception {
        FitHarness f = FitHarness.open(FitHarness.settings().build());
        f.h.setProcessingTime(now);
        for (int v = 1; v <= 3; v++) {
            assertThat(publishOne(f, v == 1 ? 400 : 20).getStatus()).isEqualTo(SnapshotStatus.ACCEPTED);
        }
        control(f, FitHarness.control("default", ControlAction.PIN, 5L, 1, 0));
        control(f, replacement);
        assertThat(publishOne(f, 20).getVersion()).isEqualTo(4);
        ParameterSnapshot five = publishOne(f, 20);
        assertThat(five.getVersion()).isEqualTo(5);
        assertThat(five.getStatus()).as("reasons %s", five.getRejectReasons()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(f.function().pinnedBeforeTheyExistedCount()).isZero();
        assertThat(readers().activeVersion("default")).hasValue(activeThen);
        f.h.close();
    }
}
