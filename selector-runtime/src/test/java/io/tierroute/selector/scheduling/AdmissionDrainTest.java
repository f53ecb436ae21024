package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static io.tierroute.selector.scheduling.HeldPrompts.BLOCK;
import static io.tierroute.selector.scheduling.HeldPrompts.prompt;
import static io.tierroute.selector.scheduling.HeldPrompts.storeInHbm;
import static org.assertj.core.api.Assertions.assertThat;

/** Requests queued behind workers over their load limits leave the queue cheapest at the drain, not at arrival. */
class AdmissionDrainTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private int nextId;

    /** One worker that takes one request at a time; late binding off. */
    private Selector oneAtATime() {
        WorkerSpec base = WorkerSpec.of("w0", 1_000_000);
        WorkerSpec spec = new WorkerSpec(base.name(), base.kvCapacityTokens(), base.bandwidth(), false, 1, 0);
        SelectorSettings settings = SelectorSettings.builder(List.of(spec)).blockSize(BLOCK).seed(7L).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(1);
        return new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(1)), clock::get);
    }

    private RouteRequest request(int[] tokens) {
        return HeldPrompts.request("q" + (nextId++), tokens);
    }

    @Test
    void aFreedSlotGoesToTheRequestCheapestNow() {
        Selector s = oneAtATime();
        RouteDecision running = s.route(request(prompt(1, 64))).join();
        int[] longPrompt = prompt(3, 4096);
        CompletableFuture<RouteDecision> cheapAtArrival = s.route(request(prompt(2, 1024)));
        CompletableFuture<RouteDecision> cheapNow = s.route(request(longPrompt));
        assertThat(s.queueLength()).as("the worker is at its limit of one").isEqualTo(2);

        storeInHbm(s, 0, longPrompt); // its 4,096 tokens land in w0's HBM while it waits
        s.onRequestEvent(new RequestEvent(running.requestId(), RequestEvent.Type.FINISHED, 8));

        assertThat(cheapNow).isDone();
        assertThat(cheapAtArrival).as("the worker is at its limit again").isNotDone();
    }
}
