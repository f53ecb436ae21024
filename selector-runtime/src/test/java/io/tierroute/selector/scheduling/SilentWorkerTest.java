package io.tierroute.selector.scheduling;

import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sequences.Telemetry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import static io.tierroute.selector.scheduling.HeldPrompts.prompt;
import static io.tierroute.selector.scheduling.HeldPrompts.storeInHbm;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SelectorSettings#holdAtCheapestSilentAfter}: a worker where this selector's requests wait, and that has shown no
 * work for that long (a hung engine that still passes its health checks), is neither held for nor bound to, so the
 * requests cheapest there go to a worker with room instead of waiting until {@code maxQueueWait} refuses them. A loaded
 * worker keeps giving output, or reports decode steps in its telemetry while it serves other replicas' requests, and
 * keeps its hold.
 */
class SilentWorkerTest {

    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong clock = new AtomicLong(SECOND);
    private int nextId;

    private Selector selector(int holdAtCheapestWaiting, Duration silentAfter) {
        return HeldPrompts.selector(2, clock::get,
                b -> b.holdAtCheapestWaiting(holdAtCheapestWaiting).holdAtCheapestSilentAfter(silentAfter));
    }

    /** Under holdAtCheapestWaiting 1: w1 has a request waiting that never starts, {@code held} waits for w1. */
    private record Stuck(Selector s, CompletableFuture<RouteDecision> held) {}

    private Stuck heldForAStuckWorker(Duration silentAfter) {
        Selector s = selector(1, silentAfter);
        int[] onW1 = prompt(1, 4096);
        int[] held = prompt(2, 4096);
        storeInHbm(s, 1, onW1);
        storeInHbm(s, 1, held);
        assertThat(placedAtOnce(s, request(onW1)).worker()).isEqualTo("w1");
        clock.addAndGet(SECOND / 100);
        CompletableFuture<RouteDecision> f = s.route(explained(held));
        assertThat(f).as("w1, its cheapest worker, has one waiting; w0 has room").isNotDone();
        return new Stuck(s, f);
    }

    @Test
    void aHeldRequestGoesToAWorkerWithRoomOnceItsCheapestIsSilent() {
        Stuck st = heldForAStuckWorker(Duration.ofSeconds(2));

        clock.addAndGet(SECOND); // w1 silent 1.01 s
        st.s().tick();
        assertThat(st.held()).as("w1 silent 1.01 s of 2").isNotDone();

        clock.addAndGet(SECOND); // 2.01 s
        st.s().tick(); // a tick drains, as a sample or another worker's event would
        assertThat(st.held()).isDone();
        RouteDecision d = st.held().join();
        assertThat(d.worker()).isEqualTo("w0");
        assertThat(d.candidates()).filteredOn(c -> c.worker().equals("w1")).singleElement()
                .satisfies(c -> assertThat(c.excludedBecause()).startsWith("silent")
                        .contains("has shown no work (output of this selector's requests, or telemetry reporting a prefill or"
                                + " decode step) for more than 2000 ms (holdAtCheapestSilentAfter)"));
        assertThat(st.s().queueLength()).isZero();
    }

