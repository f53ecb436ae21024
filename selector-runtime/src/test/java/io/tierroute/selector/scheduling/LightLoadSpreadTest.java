package io.tierroute.selector.scheduling;

import io.tierroute.selector.sequences.LoadView;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LightLoadSpread} on scored candidates, term by term: who leaves the pick, and when it does nothing (off, a
 * loaded fleet, a large enough saving, a worker within K of the least-loaded eligible one).
 */
class LightLoadSpreadTest {

    private static final double MS = 1_000; // µs

    /** Candidates with these costs (µs) and in-flight counts, all eligible. */
    private static AttemptScratch scored(double[] cost, int[] inFlight) {
        AttemptScratch s = new AttemptScratch(null, cost.length);
        for (int w = 0; w < cost.length; w++) {
            s.cost[w] = cost[w];
            s.loads[w] = new LoadView(inFlight[w], 0, 0, 0, 0, 1_000_000);
            s.eligible[w] = true;
            s.excluded[w] = null;
        }
        return s;
    }

    @Test
    void aCheaperWorkerMoreThanKBeyondTheLeastLoadedLeavesThePick() {
        AttemptScratch s = scored(new double[] {1 * MS, 4 * MS, 5 * MS}, new int[] {6, 0, 4});
        assertThat(new LightLoadSpread(4).apply(s, 0.0)).as("the cheapest left").isTrue();
        assertThat(s.eligible).containsExactly(false, true, true);
        assertThat(s.excluded).containsExactly(Explanations.SPREAD, null, null);
    }

    @Test
    void theEngineCountsOtherReplicasRequests() {
        AttemptScratch s = scored(new double[] {1 * MS, 4 * MS}, new int[] {1, 1});
        s.loads[0] = new LoadView(1, 0, 0, 0, 0, 1_000_000, 0, null, 7); // 6 more from other replicas
        assertThat(new LightLoadSpread(4).apply(s, 0.0)).as("7 is more than 4 beyond 1").isTrue();
        assertThat(s.eligible).containsExactly(false, true);

        AttemptScratch fewerThere = scored(new double[] {1 * MS, 4 * MS}, new int[] {6, 1});
        fewerThere.loads[0] = new LoadView(6, 0, 0, 0, 0, 1_000_000, 0, null, 3); // a sample since some finished
        assertThat(new LightLoadSpread(4).apply(fewerThere, 0.0)).as("our own 6 still count").isTrue();
    }

    @Test
    void exactlyKBeyondStays() {
        AttemptScratch s = scored(new double[] {1 * MS, 4 * MS}, new int[] {4, 0});
        assertThat(new LightLoadSpread(4).apply(s, 0.0)).isFalse();
        assertThat(s.eligible).containsExactly(true, true);
    }

    @Test
    void aBusyWorkerThatSavesTheKeepingSavingStays() {
        double within = 150 * MS;
        AttemptScratch keeps = scored(new double[] {within - LightLoadSpread.KEEP_SAVING_US, within}, new int[] {9, 0});
        assertThat(new LightLoadSpread(4).apply(keeps, 0.0)).isFalse();
        assertThat(keeps.eligible).as("saves exactly 100 ms: a large hit").containsExactly(true, true);

        AttemptScratch leaves = scored(new double[] {within - LightLoadSpread.KEEP_SAVING_US + 1, within},
                new int[] {9, 0});
        assertThat(new LightLoadSpread(4).apply(leaves, 0.0)).isTrue();
        assertThat(leaves.eligible).containsExactly(false, true);
    }

    @Test
    void aBusierWorkerThatIsNotTheCheapestLeavesWithoutCountingAsASpread() {
        AttemptScratch s = scored(new double[] {1 * MS, 9 * MS, 4 * MS}, new int[] {0, 7, 2});
        assertThat(new LightLoadSpread(4).apply(s, 0.0)).as("the cheapest stayed").isFalse();
        assertThat(s.eligible).containsExactly(true, false, true);
    }

    @Test
    void aKeptWorkerAsCheapAsTheOneLeftOutMeansThePickDidNotChange() {
        AttemptScratch s = scored(new double[] {1 * MS, 1 * MS}, new int[] {6, 0});
        assertThat(new LightLoadSpread(4).apply(s, 0.0)).isFalse();
        assertThat(s.eligible).containsExactly(false, true);
    }

    @Test
    void theLeastLoadedIsTheLeastLoadedEligibleCandidate() {
        AttemptScratch s = scored(new double[] {1 * MS, 4 * MS, 2 * MS}, new int[] {6, 0, 3});
        s.eligible[1] = false; // over its load limit, say: not a place to spread to
        s.excluded[1] = Explanations.OVER_LOAD;
        assertThat(new LightLoadSpread(4).apply(s, 0.0)).isFalse();
        assertThat(s.eligible).as("6 is within 4 of 3").containsExactly(true, false, true);
        assertThat(s.excluded[1]).isSameAs(Explanations.OVER_LOAD);
    }

    @Test
    void nothingChangesOnceFirstTokensQueueOrWhenOff() {
        AttemptScratch loaded = scored(new double[] {1 * MS, 4 * MS}, new int[] {6, 0});
        assertThat(new LightLoadSpread(4).apply(loaded, LightLoadSpread.LIGHT_PREFILL_DUTY + 1e-9)).isFalse();
        assertThat(loaded.eligible).containsExactly(true, true);

        AttemptScratch atTheBound = scored(new double[] {1 * MS, 4 * MS}, new int[] {6, 0});
        assertThat(new LightLoadSpread(4).apply(atTheBound, LightLoadSpread.LIGHT_PREFILL_DUTY)).isTrue();

        AttemptScratch off = scored(new double[] {1 * MS, 4 * MS}, new int[] {60, 0});
        assertThat(new LightLoadSpread(0).apply(off, 0.0)).isFalse();
        assertThat(off.eligible).containsExactly(true, true);
    }
}
