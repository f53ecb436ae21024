package io.tierroute.jobs.fit;

import static io.tierroute.jobs.fit.FitHarness.TICK;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.junit.jupiter.api.Test;

/**
 * Event-time mode, a control record stamped far past the job's event time (Long.MAX_VALUE passes
 * {@code ControlRecordCheck}): every selector applies it on arrival, so the job applies it at the next tick instead of
 * waiting for its stamp. Before, {@code tickFor} wrapped negative there, the timer fired at once at a tick the stamp was
 * not behind, and the record stayed pending for good: the job kept publishing under the old control sequence.
 */
class EventClockControlAheadTest {
    private static final long START = 1_700_000_000_000L; // a multiple of TICK
    private final SplittableRandom rnd = new SplittableRandom(11);

    /** 300 rows over [START, START + 3 s), then the watermark at START + 3 s: six snapshots, versions 1 to 6. */
    private FitHarness sixSnapshots() throws Exception {
        FitHarness f = FitHarness.open(FitHarness.settings().set("cadence-clock", "event").build());
        f.rows("default", 300, START + 10, rnd);
        f.h.processBothWatermarks(new Watermark(START + 3000));
        assertThat(f.h.extractOutputValues()).hasSize(6);
        return f;
    }

    @Test
    void aTickNearLongMaxValueSaturatesInsteadOfWrapping() {
        long last = Long.MAX_VALUE - Math.floorMod(Long.MAX_VALUE, TICK); // the last multiple of TICK
        assertThat(ScopeFitFunction.tickFor(Long.MAX_VALUE, TICK)).isEqualTo(Long.MAX_VALUE);
        assertThat(ScopeFitFunction.tickFor(last + 1, TICK)).isEqualTo(Long.MAX_VALUE);
        assertThat(ScopeFitFunction.tickFor(last, TICK)).isEqualTo(last);
        assertThat(ScopeFitFunction.tickFor(last - 1, TICK)).isEqualTo(last);
        assertThat(ScopeFitFunction.tickFor(START + 1, TICK)).isEqualTo(START + TICK);
        long first = ScopeFitFunction.tickFor(Long.MIN_VALUE, TICK);
        assertThat(first % TICK).as("no overflow at the other end either").isZero();
        assertThat(first).isBetween(Long.MIN_VALUE, Long.MIN_VALUE + TICK);
    }

    @Test
    void aControlStampedLongMaxValueIsAppliedAtTheNextTick() throws Exception {
        FitHarness f = sixSnapshots();
        f.control(FitHarness.control("default", ControlAction.PIN, 1L, 1, Long.MAX_VALUE));
        f.rows("default", 10, START + 3010, rnd);
        f.h.processBothWatermarks(new Watermark(START + 3500));
        List<ParameterSnapshot> out = f.h.extractOutputValues();
        assertThat(out).hasSize(7);
        ParameterSnapshot next = out.get(6);
        assertThat(next.getCreatedAtMs()).isEqualTo(START + 3500);
        assertThat(next.getControlSequence()).as("the pin is applied, as the selectors did on arrival").isEqualTo(1);
        assertThat(next.getParentVersion()).as("gated against the pinned version").isEqualTo(1);
        assertThat(f.function().controlsAheadCount()).isEqualTo(1);
        assertThat(f.function().lateInputCount()).as("not late: ahead").isZero();
        f.h.close();
    }

    /**
     * The watermark jumps past the record's stamp before the tick it was scheduled for fires: the tick still applies
     * it (it was far past that tick), rather than finding it neither due by its stamp nor far past the watermark.
     */
    @Test
    void aControlFarAheadIsAppliedAtItsTickEvenWhenTheWatermarkThenPassesItsStamp() throws Exception {
        FitHarness f = sixSnapshots();
        long twoHoursAhead = START + 3000 + 2 * ScopeFitFunction.CONTROL_AHEAD_MIN_MS;
        f.control(FitHarness.control("default", ControlAction.PIN, 2L, 1, twoHoursAhead));
        f.h.processBothWatermarks(new Watermark(twoHoursAhead + ScopeFitFunction.CONTROL_AHEAD_MIN_MS));
        List<ParameterSnapshot> out = f.h.extractOutputValues();
        assertThat(out).as("the control alone makes its tick publish").hasSize(7);
        assertThat(out.get(6).getCreatedAtMs()).as("the tick just after the watermark at its arrival")
            .isEqualTo(START + 3500);
        assertThat(out.get(6).getControlSequence()).isEqualTo(1);
        assertThat(out.get(6).getParentVersion()).isEqualTo(2);
        assertThat(f.function().controlsAheadCount()).isEqualTo(1);
        f.h.close();
    }

