package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.sequences.InFlightTracker;
import io.tierroute.selector.sequences.PrefixMarks;
import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker's {@code maxInFlight} under routes on several threads: each prices the worker from its load read without a
 * lock, so two could both see its last slot free. The admission checks the limit again under the worker's lock (before,
 * a worker with maxInFlight 2 held 3 within seconds on 2 cores). With clients that give up while queued and a queue
 * wait that expires them, a route its client cancelled is counted abandoned, not also rejected.
 */
class LoadLimitRaceTest {

    private static final int WORKERS = 2;
    private static final int MAX_IN_FLIGHT = 2;

    @Test
    void anAdmissionAtTheLimitIsRefusedUnderTheWorkersLockWithNothingChanged() {
        InFlightTracker t = new InFlightTracker(new long[] {1_000_000}, Long.MAX_VALUE, Long.MAX_VALUE);
        assertThat(t.admitWithin(1, 0, "a", 0, 100, 10, 100, null, PrefixMarks.NONE, 0)).isTrue();
        assertThat(t.admitWithin(1, 0, "b", 0, 100, 10, 100, null, PrefixMarks.NONE, 0)).isFalse();
        assertThat(t.view(0).inFlight()).isEqualTo(1);
        assertThat(t.workerOf("b")).as("not registered").isEqualTo(-1);
        assertThat(t.admitWithin(0, 0, "b", 0, 100, 10, 100, null, PrefixMarks.NONE, 0)).as("0: no limit").isTrue();
        assertThat(t.admitWithin(0, 2, "c", 0, 100, 10, 100, null, PrefixMarks.NONE, 0))
                .as("maxWaiting 2: a and b wait for their first token").isFalse();
    }

