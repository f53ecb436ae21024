package io.tierroute.selector.sequences;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WorkCountersTest {

    private static final long SECOND = 1_000_000_000L;

    private static Telemetry sample(long atSeconds, long prefillTokens, long decodeSteps) {
        return new Telemetry(0, atSeconds * SECOND, 1, 3, 0, -1, prefillTokens, decodeSteps);
    }

    @Test
    void countsSinceThePreviousSampleShowWorkWhenAboveZero() {
        WorkCounters c = new WorkCounters();
        assertThat(c.read(sample(1, -1, -1))).as("not reported").isFalse();
        assertThat(c.read(sample(2, 0, 40))).isTrue();
        assertThat(c.read(sample(3, 0, 40))).as("the same count again: the same work again").isTrue();
        assertThat(c.read(sample(4, 0, 0))).isFalse();
        assertThat(c.read(sample(5, 8_000, 0))).as("a prefill").isTrue();
        assertThat(c.read(sample(15, 0, 15_000))).as("1,500 steps a second over 10 s: an engine's count")
                .isTrue();
        assertThat(c.runningTotals()).isFalse();
    }

    /** A gateway that posts an engine's running totals: found once they pass what an engine does, then read as totals. */
    @Test
    void runningTotalsAreFoundOnceBeyondAnyEngineAndThenOnlyAChangeIsWork() {
        WorkCounters c = new WorkCounters();
        assertThat(c.read(sample(1, 0, 900))).isTrue();
        assertThat(c.read(sample(2, 0, 1_900))).as("under the bound: taken as a count").isTrue();
        assertThat(c.runningTotals()).isFalse();
        assertThat(c.read(sample(3, 0, 2_900))).as("2,900 steps in one second: no engine").isTrue();
        assertThat(c.runningTotals()).isTrue();
        assertThat(c.read(sample(4, 0, 2_900))).as("the totals stand still: a hung engine").isFalse();
        assertThat(c.read(sample(5, 0, 2_930))).isTrue();
        assertThat(c.read(sample(6, 0, 12))).as("fell: the engine restarted and counts anew").isTrue();
        assertThat(c.read(sample(7, 0, 12))).isFalse();
        assertThat(c.read(sample(5, 0, 2_950))).as("a late sample's totals tell nothing").isFalse();
    }

    /** A hung engine's totals, read first after a selector's start: the sample that gives them away is no work. */
    @Test
    void totalsThatStandStillWhenGivenAwayAreNoWork() {
        WorkCounters c = new WorkCounters();
        assertThat(c.read(sample(1, 0, 80_000))).as("no previous sample: taken as a count").isTrue();
        assertThat(c.runningTotals()).isFalse();
        assertThat(c.read(sample(2, 0, 80_000))).isFalse();
        assertThat(c.runningTotals()).isTrue();
    }

    /** The worker's load says so once, at the sample that gives the totals away (the selector logs it then). */
    @Test
    void aWorkersLoadReportsTheTotalsFoundOnce() {
        WorkerLoad load = new WorkerLoad(1_000_000);
        assertThat(load.telemetry(sample(1, 0, 900))).isFalse();
        assertThat(load.telemetry(sample(2, 0, 2_900))).as("found").isTrue();
        assertThat(load.telemetry(sample(3, 0, 2_940))).as("found once").isFalse();
        assertThat(load.readsRunningTotals()).isTrue();
        assertThat(load.lastWorkNanos()).as("2,940 after 2,900: work").isEqualTo(3 * SECOND);
    }

    @Test
    void prefillTotalsGiveThemselvesAwayToo() {
        WorkCounters c = new WorkCounters();
        assertThat(c.read(sample(1, 50_000, 0))).isTrue();
        assertThat(c.runningTotals()).isFalse();
        assertThat(c.read(sample(2, 20_000_000, 0))).isTrue();
        assertThat(c.runningTotals()).isTrue();
        assertThat(c.read(sample(3, 20_000_000, 0))).isFalse();
    }

    @Test
    void aFirstSampleHasNoIntervalToJudgeAndALateOneIsReadAsItsOwnCount() {
        WorkCounters c = new WorkCounters();
        assertThat(c.read(sample(10, 0, 1_000_000))).as("no previous sample: taken as a count").isTrue();
        assertThat(c.runningTotals()).isFalse();
        assertThat(c.read(sample(9, 0, 40))).as("late, per interval: its own interval's work").isTrue();
        assertThat(c.read(sample(11, 0, 0))).isFalse();
    }
}
