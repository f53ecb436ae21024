package io.tierroute.jobs.fit;

import static io.tierroute.jobs.fit.FitHarness.TICK;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.schemas.avro.ParameterSnapshot;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.junit.jupiter.api.Test;

/**
 * The estimators of a scope without input for {@link ScopeFitFunction#SCOPE_IDLE_MS} leave memory ({@code liveScopes}
 * shrinks, {@code idleScopesEvicted} counts them); when the scope returns they are rebuilt from its replay buffers, and
 * its next snapshot is the one a job that never dropped them publishes.
 */
class IdleScopeEvictionTest {
    private static final long START = 1_700_000_000_000L;
    private static final long IDLE = ScopeFitFunction.SCOPE_IDLE_MS;

    /**
     * Scope "a": 400 rows, a snapshot, after {@code gapMs} of processing time 10 rows more; "b" has input throughout
     * (a forest timer of both fires at 1 h and the sweep after it finds "a" idle, not "b").
     */
    private static ParameterSnapshot secondSnapshotOfA(long gapMs, boolean expectEviction) throws Exception {
        FitHarness f = FitHarness.open(FitHarness.settings().build());
        SplittableRandom a = new SplittableRandom(1);
        SplittableRandom b = new SplittableRandom(2);
        f.h.setProcessingTime(0);
        f.rows("a", 400, START, a);
        f.rows("b", 400, START, b);
        f.h.setProcessingTime(TICK);
        assertThat(f.h.extractOutputValues()).hasSize(2);
        assertThat(f.function().liveScopeCount()).isEqualTo(2);

        f.h.setProcessingTime(TICK + gapMs / 2);
        f.rows("b", 10, START + 5_000, b);
        long now = TICK + gapMs;
        f.h.setProcessingTime(now);
        f.rows("b", 10, START + 6_000, b);
        assertThat(f.function().liveScopeCount()).as("liveScopes").isEqualTo(expectEviction ? 1 : 2);
        assertThat(f.function().idleScopesEvictedCount()).isEqualTo(expectEviction ? 1 : 0);

        f.rows("a", 10, START + 6_000, a);
        assertThat(f.function().liveScopeCount()).as("rebuilt on its return").isEqualTo(2);
        f.h.setProcessingTime((now / TICK + 1) * TICK);
        List<ParameterSnapshot> ofA = f.h.extractOutputValues().stream()
            .filter(p -> p.getScope().toString().equals("a")).toList();
        assertThat(ofA).hasSize(2);
        f.h.close();
        return ofA.get(1);
    }

    @Test
    void anIdleScopeLeavesMemoryAndItsReturnPublishesWhatItWouldHave() throws Exception {
        ParameterSnapshot evicted = secondSnapshotOfA(IDLE + IDLE / 4 + TICK, true);
        ParameterSnapshot kept = secondSnapshotOfA(IDLE / 2, false);
        assertThat(evicted.getVersion()).isEqualTo(2);
        assertThat(evicted.getParentVersion()).isEqualTo(1);
        assertThat(evicted.getAlphaP().getSamples()).as("rebuilt from the 400 buffered rows, then 10 new").isEqualTo(410);
        assertThat(evicted.getAlphaP()).isEqualTo(kept.getAlphaP());
        assertThat(evicted.getAlphaD()).isEqualTo(kept.getAlphaD());
        assertThat(evicted.getStatus()).isEqualTo(kept.getStatus());
    }

    /** Event-time mode: the clock is the ticks (event time), as for the function's timers. */
    @Test
    void inEventTimeModeIdleIsEventTime() throws Exception {
        FitHarness f = FitHarness.open(FitHarness.settings().set("cadence-clock", "event").build());
        SplittableRandom rnd = new SplittableRandom(3);
        f.rows("a", 300, START + 10, rnd);
        f.rows("b", 300, START + 10, rnd);
        f.h.processBothWatermarks(new Watermark(START + 3000));
        assertThat(f.function().liveScopeCount()).isEqualTo(2);

        long later = START + IDLE + IDLE / 4 + 10_000;
        f.rows("b", 10, later, rnd);
        f.h.processBothWatermarks(new Watermark(later + TICK));
        assertThat(f.function().liveScopeCount()).as("liveScopes").isEqualTo(1);
        assertThat(f.function().idleScopesEvictedCount()).isEqualTo(1);

        f.rows("a", 10, later + TICK + 10, rnd);
        f.h.processBothWatermarks(new Watermark(later + 2 * TICK));
        List<ParameterSnapshot> out = f.h.extractOutputValues();
        ParameterSnapshot last = out.get(out.size() - 1);
        assertThat(last.getScope().toString()).isEqualTo("a");
        assertThat(last.getAlphaP().getSamples()).as("rebuilt from the buffer").isEqualTo(310);
        assertThat(f.function().liveScopeCount()).isEqualTo(2);
        f.h.close();
    }
}