    @Test
    void aWorkerThatPostsEventsKeepsItsHoldHoweverLongItsQueueWaits() {
        Selector s = selector(1, Duration.ofSeconds(2));
        int[] running = prompt(3, 4096);
        int[] waiting = prompt(4, 4096);
        int[] held = prompt(5, 4096);
        for (int[] p : List.of(running, waiting, held)) {
            storeInHbm(s, 1, p);
        }
        RouteDecision r = placedAtOnce(s, request(running));
        assertThat(r.worker()).isEqualTo("w1");
        s.onRequestEvent(new RequestEvent(r.requestId(), RequestEvent.Type.FIRST_TOKEN, 1));
        assertThat(placedAtOnce(s, request(waiting)).worker()).isEqualTo("w1");
        CompletableFuture<RouteDecision> f = s.route(request(held));
        assertThat(f).as("w1 has one waiting").isNotDone();

        for (int i = 0; i < 4; i++) { // 6 s in all: w1's queue does not move, but its running request does
            clock.addAndGet(3 * SECOND / 2);
            s.onRequestEvent(new RequestEvent(r.requestId(), RequestEvent.Type.TOKENS, 10 * (i + 1)));
            s.tick();
        }
        assertThat(f).as("w1 posts events: loaded, not hung").isNotDone();

        clock.addAndGet(2 * SECOND + 1); // then nothing from w1 for more than 2 s
        s.tick();
        assertThat(f).isDone();
        assertThat(f.join().worker()).isEqualTo("w0");

        // w1 posts again: it is a candidate again, left out only for its waiting request (the bound, 1).
        s.onRequestEvent(new RequestEvent(r.requestId(), RequestEvent.Type.TOKENS, 50));
        s.onRequestEvent(new RequestEvent(f.join().requestId(), RequestEvent.Type.FIRST_TOKEN, 1)); // w0 has room
        RouteDecision d = s.preview(explained(prompt(8, 64)));
        assertThat(d.candidates()).filteredOn(c -> c.worker().equals("w1")).singleElement()
                .satisfies(c -> assertThat(c.excludedBecause()).startsWith("late binding"));
    }

    @Test
    void aSilentWorkerIsNotBoundToEitherBelowItsBound() {
        Selector s = selector(2, Duration.ofSeconds(2));
        int[] onW1 = prompt(6, 4096);
        int[] next = prompt(7, 4096);
        storeInHbm(s, 1, onW1);
        storeInHbm(s, 1, next);
        assertThat(placedAtOnce(s, request(onW1)).worker()).isEqualTo("w1");
        assertThat(s.preview(explained(next)).worker()).as("one waiting of two: w1 takes it").isEqualTo("w1");

        clock.addAndGet(2 * SECOND + 1);
        RouteDecision d = s.preview(explained(next));
        assertThat(d.worker()).isEqualTo("w0");
        assertThat(d.candidates()).filteredOn(c -> c.worker().equals("w1")).singleElement()
                .satisfies(c -> assertThat(c.excludedBecause()).startsWith("silent"));

        s.setHealthy(0, false); // w1, silent, is all there is: a preview says why the request would wait
        assertThatThrownBy(() -> s.preview(explained(next))).isInstanceOf(NoCapacityException.class)
                .hasMessage("every worker is over its load limit or silent (holdAtCheapestSilentAfter: no work shown for"
                        + " 2000 ms while this selector's requests wait there): the request would wait in the admission"
                        + " queue");
    }

    /**
     * Other replicas fill w1's queue: none of this selector's requests there gives output, but the engine's telemetry
     * reports decode steps, so it is loaded, not hung, and keeps its hold; once its samples report no work, it is silent.
     */
    @Test
    void aWorkerWhoseTelemetryReportsWorkKeepsItsHoldWithoutOutputOfOurs() {
        Stuck st = heldForAStuckWorker(Duration.ofSeconds(2));
        for (int i = 0; i < 5; i++) { // 5 s: the engine decodes other replicas' requests
            clock.addAndGet(SECOND);
            st.s().onTelemetry(new Telemetry(1, clock.get(), 1, 3, 0, -1, 0, 40));
            st.s().tick();
        }
        assertThat(st.held()).as("w1 reports decode steps: loaded, not hung").isNotDone();

        for (int i = 0; i < 3; i++) { // then samples that report no work: hung, though still exporting metrics
            clock.addAndGet(SECOND);
            st.s().onTelemetry(new Telemetry(1, clock.get(), 1, 3, 0, -1, 0, 0));
            st.s().tick();
        }
        assertThat(st.held()).isDone();
        assertThat(st.held().join().worker()).isEqualTo("w0");
    }

