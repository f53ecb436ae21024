package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.OutputLengthModel;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
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
 * A drain reads one parameter set, the one active when it starts: its overdue check, its re-ranking dry runs and its
 * placement are priced alike even when a hot reload swaps the set in the middle of it. Here every output-length
 * prediction made once the swapping is armed swaps the active set (A, then B, then A…), as a reload landing between
 * any two attempts would; each set's model records that it was the one asked.
 *
 * <p>One worker of 10,000 KV tokens under late binding ({@code holdAtWaiting} 1): every request behind the first
 * waits and a first token places one. Two wait without a hint, so each set's model predicts their output: A says
 * {@code long} (128 tokens) decodes 1 token and {@code short} (64) 20,000, which overflow the KV cache and make it the
 * expensive one; B says the opposite. Priced under one set, A, {@code long} is the cheaper; its dry run under A and
 * {@code short}'s under B would rank {@code short} first.
 */
class QueueDrainParameterSetTest {

    private static final long SECOND = 1_000_000_000L;
    private static final int LONG_PROMPT = 128;
    private static final int SHORT_PROMPT = 64;
    private static final int MAX_TOKENS = 20_000;

    private final AtomicLong clock = new AtomicLong(SECOND);
    private final List<String> asked = new ArrayList<>(); // which set's model predicted, once armed
    private boolean armed;
    private ParameterStore store;
    private ParameterSet a;
    private ParameterSet b;

    /** {@code cheap}'s prompt length decodes 1 token under this set; any other, {@link #MAX_TOKENS}. */
    private OutputLengthModel model(String name, int cheap) {
        return (features, quantile) -> {
            if (armed) {
                asked.add(name);
                store.activate(store.current() == a ? b : a); // a reload lands before the next attempt
            }
            return features.inputTokens() == cheap ? 1 : MAX_TOKENS;
        };
    }

    private Selector selector(Duration overdueAfter) {
        a = ParameterSet.builder(1).version(1).source("A").outputModel(model("A", LONG_PROMPT)).build();
        b = ParameterSet.builder(1).version(2).source("B").outputModel(model("B", SHORT_PROMPT)).build();
        store = new ParameterStore(a);
        SelectorSettings settings = SelectorSettings.builder(List.of(WorkerSpec.of("w0", 10_000)))
                .blockSize(HeldPrompts.BLOCK).seed(7L).holdAtWaiting(1).queueAgeWeight(0)
                .queueOverdueAfter(overdueAfter).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(1);
        return new Selector(settings, index, new DirectIndexWriter(index), store, clock::get);
    }

    /** No hint: the active set's model predicts its output. */
    private static RouteRequest unhinted(String id, int[] tokens) {
        return new RouteRequest(id, null, null, null, tokens, null, null, null, MAX_TOKENS, null, null, false);
    }

    /** The first request placed (hinted: no model asked), then {@code long} and {@code short} queued 10 s later. */
    private record Queued(Selector s, RouteDecision first, CompletableFuture<RouteDecision> longOne,
                          CompletableFuture<RouteDecision> shortOne) {}

    private Queued queued(Duration overdueAfter) {
        Selector s = selector(overdueAfter);
        RouteDecision first = s.route(HeldPrompts.request("first", prompt(1, 64))).join();
        clock.addAndGet(SECOND);
        CompletableFuture<RouteDecision> longOne = s.route(unhinted("long", prompt(2, LONG_PROMPT)));
        CompletableFuture<RouteDecision> shortOne = s.route(unhinted("short", prompt(3, SHORT_PROMPT)));
        assertThat(longOne).isNotDone();
        assertThat(shortOne).isNotDone();
        assertThat(store.current()).isSameAs(a);
        clock.addAndGet(10 * SECOND);
        return new Queued(s, first, longOne, shortOne);
    }

    @Test
    void theReRankingAndThePlacementOfOneDrainArePricedUnderTheSetActiveAtItsStart() {
        Queued q = queued(Duration.ZERO); // no overdue check: the cost order alone
        armed = true;
        q.s().onRequestEvent(new RequestEvent(q.first().requestId(), RequestEvent.Type.FIRST_TOKEN, 1)); // one drain

        assertThat(q.longOne()).as("the cheaper under A").isDone();
        assertThat(q.shortOne()).isNotDone();
        assertThat(asked).as("two dry runs and a placement, at least").hasSizeGreaterThanOrEqualTo(3)
                .as("every attempt of the drain priced under A, though each one swapped the active set")
                .containsOnly("A");
        assertThat(q.longOne().join().snapshotVersion()).isEqualTo(a.version());
    }

    @Test
    void theOverdueCheckAndThePlacementItLeadsToArePricedUnderTheSetActiveAtTheDrainsStart() {
        Queued q = queued(Duration.ofSeconds(5)); // both overdue: the longer-waiting, long, goes first
        long dryRunsBefore = q.s().drainDryRunCount();
        armed = true;
        q.s().onRequestEvent(new RequestEvent(q.first().requestId(), RequestEvent.Type.FIRST_TOKEN, 1));

        assertThat(q.s().drainDryRunCount() - dryRunsBefore).as("the overdue check's alone: no re-ranking")
                .isEqualTo(1);
        assertThat(q.longOne()).isDone();
        assertThat(q.shortOne()).isNotDone();
        assertThat(asked).as("its dry run and its placement, at least").hasSizeGreaterThanOrEqualTo(2)
                .containsOnly("A");
        assertThat(q.longOne().join().snapshotVersion()).isEqualTo(a.version());
    }
}
