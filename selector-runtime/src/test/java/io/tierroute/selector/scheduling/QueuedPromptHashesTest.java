package io.tierroute.selector.scheduling;

import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static io.tierroute.selector.scheduling.HeldPrompts.prompt;
import static io.tierroute.selector.scheduling.HeldPrompts.storeInHbm;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A held request's prompt hashes go into the admission queue with it, and the drains that try it again read and extend
 * them there ({@link PromptHashes}; {@code PromptLookupTest} pins that they give the lookup's answer).
 */
class QueuedPromptHashesTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    @Test
    void theArrivalsHashesAreKeptAndADrainExtendsThem() {
        Selector s = HeldPrompts.selector(2, clock::get, b -> b.holdAtCheapestWaiting(1));
        RouteDecision first = s.route(HeldPrompts.request("a", prompt(1, 64))).join();
        RouteDecision second = s.route(HeldPrompts.request("b", prompt(2, 64))).join();
        assertThat(first.workerIndex()).isNotEqualTo(second.workerIndex());
        int[] held = prompt(3, 4096); // 256 blocks
        storeInHbm(s, 1, Arrays.copyOf(held, 512)); // 32 of them on w1: the arrival hashes the first stage, 64

        CompletableFuture<RouteDecision> f = s.route(HeldPrompts.request("held", held));
        assertThat(f).as("both workers have one waiting").isNotDone();
        assertThat(s.keptHashBlocks("held")).isEqualTo(PromptLookup.FIRST_STAGE_BLOCKS);

        storeInHbm(s, 1, held); // the whole prompt lands on w1 while it waits
        RouteDecision onW0 = first.workerIndex() == 0 ? first : second;
        s.onRequestEvent(new RequestEvent(onW0.requestId(), RequestEvent.Type.FIRST_TOKEN, 1));
        assertThat(f).as("w1, its cheapest worker, still has one waiting").isNotDone();
        assertThat(s.keptHashBlocks("held")).as("the drain's attempts hashed it as deep as w1 matches")
                .isEqualTo(256);
        assertThat(s.keptHashBlocks("a")).as("not queued").isEqualTo(-1);
    }
}
