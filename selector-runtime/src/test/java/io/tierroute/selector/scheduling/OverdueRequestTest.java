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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SelectorSettings#queueOverdueAfter} through the selector: one worker under late binding ({@code holdAtWaiting}
 * 1), the queue unaged (cheapest first), so every arrival behind the first waits and each first token places one. An
 * expensive prompt that has waited past the limit is placed before the cheap ones that arrived since, even when more
 * of them than the drain re-ranks keep it far down the cost order; below the limit, or with it off, the cheap ones go
 * first; of two overdue requests the longer-waiting goes first.
 */
class OverdueRequestTest {

    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong clock = new AtomicLong(SECOND);
    private int nextId;

    private Selector selector(Duration overdueAfter) {
        return HeldPrompts.selector(1, clock::get, b -> b.holdAtWaiting(1).queueAgeWeight(0)
                .queueOverdueAfter(overdueAfter));
    }

    private RouteRequest request(int[] tokens) {
        return HeldPrompts.request("r" + (nextId++), tokens);
    }

    /** The first request placed at once; then {@code expensive} ones, 1 s apart; 10 s later {@code cheap} cheap ones. */
    private record Queued(Selector s, List<CompletableFuture<RouteDecision>> expensive,
                          List<CompletableFuture<RouteDecision>> cheap) {}

    private Queued queued(Duration overdueAfter, int expensive, int cheap) {
        Selector s = selector(overdueAfter);
        RouteDecision first = s.route(request(prompt(1, 64))).join();
        List<CompletableFuture<RouteDecision>> expensiveOnes = new ArrayList<>();
        for (int i = 0; i < expensive; i++) {
            expensiveOnes.add(s.route(request(prompt(2 + i, 8_192 - 16 * i)))); // the later, the cheaper
            clock.addAndGet(SECOND);
        }
        clock.addAndGet(10 * SECOND);
        List<CompletableFuture<RouteDecision>> cheapOnes = new ArrayList<>();
        for (int i = 0; i < cheap; i++) {
            cheapOnes.add(s.route(request(prompt(100 + i, 64))));
            clock.addAndGet(SECOND / 1000);
        }
        assertThat(expensiveOnes).allSatisfy(f -> assertThat(f).isNotDone());
        assertThat(cheapOnes).allSatisfy(f -> assertThat(f).isNotDone());
        s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.FIRST_TOKEN, 1)); // room for one
        return new Queued(s, expensiveOnes, cheapOnes);
    }

    private static long done(List<CompletableFuture<RouteDecision>> fs) {
        return fs.stream().filter(CompletableFuture::isDone).count();
    }

    @Test
    void anOverdueRequestIsPlacedBeforeCheaperOnesFarAheadOfItInTheCostOrder() {
        Queued q = queued(Duration.ofSeconds(5), 1, 2 * QueueDrain.RERANK_WINDOW);
        assertThat(q.expensive().get(0)).as("waited 11 s, over the 5 s limit").isDone();
        assertThat(done(q.cheap())).isZero();
        assertThat(q.s().overduePlacedCount()).isEqualTo(1);
    }

    @Test
    void belowTheLimitOrWithItOffTheCheapestGoesFirst() {
        Queued below = queued(Duration.ofSeconds(30), 1, 2 * QueueDrain.RERANK_WINDOW);
        assertThat(below.expensive().get(0)).as("waited 11 s of 30").isNotDone();
        assertThat(done(below.cheap())).isEqualTo(1);
        assertThat(below.s().overduePlacedCount()).isZero();

        Queued off = queued(Duration.ZERO, 1, 2 * QueueDrain.RERANK_WINDOW);
        assertThat(off.expensive().get(0)).isNotDone();
        assertThat(done(off.cheap())).isEqualTo(1);
    }

    @Test
    void anOverdueRequestThatLeadsTheCostOrderAnywayIsPlacedButNotCountedAsPlacedAheadOfIt() {
        Selector s = selector(Duration.ofSeconds(5));
        RouteDecision first = s.route(request(prompt(1, 64))).join();
        CompletableFuture<RouteDecision> cheapOld = s.route(request(prompt(2, 64)));
        clock.addAndGet(10 * SECOND);
        CompletableFuture<RouteDecision> expensiveNew = s.route(request(prompt(3, 8_192)));
        s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.FIRST_TOKEN, 1));
        assertThat(cheapOld).isDone();
        assertThat(expensiveNew).isNotDone();
        assertThat(s.overduePlacedCount()).isZero();
    }

    /**
     * Four requests held for w0 (their cheapest, with its bound of one waiting there) while w1 has room, then a request
     * no worker holds arrives and goes to w1: the drains' dry runs with the four overdue, against the same with overdue
     * off. The overdue check tries the four first and finds none placeable; the re-ranking that follows at the same
     * instant does not try them again.
     */
    @Test
    void overdueRequestsFoundUnplaceableAreNotDryRunAgainByTheReRanking() {
        assertThat(dryRunsPlacingAFreshRequestPastFourHeld(Duration.ofSeconds(1)))
                .isEqualTo(dryRunsPlacingAFreshRequestPastFourHeld(Duration.ZERO));
    }

    private long dryRunsPlacingAFreshRequestPastFourHeld(Duration overdueAfter) {
        Selector s = HeldPrompts.selector(2, clock::get, b -> b.holdAtWaiting(1).holdAtCheapestWaiting(1)
                .queueOverdueAfter(overdueAfter));
        int[] hot = prompt(1, 16_384);
        HeldPrompts.storeInHbm(s, 0, hot);
        List<CompletableFuture<RouteDecision>> onW0 = new ArrayList<>();
        for (int i = 0; i < 5; i++) { // one output token each: w0's hit decides, not its decode
            onW0.add(s.route(new RouteRequest("hot" + i, null, null, null, hot, null, null, null, 512, 1, null, false)));
        }
        assertThat(onW0.get(0).join().workerIndex()).isZero();
        assertThat(onW0.subList(1, 5)).allSatisfy(f -> assertThat(f).as("held for w0").isNotDone());
        clock.addAndGet(2 * SECOND);

        long before = s.drainDryRunCount();
        RouteDecision fresh = s.route(request(prompt(2, 64))).join();
        assertThat(fresh.workerIndex()).isEqualTo(1);
        assertThat(onW0.subList(1, 5)).allSatisfy(f -> assertThat(f).isNotDone());
        long dryRuns = s.drainDryRunCount() - before;
        assertThat(dryRuns).as("the four held and the fresh one, at least").isGreaterThanOrEqualTo(5);
        return dryRuns;
    }

    @Test
    void itsLimitIsCheckedWhereTheSettingsAreBuilt() {
        for (Duration bad : List.of(Duration.ofSeconds(-1), SelectorSettings.MAX_OVERDUE_AFTER.plusSeconds(1))) {
            assertThatThrownBy(() -> SelectorSettings.builder(List.of(WorkerSpec.of("w0", 1_000))).queueOverdueAfter(bad)
                    .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queueOverdueAfter");
        }
    }

    @Test
    void ofTwoOverdueRequestsTheLongerWaitingGoesFirstThoughTheOtherIsCheaper() {
        Queued q = queued(Duration.ofSeconds(5), 2, 1);
        assertThat(q.expensive().get(0)).as("waited 13 s").isDone();
        assertThat(q.expensive().get(1)).as("waited 12 s, and cheaper").isNotDone();
        assertThat(q.cheap().get(0)).isNotDone();
    }
}