    /**
     * A gateway that posts the engine's running totals as its work counters (Prometheus counters are totals): every
     * sample reports steps, but once the totals pass what an engine does between samples they are read as totals, and
     * totals that stand still are a hung engine's.
     */
    @Test
    void runningTotalsThatStandStillAreSilence() {
        Stuck st = heldForAStuckWorker(Duration.ofSeconds(2));
        long steps = 50_000; // the engine has run a while
        for (int i = 0; i < 3; i++) {
            clock.addAndGet(SECOND);
            st.s().onTelemetry(new Telemetry(1, clock.get(), 1, 3, 0, -1, 0, steps += 40));
            st.s().tick();
        }
        assertThat(st.held()).as("w1's totals rise: loaded, not hung").isNotDone();

        for (int i = 0; i < 3; i++) { // the same totals: no step since (as counts, 50,120 steps a second)
            clock.addAndGet(SECOND);
            st.s().onTelemetry(new Telemetry(1, clock.get(), 1, 3, 0, -1, 0, steps));
            st.s().tick();
        }
        assertThat(st.held()).isDone();
        assertThat(st.held().join().worker()).isEqualTo("w0");
    }

    @Test
    void aFailureOrAFinishWithoutOutputIsNoSignOfLife() {
        Selector s = selector(3, Duration.ofSeconds(2));
        int[] next = prompt(9, 4096);
        storeInHbm(s, 1, next);
        String[] onW1 = new String[3];
        for (int i = 0; i < 3; i++) {
            int[] p = prompt(10 + i, 4096);
            storeInHbm(s, 1, p);
            onW1[i] = placedAtOnce(s, request(p)).requestId();
        }
        clock.addAndGet(2 * SECOND + 1);
        assertThat(excludedBecause(s.preview(explained(next)), "w1")).startsWith("silent");

        // A gateway's timeout and a client's cancel say nothing of the engine: w1 stays silent.
        s.onRequestEvent(new RequestEvent(onW1[0], RequestEvent.Type.FAILED, 0));
        s.onRequestEvent(new RequestEvent(onW1[1], RequestEvent.Type.FINISHED, 0));
        assertThat(excludedBecause(s.preview(explained(next)), "w1")).startsWith("silent");

        s.onRequestEvent(new RequestEvent(onW1[2], RequestEvent.Type.FIRST_TOKEN, 1)); // output: alive
        assertThat(s.preview(explained(next)).worker()).isEqualTo("w1");
    }

    private static String excludedBecause(RouteDecision d, String worker) {
        return d.candidates().stream().filter(c -> c.worker().equals(worker)).findFirst().orElseThrow()
                .excludedBecause();
    }

    @Test
    void withZeroARequestWaitsForASilentWorkerUntilMaxQueueWait() {
        Stuck st = heldForAStuckWorker(Duration.ZERO);
        clock.addAndGet(29 * SECOND);
        st.s().tick();
        assertThat(st.held()).as("held 29 s, maxQueueWait 30 s").isNotDone();

        clock.addAndGet(SECOND + 1);
        st.s().tick();
        assertThat(st.held()).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(NoCapacityException.class).withMessageContaining("holdAtCheapestWaiting");
    }

    @Test
    void theSettingIsValidated() {
        assertThatThrownBy(() -> SelectorSettings.builder(List.of(WorkerSpec.of("w", 1000)))
                .holdAtCheapestSilentAfter(Duration.ofSeconds(-1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holdAtCheapestSilentAfter must be ≥ 0 (0: never), got PT-1S");
        assertThat(SelectorSettings.builder(List.of(WorkerSpec.of("w", 1000))).build().holdAtCheapestSilentAfter())
                .isEqualTo(Duration.ofSeconds(10));
    }

    private static RouteDecision placedAtOnce(Selector s, RouteRequest r) {
        CompletableFuture<RouteDecision> f = s.route(r);
        assertThat(f).as("%s placed at once", r.requestId()).isDone();
        return f.join();
    }

    private RouteRequest request(int[] tokens) {
        return request(tokens, false);
    }

    private RouteRequest explained(int[] tokens) {
        return request(tokens, true);
    }

    /**
     * One output token: the prompt's 4,096 tokens in a worker's HBM make it the cheapest for the request, whatever
     * decodes the default parameters would price there.
     */
    private RouteRequest request(int[] tokens, boolean explain) {
        return new RouteRequest("r" + (nextId++), null, null, null, tokens, null, null, null, 1, 1, null, explain);
    }
}
