package io.tierroute.selector.scheduling;

import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static io.tierroute.selector.scheduling.HeldPrompts.prompt;
import static io.tierroute.selector.scheduling.HeldPrompts.request;
import static io.tierroute.selector.scheduling.HeldPrompts.storeInHbm;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An arrival behind waiting requests joins the queue's order; when the queue is full it is placed at once where a
 * worker can take it, and refused ("the admission queue is full") only when none can.
 */
class FullQueueArrivalTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    /** Two workers, one request held for w1 (its prefix holder, with one waiting) in a queue of one place. */
    private Selector oneHeldForW1(int[] held) {
        Selector s = HeldPrompts.selector(2, clock::get, b -> b.holdAtCheapestWaiting(1).maxQueued(1).spreadWithin(0));
        storeInHbm(s, 1, held);
        assertThat(s.route(request("a", held)).join().worker()).isEqualTo("w1");
        assertThat(s.route(request("b", held))).as("held for w1, which has a waiting").isNotDone();
        assertThat(s.queueLength()).isEqualTo(1);
        return s;
    }

    @Test
    void aShortPromptAWorkerCanTakeNowIsPlacedThoughTheQueueIsFull() {
        int[] held = prompt(1, 32_768);
        Selector s = oneHeldForW1(held);
        int[] small = prompt(2, 64);
        assertThat(s.preview(request("c", small)).worker()).isEqualTo("w0");

        CompletableFuture<RouteDecision> c = s.route(request("c", small));
        assertThat(c).as("placed, not a 503").isCompletedWithValueMatching(d -> d.worker().equals("w0"));
        assertThat(s.rejectedCount()).isZero();
        assertThat(s.routedCount()).isEqualTo(2);
        assertThat(s.inflight().view(0).inFlight()).isEqualTo(1);
        assertThat(s.queueLength()).as("b keeps its place").isEqualTo(1);
    }

    @Test
    void oneNoWorkerCanTakeIsRefusedSayingTheQueueIsFull() {
        int[] held = prompt(3, 32_768);
        Selector s = oneHeldForW1(held);
        CompletableFuture<RouteDecision> d = s.route(request("d", held)); // held for w1 as b is
        assertThatThrownBy(d::join).hasCauseInstanceOf(NoCapacityException.class)
                .hasMessageContaining("the admission queue is full (1 requests) and no worker can take the request now");
        assertThat(s.rejectedCount()).isEqualTo(1);

        s.onRequestEvent(new RequestEvent("a", RequestEvent.Type.FIRST_TOKEN, 1));
        assertThat(s.queueLength()).as("the held one still goes first").isZero();
    }
}
