package io.tierroute.selector.scheduling;

import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static io.tierroute.selector.scheduling.HeldPrompts.prompt;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SelectorSettings#queueAgeWeight} through the selector: one worker under late binding ({@code holdAtWaiting}
 * 1), so every arrival behind the first waits in the admission queue and each first token places one. An expensive
 * prompt that has waited 10 s is placed before cheap ones that arrived since; unaged, the cheap ones go first, and
 * sixteen of them keep it out of the drain's window.
 */
class QueueAgeingTest {

    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong clock = new AtomicLong(SECOND);
    private int nextId;

    private Selector selector(double queueAgeWeight) {
        return HeldPrompts.selector(1, clock::get, b -> b.holdAtWaiting(1).queueAgeWeight(queueAgeWeight)
                .queueOverdueAfter(Duration.ZERO)); // the order alone
    }

    private RouteRequest request(int[] tokens) {
        return HeldPrompts.request("r" + (nextId++), tokens);
    }

    /** The first request, placed at once; {@code expensive} then waits, and after 10 s {@code cheap} cheap ones. */
    private record Queued(Selector s, RouteDecision first, CompletableFuture<RouteDecision> expensive,
                          List<CompletableFuture<RouteDecision>> cheap) {}

    private Queued queued(double weight, int cheap) {
        Selector s = selector(weight);
        RouteDecision first = s.route(request(prompt(1, 64))).join();
        CompletableFuture<RouteDecision> expensive = s.route(request(prompt(2, 8_192)));
        clock.addAndGet(10 * SECOND);
        List<CompletableFuture<RouteDecision>> cheapOnes = new ArrayList<>();
        for (int i = 0; i < cheap; i++) {
            cheapOnes.add(s.route(request(prompt(10 + i, 64))));
            clock.addAndGet(SECOND / 1000);
        }
        assertThat(expensive).isNotDone();
        assertThat(cheapOnes).allSatisfy(f -> assertThat(f).isNotDone());
        s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.FIRST_TOKEN, 1)); // room for one
        return new Queued(s, first, expensive, cheapOnes);
    }

    @Test
    void anExpensiveRequestThatHasWaitedIsPlacedBeforeCheaperLaterOnes() {
        Queued aged = queued(0.3, 1);
        assertThat(aged.expensive()).as("10 s waited: 3 s of cost made up").isDone();
        assertThat(aged.cheap().get(0)).isNotDone();

        Queued unaged = queued(0, 1);
        assertThat(unaged.cheap().get(0)).as("cheapest first").isDone();
        assertThat(unaged.expensive()).isNotDone();
    }

    @Test
    void sixteenCheaperArrivalsDoNotKeepAnAgedRequestOutOfTheDrainsWindow() {
        Queued aged = queued(0.3, QueueDrain.RERANK_WINDOW);
        assertThat(aged.expensive()).isDone();

        Queued unaged = queued(0, QueueDrain.RERANK_WINDOW);
        assertThat(unaged.expensive()).as("17th in the queue's order: outside the window").isNotDone();
        assertThat(unaged.cheap().stream().filter(CompletableFuture::isDone).count()).isEqualTo(1);
    }
}