    /**
     * The interleaving made exact: between scoring and admission another request takes the chosen worker's only slot.
     * The route goes to the other worker, counted once, and its explanation says why the first was left out.
     */
    @Test
    void aWorkerWhoseLastSlotIsTakenAfterScoringIsLeftForTheNextCheapest() throws Exception {
        List<WorkerSpec> specs = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            WorkerSpec base = WorkerSpec.of("w" + w, 1_000_000);
            specs.add(new WorkerSpec(base.name(), base.kvCapacityTokens(), base.bandwidth(), false, 1, 0));
        }
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).maxBlocks(100_000).build();
        Selector selector = new Selector(SelectorSettings.builder(specs).blockSize(16).maxQueued(0).build(), index,
                new DirectIndexWriter(index), new ParameterStore(ParameterSet.defaults(2)), System::nanoTime);
        int[] taken = {-1};
        selector.beforeAdmission(chosen -> {
            if (taken[0] < 0) { // once: a concurrent route admitted first
                taken[0] = chosen;
                selector.inflight().admit("concurrent", chosen, 64, 16, System.nanoTime());
            }
        });

        RouteDecision d = selector.route(new RouteRequest("r", null, null, null, new int[64], null, null, null, 64, 16,
                null, true)).get(5, TimeUnit.SECONDS);

        assertThat(d.workerIndex()).as("the other worker").isEqualTo(1 - taken[0]);
        assertThat(selector.routedCount()).isEqualTo(1);
        assertThat(selector.inflight().view(taken[0]).inFlight()).as("only the concurrent one").isEqualTo(1);
        assertThat(d.candidates().get(taken[0]).excludedBecause()).isEqualTo("over load: 1 in flight ≥ 1");
        assertThat(d.candidates().get(1 - taken[0]).excludedBecause()).isNull();
    }

    /** Two workers: "busy", no limit, and "idle", one request at a time. */
    private static List<WorkerSpec> busyAndIdleSpecs() {
        WorkerSpec base = WorkerSpec.of("w", 1_000_000);
        return List.of(new WorkerSpec("busy", base.kvCapacityTokens(), base.bandwidth(), false, 0, 0),
                new WorkerSpec("idle", base.kvCapacityTokens(), base.bandwidth(), false, 1, 0));
    }

    /** A selector of {@link #busyAndIdleSpecs} with the spread at K = 1 and three requests waiting at "busy". */
    private static Selector busyAndIdle(SelectorSettings.Builder settings) {
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).maxBlocks(100_000).build();
        Selector selector = new Selector(settings.blockSize(16).spreadWithin(1).build(), index,
                new DirectIndexWriter(index), new ParameterStore(ParameterSet.defaults(2)), System::nanoTime);
        for (int i = 0; i < 3; i++) {
            selector.inflight().admit("waiting-" + i, 0, 64, 16, System.nanoTime());
        }
        return selector;
    }

    /**
     * The light-load spread sets the busier worker aside; the one it kept loses its last slot to a concurrent route
     * before the admission. The route then goes to the worker the spread set aside, which has room, instead of being
     * refused (there is no admission queue here).
     */
    @Test
    void aRouteWhoseKeptWorkersAreAllTakenFallsBackOnTheOnesTheSpreadSetAside() throws Exception {
        Selector selector = busyAndIdle(SelectorSettings.builder(busyAndIdleSpecs()).maxQueued(0));
        RouteRequest probe = new RouteRequest("probe", null, null, null, new int[64], null, null, null, 64, 16, null,
                true);
        RouteDecision dry = selector.preview(probe);
        assertThat(dry.candidates().get(0).excludedBecause()).as("set aside by the spread").startsWith("light-load spread:");
        assertThat(dry.workerIndex()).isEqualTo(1);

        selector.beforeAdmission(chosen -> {
            if (chosen == 1 && selector.inflight().view(1).inFlight() == 0) { // once: a concurrent route took its slot
                selector.inflight().admit("concurrent", 1, 64, 16, System.nanoTime());
            }
        });
        RouteDecision d = selector.route(new RouteRequest("r", null, null, null, new int[64], null, null, null, 64, 16,
                null, true)).get(5, TimeUnit.SECONDS);

        assertThat(d.workerIndex()).as("the worker the spread set aside").isEqualTo(0);
        assertThat(d.spread()).isFalse();
        assertThat(d.candidates().get(1).excludedBecause()).isEqualTo("over load: 1 in flight ≥ 1");
        assertThat(selector.routedCount()).isEqualTo(1);
        assertThat(selector.spreadCount()).isZero();
    }

    /**
     * As above with the cheapest-worker hold on ({@code holdAtCheapestWaiting} 1) and three of ours waiting at the
     * worker the spread set aside: put back into the pick, it answers to late binding as the others did, so the route
     * is held in the admission queue rather than sent to a worker with K of ours waiting.
     */
    @Test
    void aWorkerTheSpreadSetAsideIsPutBackOnlyAsLateBindingAllows() throws Exception {
        Selector selector = busyAndIdle(SelectorSettings.builder(busyAndIdleSpecs()).maxQueued(10)
                .holdAtCheapestWaiting(1));
        selector.beforeAdmission(chosen -> {
            if (chosen == 1 && selector.inflight().view(1).inFlight() == 0) {
                selector.inflight().admit("concurrent", 1, 64, 16, System.nanoTime());
            }
        });
        CompletableFuture<RouteDecision> route = selector.route(new RouteRequest("r", null, null, null, new int[64],
                null, null, null, 64, 16, null, true));

        assertThat(route).as("held, not sent to the worker with three of ours waiting").isNotDone();
        assertThat(selector.queueLength()).isEqualTo(1);
        assertThat(selector.inflight().view(0).inFlight()).isEqualTo(3);
        route.cancel(true);
    }

    /**
     * No admission queue: every route is an arrival priced without a lock. One worker taking one request at a time; a
     * route that finds it taken is refused. Whatever the interleaving, it never holds two.
     */
    @Test
    void concurrentArrivalsNeverFillAWorkerPastItsLimit() throws Exception {
        WorkerSpec base = WorkerSpec.of("w0", 1_000_000);
        List<WorkerSpec> specs = List.of(new WorkerSpec(base.name(), base.kvCapacityTokens(), base.bandwidth(), false,
                1, 0));
        RunPrefixIndex index = RunPrefixIndex.builder().workers(1).maxBlocks(100_000).build();
        Selector selector = new Selector(SelectorSettings.builder(specs).blockSize(16).maxQueued(0).build(), index,
                new DirectIndexWriter(index), new ParameterStore(ParameterSet.defaults(1)), System::nanoTime);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicInteger mostInFlight = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int id = t;
            threads.add(new Thread(() -> {
                int[] tokens = new int[64];
                try {
                    start.await();
                    for (int i = 0; System.nanoTime() < until; i++) {
                        CompletableFuture<RouteDecision> f = selector.route(new RouteRequest("t" + id + "-" + i, null,
                                null, null, tokens, null, null, null, 64, 16, null, false));
                        if (f.isCompletedExceptionally()) {
                            continue; // refused: the worker was taken
                        }
                        // Read while this one still holds its slot: a second admitted meanwhile shows here.
                        mostInFlight.accumulateAndGet(selector.inflight().view(0).inFlight(), Math::max);
                        selector.onRequestEvent(new RequestEvent(f.join().requestId(), RequestEvent.Type.FINISHED, 8));
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        threads.forEach(Thread::start);
        start.countDown();
        for (Thread t : threads) {
            t.join(60_000);
        }

        assertThat(errors).isEmpty();
        assertThat(selector.routedCount()).as("the run routed").isGreaterThan(1_000);
        assertThat(mostInFlight.get()).as("in flight on the worker").isEqualTo(1);
        assertThat(selector.inflight().size()).as("every admitted route finished").isZero();
    }

    @Test
    void concurrentRoutesNeverFillAWorkerPastItsLimitAndAnAbandonedRouteIsNotRejected() throws Exception {
        List<WorkerSpec> specs = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            WorkerSpec base = WorkerSpec.of("w" + w, 1_000_000);
            specs.add(new WorkerSpec(base.name(), base.kvCapacityTokens(), base.bandwidth(), false, MAX_IN_FLIGHT, 0));
        }
        RunPrefixIndex index = RunPrefixIndex.builder().workers(WORKERS).maxBlocks(100_000).build();
        Selector selector = new Selector(SelectorSettings.builder(specs).blockSize(16).maxQueued(32)
                .maxQueueWait(Duration.ofMillis(5)).build(), index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(WORKERS)), System::nanoTime);

        AtomicBoolean done = new AtomicBoolean();
        ConcurrentLinkedQueue<String> toFinish = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicLong refusedSeen = new AtomicLong();
        AtomicInteger mostInFlight = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int id = t;
            threads.add(new Thread(() -> {
                SplittableRandom r = new SplittableRandom(id);
                try {
                    start.await();
                    for (int i = 0; System.nanoTime() < until; i++) {
                        int[] tokens = new int[256];
                        for (int k = 0; k < tokens.length; k++) {
                            tokens[k] = r.nextInt(8) * 1000 + k;
                        }
                        CompletableFuture<RouteDecision> f = selector.route(new RouteRequest("t" + id + "-" + i, null,
                                null, null, tokens, null, null, null, 64, 16, null, false));
                        if (!f.isDone() && r.nextInt(3) == 0) { // a client that gives up while queued
                            long giveUpAt = System.nanoTime() + r.nextLong(5_000_000);
                            while (System.nanoTime() < giveUpAt && !f.isDone()) {
                                Thread.onSpinWait();
                            }
                            f.cancel(false);
                        }
                        try {
                            toFinish.add(f.get(10, TimeUnit.SECONDS).requestId());
                        } catch (CancellationException e) {
                            // abandoned
                        } catch (ExecutionException e) {
                            if (e.getCause() instanceof NoCapacityException) {
                                refusedSeen.incrementAndGet();
                            } else {
                                errors.add(e.getCause());
                            }
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        Thread finisher = new Thread(() -> {
            SplittableRandom r = new SplittableRandom(42);
            while (!done.get() || !toFinish.isEmpty()) {
                String id = toFinish.poll();
                if (id == null) {
                    Thread.onSpinWait();
                    continue;
                }
                try {
                    Thread.sleep(0, r.nextInt(200_000));
                    selector.onRequestEvent(new RequestEvent(id, RequestEvent.Type.FINISHED, 8));
                } catch (Throwable e) {
                    errors.add(e);
                }
            }
        });
        Thread ticker = new Thread(() -> {
            while (!done.get()) {
                try {
                    selector.tick();
                    Thread.sleep(1);
                } catch (Throwable e) {
                    errors.add(e);
                }
            }
        });
        Thread monitor = new Thread(() -> {
            while (!done.get()) {
                for (int w = 0; w < WORKERS; w++) {
                    mostInFlight.accumulateAndGet(selector.inflight().view(w).inFlight(), Math::max);
                }
                Thread.onSpinWait();
            }
        });
        List<Thread> helpers = List.of(finisher, ticker, monitor);
        helpers.forEach(Thread::start);
        threads.forEach(Thread::start);
        start.countDown();
        for (Thread t : threads) {
            t.join(60_000);
        }
        done.set(true);
        for (Thread t : helpers) {
            t.join(30_000);
        }

        assertThat(errors).isEmpty();
        assertThat(selector.routedCount()).as("the run routed").isGreaterThan(1_000);
        assertThat(mostInFlight.get()).as("in flight on one worker").isLessThanOrEqualTo(MAX_IN_FLIGHT);
        assertThat(selector.rejectedCount()).as("rejected: the refusals clients saw, not the routes they gave up")
                .isEqualTo(refusedSeen.get());
        assertThat(selector.inflight().size()).as("every admitted route finished").isZero();
    }
}
