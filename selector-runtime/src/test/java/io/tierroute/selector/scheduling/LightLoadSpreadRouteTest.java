package io.tierroute.selector.scheduling;

import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sequences.Telemetry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import static io.tierroute.selector.scheduling.HeldPrompts.prompt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SelectorSettings#spreadWithin} through the selector, default parameters, two workers: w0 holds six requests
 * (sent there by a 120 k-token hit, worth more than the spread's 100 ms) and caches a 4 k-token prompt; w1 is idle.
 * The cost model alone sends the 4 k-token prompt to its hit on w0; the spread sends it to w1, explains why and counts
 * it; within K, or off, it goes to w0. Under late binding the spread runs first: with w1's one request still waiting
 * for its first token, the request is held for w1 (and a preview says why), not bound to w0's fuller batch.
 */
class LightLoadSpreadRouteTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private int nextId;

    private RouteRequest request(int[] tokens, boolean explain) {
        // One output token expected: w0's in-flight decode adds little cost, its hit decides.
        return new RouteRequest("r" + (nextId++), null, null, null, tokens, null, null, null, 512, 1, null, explain);
    }

    /** A selector whose w0 holds six requests and caches {@link #shared()}. */
    private Selector loaded(int spreadWithin) {
        return loaded(b -> b.spreadWithin(spreadWithin));
    }

    private Selector loaded(UnaryOperator<SelectorSettings.Builder> settings) {
        Selector s = HeldPrompts.selector(2, clock::get, settings);
        List<RouteDecision> onW0 = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int[] large = prompt(10 + i, 120_000);
            HeldPrompts.storeInHbm(s, 0, large);
            RouteDecision d = s.route(request(large, false)).join();
            assertThat(d.workerIndex()).as("a 120 k-token hit stays on w0").isZero();
            s.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FIRST_TOKEN, 1)); // decoding there
            clock.addAndGet(1_000_000L);
        }
        HeldPrompts.storeInHbm(s, 0, shared());
        return s;
    }

    private static int[] shared() {
        return prompt(1, 4_000);
    }

    @Test
    void aSmallHitOnAWorkerFarBusierThanTheIdleOneGoesToTheIdleOne() {
        Selector s = loaded(4);
        RouteDecision d = s.route(request(shared(), true)).join();
        assertThat(d.workerIndex()).isEqualTo(1);
        assertThat(d.candidates().get(0).excludedBecause()).startsWith("light-load spread: more than spreadWithin (4)");
        assertThat(d.candidates().get(0).cost()).as("scored").isNotNull();
        assertThat(d.spread()).as("flagged in the decision").isTrue();
        assertThat(d.explored()).as("the argmin of the workers left").isFalse();
        assertThat(s.spreadCount()).isEqualTo(1);
    }

    @Test
    void aWorkerOtherReplicasFilledCountsAsBusy() {
        Selector s = HeldPrompts.selector(2, clock::get, b -> b.spreadWithin(4));
        HeldPrompts.storeInHbm(s, 0, shared());
        assertThat(s.preview(request(shared(), false)).workerIndex()).as("nothing of ours in flight: the hit").isZero();

        s.onTelemetry(new Telemetry(0, clock.get(), 0, 6, 0)); // six running there, sent by other replicas
        s.onTelemetry(new Telemetry(1, clock.get(), 0, 0, 0));
        RouteDecision d = s.route(request(shared(), true)).join();
        assertThat(d.workerIndex()).isEqualTo(1);
        assertThat(d.candidates().get(0).excludedBecause()).startsWith("light-load spread");
    }

    @Test
    void withinKOrOffTheHitDecides() {
        Selector within = loaded(6);
        RouteDecision kept = within.route(request(shared(), false)).join();
        assertThat(kept.workerIndex()).isZero();
        assertThat(kept.spread()).isFalse();
        assertThat(within.spreadCount()).isZero();

        Selector off = loaded(0);
        assertThat(off.route(request(shared(), false)).join().workerIndex()).isZero();
        assertThat(off.spreadCount()).isZero();
    }

    @Test
    void underLateBindingTheSpreadRunsFirstAndAHoldSaysSo() {
        Selector s = loaded(b -> b.spreadWithin(4).holdAtWaiting(1));
        int[] onW1 = prompt(2, 120_000);
        HeldPrompts.storeInHbm(s, 1, onW1);
        RouteDecision waiting = s.route(request(onW1, false)).join();
        assertThat(waiting.workerIndex()).isEqualTo(1);

        CompletableFuture<RouteDecision> held = s.route(request(shared(), false));
        assertThat(held).as("w0 left out (6 in flight, 1 on w1), w1 has one waiting").isNotDone();
        assertThatThrownBy(() -> s.preview(request(shared(), false)))
                .isInstanceOf(NoCapacityException.class)
                .hasMessageContaining("the light-load spread left in the pick (spreadWithin 4");

        s.onRequestEvent(new RequestEvent(waiting.requestId(), RequestEvent.Type.FIRST_TOKEN, 1));
        assertThat(held).isDone();
        assertThat(held.join().workerIndex()).isEqualTo(1);
        assertThat(s.spreadCount()).isEqualTo(1);
    }
}
