package io.tierroute.selector.sequences;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InFlightTrackerTest {

    private static final long SECOND = 1_000_000_000L;

    private final InFlightTracker tracker = new InFlightTracker(new long[]{100_000, 100_000}, 60 * SECOND, 5 * SECOND);

    @Test
    void silenceCountsFromTheFirstToWaitAndOnlyOutputEndsIt() {
        assertThat(tracker.silentNanos(0, 9 * SECOND)).as("none waits").isZero();
        tracker.admit("run", 0, 100, 10, SECOND);
        tracker.onEvent(new RequestEvent("run", RequestEvent.Type.FIRST_TOKEN, 1), 2 * SECOND);
        assertThat(tracker.silentNanos(0, 9 * SECOND)).as("none waits: running is not waiting").isZero();

        tracker.admit("a", 0, 100, 10, 3 * SECOND);
        assertThat(tracker.silentNanos(0, 5 * SECOND)).as("from a's admission").isEqualTo(2 * SECOND);
        tracker.admit("b", 0, 100, 10, 4 * SECOND);
        assertThat(tracker.silentNanos(0, 5 * SECOND)).as("b's admission does not restart it").isEqualTo(2 * SECOND);

        tracker.onEvent(new RequestEvent("b", RequestEvent.Type.FAILED, 0), 6 * SECOND);
        assertThat(tracker.silentNanos(0, 7 * SECOND)).as("a failure is no output").isEqualTo(4 * SECOND);
        tracker.onEvent(new RequestEvent("run", RequestEvent.Type.TOKENS, 5), 7 * SECOND);
        assertThat(tracker.silentNanos(0, 8 * SECOND)).as("the running request's output").isEqualTo(SECOND);
        assertThat(tracker.lastWorkNanos(0)).isEqualTo(7 * SECOND);
        assertThat(tracker.silentNanos(1, 8 * SECOND)).as("another worker").isZero();

        tracker.onEvent(new RequestEvent("a", RequestEvent.Type.FINISHED, 0), 9 * SECOND); // left without output
        assertThat(tracker.lastWorkNanos(0)).isEqualTo(7 * SECOND);
        assertThat(tracker.silentNanos(0, 20 * SECOND)).as("none waits any more").isZero();
    }

    @Test
    void telemetryThatReportsWorkEndsASilenceAndTelemetryWithoutWorkDoesNot() {
        tracker.admit("a", 0, 100, 10, SECOND);
        assertThat(tracker.silentNanos(0, 5 * SECOND)).isEqualTo(4 * SECOND);
        tracker.onTelemetry(new Telemetry(0, 2 * SECOND, 1, 3, 0, -1, 0, 0));
        tracker.onTelemetry(new Telemetry(0, 3 * SECOND, 1, 3, 0)); // no counters: not reported
        assertThat(tracker.silentNanos(0, 5 * SECOND)).as("samples without work (a hung engine's)").isEqualTo(4 * SECOND);

        tracker.onTelemetry(new Telemetry(0, 4 * SECOND, 1, 3, 0, -1, 0, 7)); // others' requests decode
        assertThat(tracker.silentNanos(0, 5 * SECOND)).as("since the sample's instant").isEqualTo(SECOND);
        assertThat(tracker.lastWorkNanos(0)).isEqualTo(4 * SECOND);
        tracker.onTelemetry(new Telemetry(0, 3 * SECOND + 1, 1, 3, 0, -1, 900, 0)); // late, older: does not go back
        assertThat(tracker.lastWorkNanos(0)).isEqualTo(4 * SECOND);
        tracker.onTelemetry(new Telemetry(0, 6 * SECOND, 1, 3, 0, -1, 900, 0)); // a prefill
        assertThat(tracker.lastWorkNanos(0)).isEqualTo(6 * SECOND);
        assertThat(tracker.silentNanos(1, 7 * SECOND)).as("another worker").isZero();
        assertThat(tracker.lastWorkNanos(1)).isZero();
    }

    @Test
    void sumsFollowAdmissionProgressAndCompletion() {
        tracker.admit("a", 0, 1000, 100, 0);
        tracker.admit("b", 0, 500, 10, 0);
        LoadView v = tracker.view(0);
        assertThat(v.inFlight()).isEqualTo(2);
        assertThat(v.waiting()).isEqualTo(2);
        assertThat(v.decodeTokens()).isEqualTo(110);
        // Σ [ctx·d + d²/2] = 1000·100 + 5000 + 500·10 + 50
        assertThat(v.decodeQuadratic()).isEqualTo(100_000 + 5_000 + 5_000 + 50);
        assertThat(v.kvUsedTokens()).isEqualTo(1500);

        tracker.onEvent(new RequestEvent("a", RequestEvent.Type.FIRST_TOKEN, 1), SECOND);
        v = tracker.view(0);
        assertThat(v.decodeTokens()).isEqualTo(99 + 10); // the first token is off d̂
        tracker.onEvent(new RequestEvent("a", RequestEvent.Type.TOKENS, 40), SECOND);
        v = tracker.view(0);
        assertThat(v.waiting()).isEqualTo(1);
        // Progress grows the context (KV, the quadratic's ctx) and leaves d̂ where it was.
        assertThat(v.decodeTokens()).isEqualTo(99 + 10);
        assertThat(v.decodeQuadratic()).isEqualTo(1040 * 99 + 99 * 99 / 2.0 + 5_000 + 50);
        assertThat(v.kvUsedTokens()).isEqualTo(1040 + 500);

        assertThat(tracker.onEvent(new RequestEvent("b", RequestEvent.Type.FINISHED, 10), SECOND)).isTrue();
        assertThat(tracker.onEvent(new RequestEvent("b", RequestEvent.Type.FINISHED, 10), SECOND)).isFalse();
        assertThat(tracker.view(0).inFlight()).isEqualTo(1);
        assertThat(tracker.view(1).inFlight()).isZero();
    }

    @Test
    void queuedPrefillCountsUncachedPromptTokensUntilTheFirstToken() {
        tracker.admit("a", 0, 10_000, 100, 2_000, 0);
        tracker.admit("b", 0, 5_000, 100, 5_000, 0);
        assertThat(tracker.view(0).queuedPrefillTokens()).isEqualTo(7_000);
        tracker.onEvent(new RequestEvent("a", RequestEvent.Type.FIRST_TOKEN, 1), SECOND);
        assertThat(tracker.view(0).queuedPrefillTokens()).isEqualTo(5_000);
        // The engine's count (a sample) caps ours: our count keeps "b" whole until its first token.
        tracker.onTelemetry(new Telemetry(0, 2 * SECOND, 1, 1, 0, 1_200));
        assertThat(tracker.view(0).queuedPrefillTokens()).isEqualTo(1_200);
        tracker.admit("c", 0, 900, 10, 900, 3 * SECOND);
        assertThat(tracker.view(0).queuedPrefillTokens()).isEqualTo(2_100);
        tracker.onEvent(new RequestEvent("b", RequestEvent.Type.FINISHED, 100), 4 * SECOND);
        assertThat(tracker.view(0).queuedPrefillTokens()).isEqualTo(900);
    }

    @Test
    void queuedTierTokensCountEachRequestsLoadWithinItsPrompt() {
        tracker.admit("a", 0, 4_000, 100, 1_000, new long[] {0, 3_000, 0, 0}, 0);
        tracker.admit("b", 0, 4_000, 100, 0, new long[] {0, Long.MAX_VALUE, -5, 0}, 0); // past every caller's check
        assertThat(tracker.view(0).queuedTierTokens(1)).as("b counts its prompt at most").isEqualTo(7_000);
        assertThat(tracker.view(0).queuedTierTokens(2)).isZero();
        tracker.onEvent(new RequestEvent("b", RequestEvent.Type.FIRST_TOKEN, 1), SECOND);
        assertThat(tracker.view(0).queuedTierTokens(1)).isEqualTo(3_000);
    }

    @Test
    void ownKvAccountingCountsQueuedRequestsInsteadOfTheEngineSample() {
        tracker.admit("a", 0, 10_000, 100, 0);
        tracker.onTelemetry(new Telemetry(0, SECOND, 1, 0, 0)); // queued: the engine holds no blocks for it
        tracker.admit("b", 0, 2_000, 100, 2 * SECOND);
        assertThat(tracker.view(0).kvUsedTokens()).isEqualTo(2_000);
        tracker.ownKvAccounting(true);
        assertThat(tracker.view(0).kvUsedTokens()).isEqualTo(12_000);
    }

    @Test
    void aRequestPredictedAtOneTokenStillCountsOneWhileItRuns() {
        tracker.admit("a", 0, 100, 1, 0);
        tracker.onEvent(new RequestEvent("a", RequestEvent.Type.TOKENS, 50), 1);
        assertThat(tracker.view(0).decodeTokens()).isEqualTo(1);
        assertThat(tracker.view(0).kvUsedTokens()).isEqualTo(150);
    }

    @Test
    void telemetryIsTheBaseAndOwnAdmissionsSinceItGoOnTop() {
        tracker.admit("old", 0, 1000, 10, 1 * SECOND);
        tracker.onTelemetry(new Telemetry(0, 2 * SECOND, 7, 3, 20_000)); // includes "old" and other replicas' work
        tracker.admit("new", 0, 400, 10, 3 * SECOND);
        LoadView v = tracker.view(0);
        assertThat(v.waiting()).isEqualTo(7 + 1);
        assertThat(v.kvUsedTokens()).isEqualTo(20_000 + 400);
        assertThat(v.inFlight()).as("the cost model prices the requests it knows").isEqualTo(2);
        assertThat(v.engineInFlight()).as("the engine's running and waiting, and ours since").isEqualTo(7 + 3 + 1);
        assertThat(v.limitInFlight()).isEqualTo(11);

        // An older sample never replaces a newer one.
        tracker.onTelemetry(new Telemetry(0, 1 * SECOND, 0, 0, 0));
        assertThat(tracker.view(0).waiting()).isEqualTo(8);

        // Stale telemetry: back to our own counts.
        tracker.expire(8 * SECOND, id -> { });
        assertThat(tracker.view(0).waiting()).isEqualTo(2);
        assertThat(tracker.view(0).kvUsedTokens()).isEqualTo(1400);
        assertThat(tracker.view(0).limitInFlight()).isEqualTo(2);
    }

    @Test
    void ourRequestsTheSampleCountedLeaveTheEngineCountWhenTheyFinish() {
        tracker.admit("old", 0, 1000, 10, 1 * SECOND);
        tracker.onTelemetry(new Telemetry(0, 2 * SECOND, 0, 4, 0)); // "old" and three of other replicas
        tracker.admit("new", 0, 400, 10, 3 * SECOND);
        assertThat(tracker.view(0).engineInFlight()).isEqualTo(5);
        tracker.onEvent(new RequestEvent("old", RequestEvent.Type.FINISHED, 10), 4 * SECOND);
        assertThat(tracker.view(0).engineInFlight()).as("the sample counted it").isEqualTo(4);
        tracker.onEvent(new RequestEvent("new", RequestEvent.Type.FINISHED, 10), 4 * SECOND);
        assertThat(tracker.view(0).engineInFlight()).as("the sample never counted it").isEqualTo(3);
        tracker.onTelemetry(new Telemetry(0, 5 * SECOND, 0, 3, 0));
        assertThat(tracker.view(0).engineInFlight()).as("a new base counts from zero").isEqualTo(3);
    }

    @Test
    void requestsThatStopReportingExpire() {
        tracker.admit("lost", 1, 100, 10, 0);
        tracker.admit("alive", 1, 100, 10, 0);
        tracker.onEvent(new RequestEvent("alive", RequestEvent.Type.TOKENS, 5), 50 * SECOND);
        List<String> dropped = new ArrayList<>();
        assertThat(tracker.expire(61 * SECOND, dropped::add)).isEqualTo(1);
        assertThat(dropped).containsExactly("lost");
        assertThat(tracker.size()).isEqualTo(1);
        assertThat(tracker.workerOf("lost")).isEqualTo(-1);
        assertThat(tracker.view(1).inFlight()).isEqualTo(1);
    }

    @Test
    void duplicateIdsAndBadEventsAreRefused() {
        tracker.admit("a", 0, 1, 1, 0);
        assertThatThrownBy(() -> tracker.admit("a", 1, 1, 1, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new RequestEvent("a", RequestEvent.Type.TOKENS, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Telemetry(0, 0, -1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void incrementalSumsEqualARecountAfterRandomEvents() {
        SplittableRandom r = new SplittableRandom(11);
        java.util.Map<String, int[]> truth = new java.util.HashMap<>(); // id -> {worker, prompt, predicted, generated}
        for (int i = 0; i < 20_000; i++) {
            int op = r.nextInt(3);
            if (op == 0 || truth.isEmpty()) {
                String id = "r" + i;
                int[] t = {r.nextInt(2), r.nextInt(1, 5000), r.nextInt(1, 500), 0};
                tracker.admit(id, t[0], t[1], t[2], i);
                truth.put(id, t);
            } else {
                String id = truth.keySet().iterator().next();
                int[] t = truth.get(id);
                if (op == 1) {
                    t[3] += r.nextInt(1, 50);
                    tracker.onEvent(new RequestEvent(id, RequestEvent.Type.TOKENS, t[3]), i);
                } else {
                    tracker.onEvent(new RequestEvent(id, RequestEvent.Type.FINISHED, t[3]), i);
                    truth.remove(id);
                }
            }
        }
        for (int w = 0; w < 2; w++) {
            long d = 0, quad2 = 0, kv = 0;
            int n = 0;
            for (int[] t : truth.values()) {
                if (t[0] != w) continue;
                long rem = Math.max(1, t[2] - Math.min(t[3], 1));
                long ctx = t[1] + t[3];
                d += rem;
                quad2 += 2 * ctx * rem + rem * rem;
                kv += ctx;
                n++;
            }
            LoadView v = tracker.view(w);
            assertThat(v.inFlight()).isEqualTo(n);
            assertThat(v.decodeTokens()).isEqualTo(d);
            assertThat(v.decodeQuadraticTwice()).isEqualTo(quad2);
            assertThat(v.kvUsedTokens()).isEqualTo(kv);
        }
    }
}
