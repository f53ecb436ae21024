package io.tierroute.jobs.fit;

import static io.tierroute.jobs.fit.FitHarness.TICK;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.schemas.avro.ParameterSnapshot;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.junit.jupiter.api.Test;

/**
 * The estimators of a scope without input for {@link LiveScopes#IDLE_MS} leave memory ({@code liveScopes}
 * shrinks, {@code idleScopesEvicted} counts them); when the scope returns they are rebuilt from its replay buffers, and
 * its next snapshot is the one a job that never dropped them publishes.
 */
class IdleScopeEvictionTest {
    private static final long START = 1_700_000_000_000L;
    private static final long IDLE = LiveScopes.IDLE_MS;

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

    /**
     * Scope "a" in event-time mode: 400 rows, two hours of event time without input, 10 rows more; with {@code busyB}
     * scope "b" sends input all along on the same subtask. Returns a's last snapshot.
     */
    private static ParameterSnapshot lastOfAInEventTime(boolean busyB) throws Exception {
        // 100 sample rows: a rebuild from the buffers would fit on their tail, so an eviction would show in α_p.
        FitHarness f = FitHarness.open(FitHarness.settings().set("cadence-clock", "event").set("sample-rows", 100).build());
        SplittableRandom a = new SplittableRandom(3);
        SplittableRandom b = new SplittableRandom(4);
        f.rows("a", 400, START + 10, a);
        f.h.processBothWatermarks(new Watermark(START + 5_000));
        long later = START + 2 * IDLE;
        for (long t = START + 5_000; busyB && t + IDLE / 8 < later; t += IDLE / 8) {
            f.rows("b", 10, t + 10, b);
            f.h.processBothWatermarks(new Watermark(t + IDLE / 8));
        }
        f.rows("a", 10, later + 10, a);
        f.h.processBothWatermarks(new Watermark(later + TICK));
        assertThat(f.function().idleScopesEvictedCount()).as("never in event-time mode").isZero();
        assertThat(f.function().liveScopeCount()).isEqualTo(busyB ? 2 : 1);
        List<ParameterSnapshot> ofA = f.h.extractOutputValues().stream()
            .filter(p -> p.getScope().toString().equals("a")).toList();
        f.h.close();
        return ofA.get(ofA.size() - 1);
    }

    /**
     * Event-time mode keeps every scope's estimators: its history is a function of the input alone, and an idle sweep
     * would make a scope's figures depend on which other scopes share its subtask (found in review: α_p 1.009 alone,
     * 0.956 beside a busy scope, fitted on the buffers' tail).
     */
    @Test
    void inEventTimeModeNothingIsEvictedSoAScopeDoesNotDependOnItsNeighbours() throws Exception {
        ParameterSnapshot alone = lastOfAInEventTime(false);
        ParameterSnapshot beside = lastOfAInEventTime(true);
        assertThat(alone.getAlphaP().getSamples()).isEqualTo(410);
        assertThat(beside.getAlphaP()).isEqualTo(alone.getAlphaP());
        assertThat(beside.getAlphaD()).isEqualTo(alone.getAlphaD());
    }
}
