package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static io.tierroute.selector.scheduling.HeldPrompts.BLOCK;
import static io.tierroute.selector.scheduling.HeldPrompts.prompt;
import static io.tierroute.selector.scheduling.HeldPrompts.storeInHbm;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link SelectorSettings#holdAtWaiting}: a request is held centrally while every worker waits, then scored over all. */
class LateBindingTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private int nextId;

    private Selector selector(int workers, int holdAtWaiting) {
        List<WorkerSpec> specs = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            specs.add(WorkerSpec.of("w" + w, 1_000_000));
        }
        SelectorSettings settings = SelectorSettings.builder(specs).blockSize(BLOCK).seed(7L)
                .holdAtWaiting(holdAtWaiting).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(workers);
        return new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(workers)), clock::get);
    }

    private RouteRequest request(int[] tokens) {
        return HeldPrompts.request("r" + (nextId++), tokens);
    }

    /** One request waiting for its first token on each of the two workers; returns them by worker index. */
    private RouteDecision[] oneWaitingEach(Selector s) {
        RouteDecision a = s.route(request(prompt(1, 64))).join();
        CompletableFuture<RouteDecision> second = s.route(request(prompt(2, 64)));
        assertThat(second).as("w%d still has no request waiting", 1 - a.workerIndex()).isDone();
        RouteDecision b = second.join();
        assertThat(b.workerIndex()).isNotEqualTo(a.workerIndex());
        RouteDecision[] byWorker = new RouteDecision[2];
        byWorker[a.workerIndex()] = a;
        byWorker[b.workerIndex()] = b;
        return byWorker;
    }

    @Test
    void aRequestWaitsWhileEveryWorkerHasOneWaitingThenGoesToItsPrefixHolderOnceAnyWorkerHasRoom() {
        Selector s = selector(2, 1);
        int[] held = prompt(3, 4096);
        storeInHbm(s, 1, held);
        RouteDecision[] waiting = oneWaitingEach(s);

        CompletableFuture<RouteDecision> f = s.route(request(held));
        assertThat(f).as("both workers have a request waiting for its first token").isNotDone();
        assertThat(s.queueLength()).isEqualTo(1);

        clock.addAndGet(3_000_000);
        s.onRequestEvent(new RequestEvent(waiting[0].requestId(), RequestEvent.Type.FIRST_TOKEN, 1));

        // w0 has room now, but the request is scored over both: w1 still has one waiting and holds its 4,096 tokens.
        // (A worker filter, maxWaiting 1, would have bound it to w0 and recomputed the prompt there.)
        assertThat(f).isDone();
        assertThat(f.join().worker()).isEqualTo("w1");
        assertThat(f.join().queuedNanos()).isEqualTo(3_000_000);
        assertThat(s.queueLength()).isZero();
    }

    @Test
    void heldRequestsAreBoundCheapestFirst() {
        Selector s = selector(1, 1);
        RouteDecision first = s.route(request(prompt(4, 64))).join();
        CompletableFuture<RouteDecision> big = s.route(request(prompt(5, 8192)));
        CompletableFuture<RouteDecision> small = s.route(request(prompt(6, 64)));
        assertThat(big).isNotDone();
        assertThat(small).isNotDone();

        s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.FIRST_TOKEN, 1));

        assertThat(small).as("the cheaper one goes first, though it came second").isDone();
        assertThat(big).as("the small one now waits for its first token: the worker waits again").isNotDone();

        s.onRequestEvent(new RequestEvent(small.join().requestId(), RequestEvent.Type.FIRST_TOKEN, 1));
        assertThat(big).isDone();
    }

    @Test
    void aDrainPlacesTheRequestCheapestNowNotTheOneCheapestAtItsArrival() {
        Selector s = selector(2, 1);
        RouteDecision[] waiting = oneWaitingEach(s);
        int[] shortPrompt = prompt(30, 1024);
        int[] longPrompt = prompt(31, 4096);
        CompletableFuture<RouteDecision> cheapAtArrival = s.route(request(shortPrompt));
        CompletableFuture<RouteDecision> cheapNow = s.route(request(longPrompt));
        assertThat(cheapAtArrival).isNotDone();
        assertThat(cheapNow).isNotDone();

        // While both wait, the long prompt's 4,096 tokens land in w1's HBM (another request computed them): from now
        // on it costs w1 one block, less than the short prompt's 1,024 tokens anywhere.
        storeInHbm(s, 1, longPrompt);
        s.onRequestEvent(new RequestEvent(waiting[1].requestId(), RequestEvent.Type.FIRST_TOKEN, 1));

        assertThat(cheapNow).as("ranked by its cost now, the long prompt goes first").isDone();
        assertThat(cheapNow.join().worker()).isEqualTo("w1");
        assertThat(cheapAtArrival).as("w1 has a request waiting again: every worker waits").isNotDone();

        s.onRequestEvent(new RequestEvent(waiting[0].requestId(), RequestEvent.Type.FIRST_TOKEN, 1));
        assertThat(cheapAtArrival).isDone();
        assertThat(cheapAtArrival.join().worker()).isEqualTo("w0");
    }

    @Test
    void aRequestCancelledWhileHeldIsNeitherRankedNorPlaced() {
        Selector s = selector(2, 1);
        RouteDecision[] waiting = oneWaitingEach(s);
        int[] longPrompt = prompt(41, 4096);
        CompletableFuture<RouteDecision> other = s.route(request(prompt(40, 1024)));
        CompletableFuture<RouteDecision> cancelled = s.route(request(longPrompt));
        storeInHbm(s, 1, longPrompt); // it would be the cheapest now
        cancelled.cancel(false);

        s.onRequestEvent(new RequestEvent(waiting[1].requestId(), RequestEvent.Type.FIRST_TOKEN, 1));

        assertThat(other).isDone();
        assertThat(s.queueLength()).isZero();
        assertThat(s.inflight().size()).as("the two first ones and the other; not the cancelled one").isEqualTo(3);
    }

    @Test
    void aFinishWithNoOutputEventBeforeAlsoReleasesTheHeldRequest() {
        Selector s = selector(1, 1);
        RouteDecision first = s.route(request(prompt(7, 64))).join();
        CompletableFuture<RouteDecision> held = s.route(request(prompt(8, 64)));
        assertThat(held).isNotDone();

        s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.FINISHED, 8)); // no first_token posted

        assertThat(held).isDone();
    }

    @Test
    void aPreviewWhileEveryWorkerWaitsSaysTheRequestWouldBeHeld() {
        Selector s = selector(2, 1);
        oneWaitingEach(s);
        assertThatThrownBy(() -> s.preview(request(prompt(6, 64))))
                .isInstanceOf(NoCapacityException.class)
                .hasMessageContaining("holdAtWaiting")
                .hasMessageContaining("admission queue");
    }

    @Test
    void twoWaitingPerWorkerHoldOnlyTheFifthRequest() {
        Selector s = selector(2, 2);
        for (int i = 0; i < 4; i++) {
            assertThat(s.route(request(prompt(10 + i, 64)))).isDone();
        }
        assertThat(s.route(request(prompt(20, 64)))).isNotDone();
    }

    @Test
    void offByDefaultEveryRequestIsBoundAtOnce() {
        Selector s = selector(2, 0);
        oneWaitingEach(s);
        for (int i = 0; i < 8; i++) {
            assertThat(s.route(request(prompt(30 + i, 64)))).isDone();
        }
        assertThat(SelectorSettings.builder(List.of(WorkerSpec.of("w", 1000))).build().holdAtWaiting()).isZero();
    }

    @Test
    void aNegativeLimitIsRefused() {
        assertThatThrownBy(() -> SelectorSettings.builder(List.of(WorkerSpec.of("w", 1000))).holdAtWaiting(-1).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holdAtWaiting must be ≥ 0, got -1");
    }
}
