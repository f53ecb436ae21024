package io.tierroute.jobs.fit;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.JobSettings;
import io.tierroute.schemas.avro.ParameterSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.Test;

/**
 * Scopes of one subtask whose forest ticks fall together take turns on its training thread: one trains, the others
 * wait without a copy of their rows ({@code forestTrainingsWaiting}), and each gets its model, one after the other.
 */
class ForestTurnsTest {
    private static final long START = 1_700_000_000_000L;
    private static final List<String> SCOPES = List.of("a", "b", "c");

    private static JobSettings settings() {
        return FitHarness.settings().set("forest-interval", Duration.ofSeconds(1)).set("min-forest-rows", 100)
            .set("forest-trees", 30).build();
    }

    private static Map<String, SplittableRandom> randoms() {
        Map<String, SplittableRandom> rnd = new LinkedHashMap<>();
        for (int i = 0; i < SCOPES.size(); i++) {
            rnd.put(SCOPES.get(i), new SplittableRandom(i + 1));
        }
        return rnd;
    }

    /** 1,000 rows of each scope at processing time 0, then every scope's forest tick at 1 s: one takes the thread. */
    private static FitHarness ticked(Map<String, SplittableRandom> rnd) throws Exception {
        FitHarness f = FitHarness.open(settings());
        f.h.setProcessingTime(0);
        for (String s : SCOPES) {
            f.rows(s, 1_000, START, rnd.get(s));
        }
        f.h.setProcessingTime(1_000);
        assertThat(f.function().forestTrainingsWaitingCount()).as("two scopes wait for the one training").isEqualTo(2);
        return f;
    }

    @Test
    void scopesTickingTogetherTrainOneAfterTheOther() throws Exception {
        Map<String, SplittableRandom> rnd = randoms();
        FitHarness f = ticked(rnd);
        long eventMs = START + 10_000;

        java.util.Set<String> withModel = new java.util.HashSet<>(); // scopes a snapshot carried a model of
        List<Integer> waitingSeen = new ArrayList<>();
        long now = 1_000;
        for (int step = 0; step < 400 && withModel.size() < SCOPES.size(); step++) {
            Thread.sleep(20);
            now += ScopeFitFunction.FOREST_POLL_MS;
            for (String s : SCOPES) {
                f.rows(s, 1, eventMs, rnd.get(s)); // new input: the next publish tick publishes the scope
            }
            eventMs += 10;
            f.h.setProcessingTime(now);
            waitingSeen.add(f.function().forestTrainingsWaitingCount());
            for (ParameterSnapshot p : f.h.extractOutputValues()) {
                if (p.getQuantileModel() != null) {
                    withModel.add(p.getScope().toString());
                }
            }
        }
        f.h.close();

        assertThat(withModel).as("every scope got its forest; waiting counts seen %s", waitingSeen)
            .containsExactlyInAnyOrderElementsOf(SCOPES);
        List<Integer> descending = new ArrayList<>(waitingSeen);
        descending.sort(java.util.Comparator.reverseOrder());
        assertThat(waitingSeen).as("one turn at a time: the line shortens by one as each training is collected")
            .isEqualTo(descending).contains(1).endsWith(0);
    }

    /**
     * Restored while two scopes wait: their polls, restored with the state, put them in line again (the line itself
     * is not state), so they train without waiting for their next forest tick; the scope whose training was lost with
     * the restore waits for new rows, as before.
     */
    @Test
    void scopesWaitingAtARestoreAskAgainAtTheirNextPoll() throws Exception {
        FitHarness f = ticked(randoms());
        OperatorSubtaskState state = f.h.snapshot(1, 1_000);
        f.h.close();

        FitHarness restored = FitHarness.restore(state, settings());
        restored.h.setProcessingTime(1_000);
        assertThat(restored.function().forestTrainingsWaitingCount()).as("the line is not state").isZero();
        restored.h.setProcessingTime(1_000 + ScopeFitFunction.FOREST_POLL_MS); // the restored polls fire: no tick
        assertThat(restored.function().forestTrainingsWaitingCount())
            .as("of the two that waited, one trains and one waits again").isEqualTo(1);
        restored.h.close();
    }
}
