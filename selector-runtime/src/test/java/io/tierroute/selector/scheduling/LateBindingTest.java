package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static io.tierroute.selector.scheduling.HeldPrompts.BLOCK;
import static io.tierroute.selector.scheduling.HeldPrompts.prompt;
import static io.tierroute.selector.scheduling.HeldPrompts.storeInHbm;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Late binding: {@link SelectorSettings#holdAtWaiting}, a request is held centrally while every worker waits, then scored
 * over all; {@link SelectorSettings#holdAtCheapestWaiting}, while its cheapest worker waits, scored again at each drain.
 */
class LateBindingTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private int nextId;

    private Selector selector(int workers, int holdAtWaiting) {
        return selector(workers, holdAtWaiting, 0);
    }

    private Selector selector(int workers, int holdAtWaiting, int holdAtCheapestWaiting) {
        List<WorkerSpec> specs = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            specs.add(WorkerSpec.of("w" + w, 1_000_000));
        }
        SelectorSettings settings = SelectorSettings.builder(specs).blockSize(BLOCK).seed(7L)
                .holdAtWaiting(holdAtWaiting).holdAtCheapestWaiting(holdAtCheapestWaiting).build();
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

    /** Under holdAtCheapestWaiting 1, one request waiting on each worker, then {@code f}, its prompt in w1's HBM. */
    private record HeldForW1(Selector s, RouteDecision[] waiting, int[] prompt, CompletableFuture<RouteDecision> f) {}

    private HeldForW1 heldForW1(int seed) {
        Selector s = selector(2, 0, 1);
        int[] held = prompt(seed, 4096);
        storeInHbm(s, 1, held);
        RouteDecision[] waiting = oneWaitingEach(s);
        return new HeldForW1(s, waiting, held, s.route(request(held)));
    }

    @Test
    void heldForItsCheapestWorkerARequestWaitsForItThoughAnotherHasRoom() {
        HeldForW1 h = heldForW1(3);
        Selector s = h.s();
        RouteDecision[] waiting = h.waiting();
        CompletableFuture<RouteDecision> f = h.f();
        assertThat(f).isNotDone();
        clock.addAndGet(3_000_000);
        s.onRequestEvent(new RequestEvent(waiting[0].requestId(), RequestEvent.Type.FIRST_TOKEN, 1));
        // w0 has room now, but w1, which holds its 4,096 tokens, is still the cheapest, and has one waiting.
        assertThat(f).isNotDone();

        clock.addAndGet(2_000_000);
        s.onRequestEvent(new RequestEvent(waiting[1].requestId(), RequestEvent.Type.FIRST_TOKEN, 1));
        assertThat(f).isDone();
        assertThat(f.join().worker()).isEqualTo("w1");
        assertThat(f.join().queuedNanos()).isEqualTo(5_000_000);
    }

    @Test
    void heldForItsCheapestWorkerARequestGoesToAnotherOnceThatOneIsCheaper() {
        HeldForW1 h = heldForW1(50);
        Selector s = h.s();
        CompletableFuture<RouteDecision> f = h.f();
        assertThat(f).isNotDone();

        // Meanwhile w1 restarts with an empty cache, and another request computes the same prompt on w0.
        s.indexWriter().submit(List.of(new KvEvent.Cleared(1)));
        storeInHbm(s, 0, h.prompt());
        s.onRequestEvent(new RequestEvent(h.waiting()[0].requestId(), RequestEvent.Type.FIRST_TOKEN, 1));

        assertThat(f).as("w0 holds the prompt now, and has no request waiting").isDone();
        assertThat(f.join().worker()).isEqualTo("w0");
    }

    @Test
    void requestsHeldForABusyWorkerDoNotKeepAFreeOneFromTheRequestBehindThem() {
        Selector s = selector(2, 0, 1);
        RouteDecision[] waiting = oneWaitingEach(s);
        // More than a drain ranks again (RERANK_WINDOW), all cheap on w1 alone, so they come first in the queue.
        List<CompletableFuture<RouteDecision>> forW1 = new ArrayList<>();
        for (int i = 0; i < QueueDrain.RERANK_WINDOW + 2; i++) {
            int[] p = prompt(100 + i, 4096);
            storeInHbm(s, 1, p);
            forW1.add(s.route(request(p)));
        }
        int[] behind = prompt(99, 2048);
        storeInHbm(s, 0, Arrays.copyOf(behind, 1024)); // its cheapest worker is w0
        CompletableFuture<RouteDecision> last = s.route(request(behind));
        assertThat(last).isNotDone();

        s.onRequestEvent(new RequestEvent(waiting[0].requestId(), RequestEvent.Type.FIRST_TOKEN, 1));

        assertThat(last).as("the drain looks past the ranked window for a request w0 can take").isDone();
        assertThat(last.join().worker()).isEqualTo("w0");
        assertThat(forW1).as("w1 still has one waiting").noneMatch(CompletableFuture::isDone);
    }

    @Test
    void aRequestBehindMoreThanADrainScansIsReachedWithinAFewDrains() {
        Selector s = selector(2, 0, 1);
        RouteDecision[] waiting = oneWaitingEach(s);
        int ahead = 3 * QueueDrain.DRAIN_SCAN_LIMIT;
        for (int i = 0; i < ahead; i++) {
            int[] p = prompt(1_000 + i, 4096);
            storeInHbm(s, 1, p);
            s.route(request(p)); // held for w1
        }
        int[] behind = prompt(999, 2048);
        storeInHbm(s, 0, Arrays.copyOf(behind, 1024)); // its cheapest worker is w0
        CompletableFuture<RouteDecision> last = s.route(request(behind));

        s.onRequestEvent(new RequestEvent(waiting[0].requestId(), RequestEvent.Type.FIRST_TOKEN, 1));
        int drains = 1;
        while (!last.isDone() && drains < 4) {
            s.tick(); // a telemetry sample's drain, as each first token and finish
            drains++;
        }
        assertThat(last).as("reached within %d drains of %d requests each", drains, 2 * QueueDrain.DRAIN_SCAN_LIMIT)
                .isDone();
        assertThat(last.join().worker()).isEqualTo("w0");
        assertThat(s.queueLength()).as("the ones held for w1 still wait").isEqualTo(ahead);
    }

    @Test
    void anExploringPickNeverBindsARequestToAWorkerWithKWaiting() {
        List<WorkerSpec> specs = List.of(WorkerSpec.of("w0", 1_000_000), WorkerSpec.of("w1", 1_000_000),
                WorkerSpec.of("w2", 1_000_000));
        SelectorSettings settings = SelectorSettings.builder(specs).blockSize(BLOCK).explorationEpsilon(1.0)
                .holdAtCheapestWaiting(1).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(3);
        Selector s = new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(3)), clock::get);
        int[] onW0 = prompt(80, 64);
        storeInHbm(s, 0, onW0);
        String busy = s.route(request(onW0)).join().worker(); // explored: any of the three, now with one waiting
        int[] p = prompt(81, 4096);
        for (int i = 0; i < 50; i++) { // every pick explores (ε = 1), uniformly over the workers it may go to
            assertThat(s.preview(request(p)).worker()).isNotEqualTo(busy);
        }
    }

    @Test
    void withBothBoundsASecondRequestJoinsItsCheapestWorkerButNotAThirdThoughAnotherIsIdle() {
        Selector s = selector(2, 1, 2);
        // Long enough that recomputing one on w0 costs more than sharing w1's decode steps with the others.
        int[][] prompts = {prompt(60, 16_384), prompt(61, 16_384), prompt(62, 16_384)};
        for (int[] p : prompts) {
            storeInHbm(s, 1, p);
        }
        RouteDecision first = s.route(request(prompts[0])).join();
        RouteDecision second = s.route(request(prompts[1])).join();
        assertThat(first.worker()).isEqualTo("w1");
        assertThat(second.worker()).as("w0 has none waiting: the fleet-wide bound holds nothing").isEqualTo("w1");

        CompletableFuture<RouteDecision> third = s.route(request(prompts[2]));
        assertThat(third).as("its cheapest worker has two waiting; w0, idle, is not a place for it").isNotDone();
        assertThatThrownBy(() -> s.preview(request(prompts[2])))
                .isInstanceOf(NoCapacityException.class)
                .hasMessageContaining("holdAtCheapestWaiting");

        s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.FIRST_TOKEN, 1));
        assertThat(third).isDone();
        assertThat(third.join().worker()).isEqualTo("w1");
    }

    @Test
    void withBothBoundsOnAPreviewNamesTheOneThatHolds() {
        Selector s = selector(2, 1, 3);
        oneWaitingEach(s);
        assertThatThrownBy(() -> s.preview(request(prompt(90, 64))))
                .isInstanceOf(NoCapacityException.class)
                .hasMessageContaining("every worker the prompt fits has 1 or more")
                .hasMessageNotContaining("holdAtCheapestWaiting");
    }

    @Test
    void aCheapestWorkerBoundBelowTheFleetWideOneHoldsFirst() {
        Selector s = selector(2, 2, 1);
        oneWaitingEach(s);
        CompletableFuture<RouteDecision> f = s.route(request(prompt(91, 64)));
        assertThat(f).as("the fleet-wide bound (2) is not reached; the cheapest worker has 1 waiting").isNotDone();
        assertThatThrownBy(() -> s.preview(request(prompt(92, 64)))).hasMessageContaining("holdAtCheapestWaiting");
    }

    @Test
    void anExplainedRouteSaysWhichWorkerLateBindingLeftOut() {
        Selector s = selector(2, 0, 1);
        int[] p = prompt(70, 4096);
        int[] onW0 = prompt(71, 64);
        storeInHbm(s, 1, p);
        storeInHbm(s, 0, onW0);
        assertThat(s.route(request(onW0)).join().worker()).isEqualTo("w0");
        RouteRequest explained = new RouteRequest("explained", null, null, null, p, null, null, null, 512, 100, null,
                true);
        RouteDecision d = s.route(explained).join();
        assertThat(d.worker()).isEqualTo("w1");
        assertThat(d.candidates()).filteredOn(c -> c.worker().equals("w0")).singleElement()
                .satisfies(c -> {
                    assertThat(c.excludedBecause()).isEqualTo("late binding: holdAtCheapestWaiting (1) of this "
                            + "selector's requests waiting for their first token");
                    assertThat(c.cost()).as("scored, as a worker over its load limit is").isNotNull();
                });
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
        assertThatThrownBy(() -> SelectorSettings.builder(List.of(WorkerSpec.of("w", 1000))).holdAtCheapestWaiting(-2)
                .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holdAtCheapestWaiting must be ≥ 0, got -2");
        assertThatThrownBy(() -> SelectorSettings.builder(List.of(WorkerSpec.of("w", 1000))).holdAtCheapestWaiting(2)
                .maxQueued(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxQueued 0 turns off");
        assertThat(SelectorSettings.builder(List.of(WorkerSpec.of("w", 1000))).build().holdAtCheapestWaiting()).isZero();
    }
}