    /** Without an event time yet (no watermark), the scope's first tick finds the record far past it. */
    @Test
    void aControlFarAheadBeforeAnyWatermarkIsAppliedAtTheScopesFirstTick() throws Exception {
        FitHarness f = FitHarness.open(FitHarness.settings().set("cadence-clock", "event").build());
        f.control(FitHarness.control("default", ControlAction.UNPIN, null, 1, Long.MAX_VALUE));
        f.rows("default", 300, START + 10, rnd);
        f.h.processBothWatermarks(new Watermark(START + 500));
        List<ParameterSnapshot> out = f.h.extractOutputValues();
        assertThat(out).hasSize(1);
        assertThat(out.get(0).getControlSequence()).isEqualTo(1);
        assertThat(f.function().controlsAheadCount()).isEqualTo(1);
        f.h.close();
    }

    /**
     * A restored scope (no watermark yet) gets a control stamped before any input can be (-1,000,000 ms): it used to
     * be applied at its own tick, publishing a snapshot stamped -1,000,000, which the params producer refuses, at every
     * restart. The scope's first tick applies it now.
     */
    @Test
    void aControlStampedBeforeAnyInputCanBeWaitsForTheScopesFirstTick() throws Exception {
        FitHarness f = sixSnapshots();
        org.apache.flink.runtime.checkpoint.OperatorSubtaskState state = f.h.snapshot(1, START + 3000);
        f.h.close();
        FitHarness restored = FitHarness.restore(state, FitHarness.settings().set("cadence-clock", "event").build());
        restored.control(FitHarness.control("default", ControlAction.PIN, 1L, 1, -1_000_000));
        restored.h.processBothWatermarks(new Watermark(START + 3000));
        assertThat(restored.h.extractOutputValues()).as("no tick of its own").isEmpty();
        restored.rows("default", 10, START + 3010, rnd);
        restored.h.processBothWatermarks(new Watermark(START + 3500));
        List<ParameterSnapshot> out = restored.h.extractOutputValues();
        assertThat(out).hasSize(1);
        assertThat(out.get(0).getCreatedAtMs()).isEqualTo(START + 3500);
        assertThat(out.get(0).getControlSequence()).as("applied at the scope's first tick").isEqualTo(1);
        restored.h.close();
    }

    /** Stamped within the bound (ten minutes ahead): it waits for its own tick, as the deterministic history needs. */
    @Test
    void aControlStampedWithinTheBoundWaitsForItsOwnTime() throws Exception {
        FitHarness f = sixSnapshots();
        long stamp = START + 3000 + 600_000;
        f.control(FitHarness.control("default", ControlAction.PIN, 1L, 1, stamp));
        f.rows("default", 10, START + 3010, rnd);
        f.h.processBothWatermarks(new Watermark(START + 3500));
        assertThat(f.h.extractOutputValues().get(6).getControlSequence()).as("not yet").isZero();
        f.rows("default", 10, stamp - 100, rnd);
        f.h.processBothWatermarks(new Watermark(stamp));
        List<ParameterSnapshot> out = f.h.extractOutputValues();
        assertThat(out).hasSize(8);
        assertThat(out.get(7).getCreatedAtMs()).isEqualTo(stamp);
        assertThat(out.get(7).getControlSequence()).as("at the tick covering its stamp").isEqualTo(1);
        assertThat(f.function().controlsAheadCount()).isZero();
        f.h.close();
    }
}
