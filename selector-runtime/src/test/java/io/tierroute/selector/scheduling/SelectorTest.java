package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.OutputLengthModel;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.BlockHasher;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.RouteDecision.PredictionSource;
import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The selector end to end over a real (reference) index, with a controllable clock. */
class SelectorTest {

    private static final int BLOCK = 16;
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final AtomicLong clockReads = new AtomicLong();
    private int nextId;

    private Selector selector(int workers, UnaryOperator<WorkerSpec> worker, UnaryOperator<SelectorSettings.Builder> tune) {
        List<WorkerSpec> specs = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            specs.add(worker.apply(WorkerSpec.of("w" + w, 1_000_000)));
        }
        SelectorSettings settings = tune.apply(SelectorSettings.builder(specs).blockSize(BLOCK).seed(7L)).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(workers);
        return new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(workers)), () -> {
                    clockReads.incrementAndGet();
                    return clock.get();
                });
    }

    private Selector selector(int workers) {
        return selector(workers, w -> w, b -> b);
    }

    private static int[] prompt(int seed, int tokens) {
        int[] t = new int[tokens];
        for (int i = 0; i < tokens; i++) {
            t[i] = seed * 1_000_003 + i;
        }
        return t;
    }

    private RouteRequest request(int[] tokens, Integer hint, RouteRequest.AgentContext agent, boolean explain) {
        return new RouteRequest("r" + (nextId++), null, null, null, tokens, null, null, null, 512, hint, agent, explain);
    }

    private RouteRequest request(int[] tokens) {
        return request(tokens, 100, null, false);
    }

    private static RouteDecision now(CompletableFuture<RouteDecision> f) {
        assertThat(f).isDone();
        return f.join();
    }

    private void store(Selector s, int worker, Tier tier, int[] tokens) {
        long[] hashes = new long[tokens.length / BLOCK];
        int n = new BlockHasher().hashTokens(tokens, tokens.length, BLOCK, BlockHasher.salt("default", null, null), hashes);
        s.indexWriter().submit(List.of(new KvEvent.Stored(worker, tier, false, 0, java.util.Arrays.copyOf(hashes, n))));
    }

    @Test
    void aRequestGoesToTheWorkerThatHoldsItsPrefix() {
        Selector s = selector(4);
        int[] p = prompt(1, 4096);
        store(s, 2, Tier.HBM, p);

        RouteDecision d = now(s.route(request(p, 100, null, true)));

        assertThat(d.worker()).isEqualTo("w2");
        // Held whole: the engine still computes the last block (for the first output's logits).
        assertThat(d.chosen().hitTokens()).isEqualTo(4096 - BLOCK);
        assertThat(d.chosen().pEffTokens()).isEqualTo(BLOCK);
        assertThat(d.snapshotVersion()).isZero();
        assertThat(d.candidates()).hasSize(4);
        assertThat(d.candidates().get(0).cost().pEffTokens()).isEqualTo(4096);
    }

    @Test
    void aCpuHeldPrefixBeatsRecomputeButLosesToHbm() {
        // 512 B/token as in the worked example: loading (0.008 µs/token) beats recomputing (α_p = 1 µs/token).
        Selector s = selector(3, w -> w, b -> b.bytesPerToken(512));
        int[] p = prompt(2, 8192);
        store(s, 0, Tier.CPU, p);
        assertThat(now(s.route(request(p))).worker()).isEqualTo("w0");
        store(s, 1, Tier.HBM, p);
        assertThat(now(s.route(request(p))).worker()).isEqualTo("w1");
    }

    @Test
    void tiesAreBrokenUniformlyAtRandom() {
        Selector s = selector(4);
        int[] counts = new int[4];
        for (int i = 0; i < 4000; i++) {
            RouteDecision d = now(s.route(request(prompt(1000 + i, 64))));
            counts[d.workerIndex()]++;
            s.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FINISHED, 0));
        }
        for (int c : counts) {
            assertThat(c).isBetween(850, 1150);
        }
    }

    @Test
    void inFlightDecodeWorkSpreadsLoad() {
        Selector s = selector(2);
        RouteDecision first = now(s.route(request(prompt(3, 64))));
        RouteDecision second = now(s.route(request(prompt(4, 64))));
        assertThat(second.workerIndex()).isNotEqualTo(first.workerIndex());
        assertThat(second.chosen().inflightDecodeTokens()).isZero();
    }

    @Test
    void unhealthyAndDrainingWorkersAreNeverChosen() {
        Selector s = selector(3);
        s.setHealthy(0, false);
        s.setDraining(1, true);
        for (int i = 0; i < 50; i++) {
            assertThat(now(s.route(request(prompt(10 + i, 64)))).worker()).isEqualTo("w2");
        }
        s.setHealthy(2, false);
        CompletableFuture<RouteDecision> f = s.route(request(prompt(99, 64)));
        assertThatThrownBy(f::join).hasCauseInstanceOf(NoCapacityException.class)
                .hasMessageContaining("unhealthy or draining");
    }

    @Test
    void whenEveryWorkerIsOverItsLimitTheCheapestRequestIsServedFirst() throws Exception {
        Selector s = selector(2, w -> new WorkerSpec(w.name(), w.kvCapacityTokens(), w.bandwidth(), false, 1, 0), b -> b);
        RouteDecision a = now(s.route(request(prompt(20, 64))));
        now(s.route(request(prompt(21, 64))));

        CompletableFuture<RouteDecision> big = s.route(request(prompt(22, 8192)));
        CompletableFuture<RouteDecision> small = s.route(request(prompt(23, 64)));
        assertThat(big).isNotDone();
        assertThat(small).isNotDone();
        assertThat(s.queueLength()).isEqualTo(2);

        clock.addAndGet(5_000_000);
        s.onRequestEvent(new RequestEvent(a.requestId(), RequestEvent.Type.FINISHED, 10));
        assertThat(small).isDone();
        assertThat(big).isNotDone();
        assertThat(small.get().worker()).isEqualTo(a.worker());
        assertThat(small.get().queuedNanos()).isEqualTo(5_000_000);
    }

    @Test
    void aFirstTokenThatBringsAWorkerUnderItsWaitingLimitAdmitsTheNextQueuedRequestAtOnce() {
        // maxWaiting 1: a worker is full while one of its requests waits for its first token.
        Selector s = selector(1, w -> new WorkerSpec(w.name(), w.kvCapacityTokens(), w.bandwidth(), false, 0, 1), b -> b);
        RouteDecision first = now(s.route(request(prompt(24, 64))));
        CompletableFuture<RouteDecision> queued = s.route(request(prompt(25, 64)));
        assertThat(queued).isNotDone();

        clock.addAndGet(2_000_000);
        s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.FIRST_TOKEN, 1));

        assertThat(queued).as("admitted by the first token itself, not by the next tick or finish").isDone();
        assertThat(queued.join().queuedNanos()).isEqualTo(2_000_000);
        assertThat(s.queueLength()).isZero();
    }

    /** Gives each of {@link #bigAndSmallWorker()}'s workers its one request; returns w1's. */
    private RouteDecision bothSizedWorkersBusy(Selector s) {
        RouteDecision a = now(s.route(request(prompt(40, 64))));
        RouteDecision b = now(s.route(request(prompt(41, 64))));
        assertThat(List.of(a.worker(), b.worker())).containsExactlyInAnyOrder("w0", "w1");
        return a.worker().equals("w1") ? a : b;
    }

    /** w0 holds 1 M KV tokens, w1 2,048; one request in flight each at most. */
    private Selector bigAndSmallWorker() {
        return selector(2, w -> new WorkerSpec(w.name(), w.name().equals("w0") ? 1_000_000 : 2_048, w.bandwidth(),
                false, 1, 0), b -> b);
    }

    @Test
    void aQueuedHeadThatFitsOnlyABusyWorkerDoesNotKeepAnIdleOneFromTheRequestsBehindIt() {
        Selector s = bigAndSmallWorker();
        RouteDecision onW1 = bothSizedWorkersBusy(s);

        int[] big = prompt(42, 4_096); // fits only w0, and is the cheapest there (w0 holds all of it): the queue's head
        store(s, 0, Tier.HBM, big);
        CompletableFuture<RouteDecision> head = s.route(request(big));
        CompletableFuture<RouteDecision> small = s.route(request(prompt(43, 64)));
        assertThat(s.queueLength()).isEqualTo(2);

        clock.addAndGet(3_000_000);
        s.onRequestEvent(new RequestEvent(onW1.requestId(), RequestEvent.Type.FINISHED, 10));
        assertThat(small).as("w1 is free, and the head cannot go there").isDone();
        assertThat(small.join().worker()).isEqualTo("w1");
        assertThat(head).as("w0 is still busy").isNotDone();
        assertThat(s.queueLength()).isEqualTo(1);
    }

    @Test
    void theDrainPassesOverPromptsAsLongAsOneAFreeWorkerRefusedWithoutTryingThem() {
        Selector s = bigAndSmallWorker();
        RouteDecision onW1 = bothSizedWorkersBusy(s);
        List<CompletableFuture<RouteDecision>> longOnes = new ArrayList<>();
        for (int i = 0; i < 10; i++) { // each cached on w0, so cheaper than the text prompt: ahead of it in the queue
            int[] big = prompt(46 + i, 4_096);
            store(s, 0, Tier.HBM, big);
            longOnes.add(s.route(request(big)));
        }
        // A prompt given as text: its length is estimated, which no worker refuses for size, so it is never passed over.
        RouteRequest text = new RouteRequest("text", null, null, null, null, null, "x".repeat(40_000), null, 512, 100,
                null, false);
        CompletableFuture<RouteDecision> estimated = s.route(text);
        assertThat(s.queueLength()).isEqualTo(11);

        long reads = clockReads.get();
        s.onRequestEvent(new RequestEvent(onW1.requestId(), RequestEvent.Type.FINISHED, 10));
        assertThat(estimated).isDone();
        assertThat(estimated.join().worker()).isEqualTo("w1");
        // The event's timestamp, the head's attempt and the text prompt's: the other nine long prompts are not tried.
        assertThat(clockReads.get() - reads).isEqualTo(3);
        assertThat(longOnes).allSatisfy(f -> assertThat(f).isNotDone());
    }

    @Test
    void theEnginesOwnRunningCountHoldsAWorkerToItsInFlightLimit() {
        // maxInFlight 2 on w0; other replicas filled it: its telemetry says 3 running, 1 waiting.
        Selector s = selector(2, w -> w.name().equals("w0")
                ? new WorkerSpec(w.name(), w.kvCapacityTokens(), w.bandwidth(), false, 2, 0) : w, b -> b);
        clock.addAndGet(1_000_000);
        s.onTelemetry(new io.tierroute.selector.sequences.Telemetry(0, clock.get(), 1, 3, 0));
        clock.addAndGet(1_000_000);
        RouteDecision d = now(s.route(request(prompt(30, 64), null, null, true)));
        assertThat(d.workerIndex()).isEqualTo(1);
        assertThat(d.candidates().get(0).excludedBecause()).as("w0 reason").contains("4 in flight ≥ 2", "telemetry");

        clock.addAndGet(1_000_000);
        s.onTelemetry(new io.tierroute.selector.sequences.Telemetry(0, clock.get(), 0, 0, 0)); // they finished
        clock.addAndGet(1_000_000);
        RouteDecision again = now(s.route(request(prompt(31, 64), null, null, true)));
        assertThat(again.candidates().get(0).excludedBecause()).isNull();
    }

    @Test
    void aRequestWithNoEventForTheMaxAgeIsDroppedAndCounted() {
        Selector s = selector(1, w -> w, b -> b.requestMaxAge(Duration.ofSeconds(2)));
        RouteDecision lost = now(s.route(request(prompt(32, 64))));
        assertThat(s.inflight().size()).isEqualTo(1);
        clock.addAndGet(Duration.ofSeconds(3).toNanos());
        s.tick();
        assertThat(s.inflight().size()).isZero();
        assertThat(s.expiredRequestCount()).isEqualTo(1);
        assertThat(s.onRequestEvent(new RequestEvent(lost.requestId(), RequestEvent.Type.FINISHED, 10)))
                .as("a late finish finds nothing").isFalse();
    }

    @Test
    void aTokensEventThatEndsAWaitAdmitsTheNextQueuedRequestAtOnce() {
        // A gateway may post progress without a first_token event: its first tokens event ends the wait.
        Selector s = selector(1, w -> new WorkerSpec(w.name(), w.kvCapacityTokens(), w.bandwidth(), false, 0, 1), b -> b);
        RouteDecision first = now(s.route(request(prompt(26, 64))));
        CompletableFuture<RouteDecision> queued = s.route(request(prompt(27, 64)));
        assertThat(queued).isNotDone();

        s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.TOKENS, 16));

        assertThat(queued).isDone();
        assertThat(s.queueLength()).isZero();
    }

    @Test
    void tokensEventsOfADecodingRequestLeaveTheQueueAloneUntilASlotFrees() {
        Selector s = oneSlot(b -> b);
        RouteDecision running = now(s.route(request(prompt(28, 64))));
        s.onRequestEvent(new RequestEvent(running.requestId(), RequestEvent.Type.FIRST_TOKEN, 1));
        CompletableFuture<RouteDecision> queued = s.route(request(prompt(29, 64)));

        long reads = clockReads.get();
        for (int tokens = 16; tokens <= 336; tokens += 16) {
            assertThat(s.onRequestEvent(new RequestEvent(running.requestId(), RequestEvent.Type.TOKENS, tokens))).isTrue();
        }
        // One clock read per event, its timestamp: no retry of the queue (each retry is a decision that reads it).
        assertThat(clockReads.get() - reads).isEqualTo(21);
        assertThat(queued).isNotDone();
        assertThat(s.queueLength()).isEqualTo(1);

        s.onRequestEvent(new RequestEvent(running.requestId(), RequestEvent.Type.FINISHED, 343));
        assertThat(queued).isDone();
    }

    @Test
    void aFullQueueAndATooLongWaitAreRefusedWithAReason() {
        Selector s = selector(1, w -> new WorkerSpec(w.name(), w.kvCapacityTokens(), w.bandwidth(), false, 1, 0),
                b -> b.maxQueued(1).maxQueueWait(Duration.ofSeconds(2)));
        now(s.route(request(prompt(30, 64))));
        CompletableFuture<RouteDecision> waiting = s.route(request(prompt(31, 64)));
        CompletableFuture<RouteDecision> refused = s.route(request(prompt(32, 64)));
        assertThatThrownBy(refused::join).hasCauseInstanceOf(NoCapacityException.class).hasMessageContaining("queue is full");

        clock.addAndGet(Duration.ofSeconds(3).toNanos());
        s.tick();
        assertThatThrownBy(waiting::join).hasCauseInstanceOf(NoCapacityException.class).hasMessageContaining("waited");
        assertThat(s.rejectedCount()).isEqualTo(2);
    }

    @Test
    void everyDecisionReportsTheSnapshotItUsed() {
        Selector s = selector(2);
        assertThat(now(s.route(request(prompt(40, 64)))).snapshotVersion()).isZero();
        s.parameters().activate(ParameterSet.builder(2).version(42).scope("default").source("test")
                .cost(CostParameters.builder().alphaD(10).build()).build());
        RouteDecision d = now(s.route(request(prompt(41, 64))));
        assertThat(d.snapshotVersion()).isEqualTo(42);
    }

    @Test
    void approximateModeRemembersItsOwnDecisionsUntilTheTtl() {
        Selector s = selector(4, w -> new WorkerSpec(w.name(), w.kvCapacityTokens(), w.bandwidth(), true, 0, 0),
                b -> b.approximateTtl(Duration.ofSeconds(10)));
        int[] p = prompt(50, 4096);
        RouteDecision first = now(s.route(request(p)));
        s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.FINISHED, 0));

        RouteDecision again = now(s.route(request(p)));
        assertThat(again.worker()).isEqualTo(first.worker());
        assertThat(again.chosen().hitTokens()).isEqualTo(4096 - BLOCK);
        s.onRequestEvent(new RequestEvent(again.requestId(), RequestEvent.Type.FINISHED, 0));

        clock.addAndGet(Duration.ofSeconds(11).toNanos());
        RouteDecision later = now(s.route(request(p, 100, null, true)));
        assertThat(later.chosen().hitTokens()).isZero();
    }

    private long[] hashes(int[] tokens) {
        long[] h = new long[tokens.length / BLOCK];
        int n = new BlockHasher().hashTokens(tokens, tokens.length, BLOCK, BlockHasher.salt("default", null, null), h);
        return java.util.Arrays.copyOf(h, n);
    }

    private static long hitOn(RouteDecision explained, String worker) {
        return explained.candidates().stream().filter(c -> c.worker().equals(worker)).findFirst().orElseThrow()
                .cost().hitTokens();
    }

    /** Prefill at 100 µs/token: a 4,096-token prompt's hit is worth 0.4 s, more than a request in flight costs. */
    private static Selector prefillBound(Selector s) {
        s.parameters().activate(ParameterSet.builder(4).version(1).cost(CostParameters.builder().alphaP(100).build()).build());
        return s;
    }

    @Test
    void withoutComputingClaimsARepeatOfAPrefixStillBeingComputedIsPlacedByLoad() {
        Selector s = prefillBound(selector(4));
        int[] p = prompt(52, 4096);
        RouteDecision first = now(s.route(request(p))); // no Stored event yet: the engine is still computing it
        RouteDecision repeat = now(s.route(request(p)));
        assertThat(repeat.worker()).isNotEqualTo(first.worker());
        assertThat(repeat.chosen().hitTokens()).isZero();
    }

    @Test
    void computingClaimsShowARepeatTheWorkerComputingItsPrefixUntilTheTtl() {
        Selector s = prefillBound(selector(4, w -> w, b -> b.computingClaims(true).computingClaimTtl(Duration.ofSeconds(10))));
        int[] p = prompt(53, 4096);
        RouteDecision first = now(s.route(request(p)));
        for (int i = 0; i < 3; i++) { // the other workers get a prompt of their own to compute
            assertThat(now(s.route(request(prompt(55 + i, 4096)))).worker()).isNotEqualTo(first.worker());
        }
        RouteDecision repeat = now(s.route(request(p)));
        assertThat(repeat.worker()).isEqualTo(first.worker());
        assertThat(repeat.chosen().hitTokens()).isEqualTo(4096 - BLOCK);

        clock.addAndGet(Duration.ofSeconds(11).toNanos()); // no event confirmed the claim: it lapses
        assertThat(hitOn(now(s.route(request(p, 100, null, true))), first.worker())).isZero();
    }

    @Test
    void aClaimCoversOnlyWhatTheWorkerComputesAndTheEnginesEventsOverruleIt() {
        Selector s = prefillBound(selector(4, w -> w, b -> b.computingClaims(true)));
        int[] p = prompt(54, 4096);
        int[] head = java.util.Arrays.copyOf(p, 1024);
        store(s, 1, Tier.CPU, head);
        RouteDecision first = now(s.route(request(p)));
        assertThat(first.worker()).isEqualTo("w1");
        assertThat(first.chosen().hitTokens()).isEqualTo(1024);
        assertThat(hitOn(now(s.route(request(p, 100, null, true))), "w1")).isEqualTo(4096 - BLOCK);

        // The held head stays under its own events: once the engine drops it, the claimed tail alone matches nothing.
        s.indexWriter().submit(List.of(new KvEvent.Removed(1, Tier.CPU, hashes(head))));
        assertThat(hitOn(now(s.route(request(p, 100, null, true))), "w1")).isZero();

        // The engine removing a claimed block from HBM drops the claim on it and on nothing before it.
        store(s, 1, Tier.CPU, head);
        long[] tail = java.util.Arrays.copyOfRange(hashes(p), 64, 256);
        s.indexWriter().submit(List.of(new KvEvent.Removed(1, Tier.HBM, java.util.Arrays.copyOfRange(tail, 100, 192))));
        assertThat(hitOn(now(s.route(request(p, 100, null, true))), "w1")).isEqualTo(1024 + 100 * BLOCK);

        // Moving claimed blocks out of HBM leaves them on the tier they moved to, and no longer claimed on HBM.
        int[] q = prompt(58, 4096);
        RouteDecision fresh = now(s.route(request(q)));
        long[] qh = hashes(q);
        s.indexWriter().submit(List.of(new KvEvent.Moved(fresh.workerIndex(), Tier.HBM, Tier.CPU,
                java.util.Arrays.copyOfRange(qh, 128, 256))));
        RouteDecision.Candidate there = now(s.route(request(q, 100, null, true))).candidates().stream()
                .filter(c -> c.worker().equals(fresh.worker())).findFirst().orElseThrow();
        assertThat(there.cost().tierTokens()[Tier.HBM.ordinal()]).isEqualTo(2048);
        assertThat(there.cost().tierTokens()[Tier.CPU.ordinal()]).isEqualTo(2048 - BLOCK); // the last block recomputed
    }

    /**
     * A request that fails before its first output never computed what it claimed: its claims go at once, not at the
     * TTL, and nothing else does (the engine's stored blocks, another request's claims, an approximate worker's entries).
     */
    @Test
    void aRequestThatFailsBeforeItsFirstOutputWithdrawsItsOwnClaimsAlone() {
        Selector s = prefillBound(selector(4, w -> w, b -> b.computingClaims(true)));
        int[] p = prompt(60, 4096);
        store(s, 1, Tier.CPU, java.util.Arrays.copyOf(p, 1024)); // the engine holds its head: a real entry
        RouteDecision first = now(s.route(request(p)));
        assertThat(first.worker()).isEqualTo("w1");
        int[] q = prompt(61, 4096);
        RouteDecision other = now(s.route(request(q)));
        assertThat(hitOn(s.preview(request(p, 100, null, true)), "w1")).isEqualTo(4096 - BLOCK);

        assertThat(s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.FAILED, 0))).isTrue();
        assertThat(hitOn(s.preview(request(p, 100, null, true)), "w1")).as("the stored head stays").isEqualTo(1024);
        assertThat(hitOn(s.preview(request(q, 100, null, true)), other.worker())).as("another request's claims stay")
                .isEqualTo(4096 - BLOCK);

        // Once it has output its prefix was computed: a failure after that leaves its claims to the engine's events.
        s.onRequestEvent(new RequestEvent(other.requestId(), RequestEvent.Type.FIRST_TOKEN, 1));
        s.onRequestEvent(new RequestEvent(other.requestId(), RequestEvent.Type.FAILED, 0));
        assertThat(hitOn(s.preview(request(q, 100, null, true)), other.worker())).isEqualTo(4096 - BLOCK);
    }

    /**
     * A request routed to the same worker while a claim stood was placed by it and claimed only past it: the first
     * request's failure must not hide the prefix the second one now computes (found in review). Its claims lapse at the TTL.
     */
    @Test
    void aFailedRequestLeavesTheClaimsALaterRequestOnItsWorkerReliesOn() {
        Selector s = prefillBound(selector(1, w -> w, b -> b.computingClaims(true))); // one worker: both go there
        int[] p = prompt(63, 4096);
        RouteDecision first = now(s.route(request(p)));
        RouteDecision second = now(s.route(request(p)));
        assertThat(second.worker()).isEqualTo(first.worker());

        s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.FAILED, 0));
        assertThat(hitOn(s.preview(request(p, 100, null, true)), first.worker())).as("the second request computes it")
                .isEqualTo(4096 - BLOCK);
    }

    @Test
    void aPromptNoWorkersKvCacheCanHoldIsRefusedWithTheReasonNotQueued() {
        Selector s = selector(2, w -> WorkerSpec.of(w.name(), w.name().equals("w0") ? 2048 : 4096), b -> b);
        RouteDecision fits = now(s.route(request(prompt(80, 3000), 100, null, true)));
        assertThat(fits.worker()).isEqualTo("w1");
        assertThat(fits.candidates().get(0).excludedBecause()).isEqualTo("prompt larger than its KV cache");

        CompletableFuture<RouteDecision> tooLong = s.route(request(prompt(81, 4096)));
        assertThatThrownBy(tooLong::join).hasCauseInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prompt's 4096 tokens do not fit the KV cache of any worker")
                .hasMessageContaining("the largest holds 4096 tokens");
        assertThat(s.queueLength()).isZero();
        assertThat(s.rejectedCount()).isEqualTo(1);
        assertThatThrownBy(() -> s.preview(request(prompt(82, 5000)))).isInstanceOf(IllegalArgumentException.class);

        // A length estimated from text is not ruled on: the engine that tokenizes it is the judge.
        RouteRequest text = new RouteRequest("text", null, null, null, null, null, "x".repeat(40_000), null, 512, 100,
                null, false); // 10,000 tokens estimated
        assertThat(now(s.route(text)).worker()).isIn("w0", "w1");
    }

    @Test
    void theNextStepOfAWorkflowReturnsToItsWorker() {
        Selector s = selector(4);
        RouteRequest.AgentContext agent = new RouteRequest.AgentContext("wf-1", "s1", List.of());
        RouteDecision step1 = now(s.route(request(prompt(60, 64), 100, agent, false)));
        clock.addAndGet(Duration.ofSeconds(1).toNanos());
        s.onRequestEvent(new RequestEvent(step1.requestId(), RequestEvent.Type.FINISHED, 100));
        clock.addAndGet(Duration.ofSeconds(10).toNanos()); // the tool call

        RouteDecision step2 = now(s.route(request(prompt(61, 64), 100, agent, false)));
        assertThat(step2.worker()).isEqualTo(step1.worker());
        assertThat(step2.chosen().affinityDecay()).isCloseTo(Math.exp(-10.0 / 120), org.assertj.core.api.Assertions.within(1e-9));
    }

    @Test
    void expectedToolsFollowTheWorkerThatIsWarmForThem() {
        Selector s = selector(4);
        s.parameters().activate(ParameterSet.builder(4).version(1)
                .cost(CostParameters.builder().alphaWf2(2000).build()).build());
        RouteRequest.AgentContext tools = new RouteRequest.AgentContext(null, null, List.of("search", "python"));
        RouteDecision a = now(s.route(request(prompt(70, 64), 100, tools, false)));
        s.onRequestEvent(new RequestEvent(a.requestId(), RequestEvent.Type.FINISHED, 100));

        RouteDecision b = now(s.route(request(prompt(71, 64), 100,
                new RouteRequest.AgentContext(null, null, List.of("search")), false)));
        assertThat(b.worker()).isEqualTo(a.worker());
        assertThat(b.chosen().toolHitFraction()).isEqualTo(1.0);
        assertThat(b.chosen().toolsBonusUs()).isEqualTo(2000);
    }

    @Test
    void predictedOutputComesFromTheHintThenTheModelThenHalfOfMaxTokens() {
        Selector s = selector(1);
        RouteDecision hinted = now(s.route(request(prompt(80, 64), 77, null, false)));
        assertThat(hinted.predictionSource()).isEqualTo(PredictionSource.HINT);
        assertThat(hinted.predictedOutputTokens()).isEqualTo(77);

        RouteDecision half = now(s.route(request(prompt(81, 64), null, null, false)));
        assertThat(half.predictionSource()).isEqualTo(PredictionSource.MAX_TOKENS_HALF);
        assertThat(half.predictedOutputTokens()).isEqualTo(256);

        OutputLengthModel model = (features, quantile) -> features.inputTokens() / 8.0;
        s.parameters().activate(ParameterSet.builder(1).version(3).outputModel(model).build());
        RouteDecision modelled = now(s.route(request(prompt(82, 64), null, null, false)));
        assertThat(modelled.predictionSource()).isEqualTo(PredictionSource.QUANTILE_MODEL);
        assertThat(modelled.predictedOutputTokens()).isEqualTo(8);

        // The model sees the features the decision record logs and it was trained on: an agent's numeric step.
        OutputLengthModel byStep = (features, quantile) -> features.stepIndex() == null ? 5 : 100 + features.stepIndex();
        s.parameters().activate(ParameterSet.builder(1).version(4).outputModel(byStep).build());
        assertThat(now(s.route(request(prompt(83, 64), null, new RouteRequest.AgentContext("wf", "7", List.of()), false)))
                .predictedOutputTokens()).isEqualTo(107);
        assertThat(now(s.route(request(prompt(84, 64), null, new RouteRequest.AgentContext("wf2", "plan", List.of()),
                false))).predictedOutputTokens()).as("a step id that is no number is unknown").isEqualTo(5);
    }

    @Test
    void aWorkflowStepsOutputCountIsItsNextStepsPreviousStepOutputTokens() {
        Selector s = selector(2);
        OutputLengthModel byPrevious = (f, q) -> f.previousStepOutputTokens() == null ? 50 : 2.0 * f.previousStepOutputTokens();
        s.parameters().activate(ParameterSet.builder(2).version(5).outputModel(byPrevious).build());
        RouteRequest.AgentContext agent = new RouteRequest.AgentContext("wf-out", null, List.of());

        RouteDecision step1 = now(s.route(request(prompt(90, 64), null, agent, false)));
        assertThat(step1.previousStepOutputTokens()).as("the workflow's first step").isNull();
        assertThat(step1.predictedOutputTokens()).isEqualTo(50);
        s.onRequestEvent(new RequestEvent(step1.requestId(), RequestEvent.Type.TOKENS, 40));
        s.onRequestEvent(new RequestEvent(step1.requestId(), RequestEvent.Type.FINISHED, 0));

        RouteDecision step2 = now(s.route(request(prompt(91, 64), null, agent, false)));
        assertThat(step2.previousStepOutputTokens()).as("the last progress count, the finish carrying none").isEqualTo(40);
        assertThat(step2.predictedOutputTokens()).isEqualTo(80);
        s.onRequestEvent(new RequestEvent(step2.requestId(), RequestEvent.Type.FINISHED, 120));

        RouteDecision step3 = now(s.route(request(prompt(92, 64), null, agent, false)));
        assertThat(step3.previousStepOutputTokens()).as("the finish's own count").isEqualTo(120);
        assertThat(step3.predictedOutputTokens()).isEqualTo(240);
        s.onRequestEvent(new RequestEvent(step3.requestId(), RequestEvent.Type.TOKENS, 30));
        s.onRequestEvent(new RequestEvent(step3.requestId(), RequestEvent.Type.FAILED, 0));

        RouteDecision step4 = now(s.route(request(prompt(93, 64), null, agent, false)));
        assertThat(step4.previousStepOutputTokens()).as("a failed step gives no count").isNull();
        RouteDecision whileRunning = now(s.route(request(prompt(94, 64), null, agent, false)));
        assertThat(whileRunning.previousStepOutputTokens()).as("the previous step still runs").isNull();
        s.onRequestEvent(new RequestEvent(whileRunning.requestId(), RequestEvent.Type.FIRST_TOKEN, 0));
        s.onRequestEvent(new RequestEvent(whileRunning.requestId(), RequestEvent.Type.FINISHED, 0));
        assertThat(now(s.route(request(prompt(95, 64), null, agent, false))).previousStepOutputTokens())
            .as("a first token without a count is no count").isNull();
    }

    @Test
    void aDuplicateRequestIdInFlightIsRefused() {
        Selector s = selector(2);
        RouteRequest r = request(prompt(90, 64));
        now(s.route(r));
        assertThatThrownBy(() -> s.route(r)).isInstanceOf(IllegalStateException.class).hasMessageContaining("already in flight");
    }

    @Test
    void softmaxSpreadsPicksButFavoursTheCheapest() throws ExecutionException, InterruptedException {
        Selector s = selector(2, w -> w, b -> b.temperature(0.5));
        int[] p = prompt(95, 2048);
        store(s, 0, Tier.HBM, p);
        int onHolder = 0;
        for (int i = 0; i < 1000; i++) {
            RouteDecision d = s.route(request(p)).get();
            onHolder += d.workerIndex() == 0 ? 1 : 0;
            assertThat(d.explored()).isEqualTo(d.workerIndex() == 1);
            s.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FINISHED, 0));
        }
        // Normalised costs 0 and 1 at T = 0.5: P(holder) = 1 / (1 + e^-2) ≈ 0.88.
        assertThat(onHolder).isBetween(830, 930);
    }

    @Test
    void previewsDoNotChangeTheWorkersASeededSelectorPicks() {
        // Softmax draws on every pick; a dry run between routes must not take a number from the seeded sequence.
        List<String> plain = seededPicks(false);
        List<String> withPreviews = seededPicks(true);
        assertThat(plain).as("a softmax pick spreads the requests").hasSizeGreaterThan(0)
                .satisfies(p -> assertThat(new java.util.HashSet<>(p)).hasSizeGreaterThan(1));
        assertThat(withPreviews).isEqualTo(plain);
    }

    private List<String> seededPicks(boolean previews) {
        Selector s = selector(4, w -> w, b -> b.seed(11L).temperature(1.0));
        List<String> picks = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            int[] p = prompt(200 + i % 7, 256);
            if (previews) {
                s.preview(request(p));
                s.preview(request(prompt(900 + i, 64)));
            }
            RouteDecision d = now(s.route(request(p)));
            picks.add(d.worker());
            s.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FINISHED, 0));
        }
        return picks;
    }

    @Test
    void aPreviewDecidesWithoutAdmittingAnything() {
        Selector s = selector(2, w -> w, b -> b.seed(3L));
        int[] p = prompt(100, 1024);
        store(s, 1, Tier.HBM, p);
        RouteDecision preview = s.preview(request(p, 100, new RouteRequest.AgentContext("wf-p", null, List.of("t")), true));
        assertThat(preview.worker()).isEqualTo("w1");
        assertThat(s.inflight().size()).isZero();
        assertThat(s.routedCount()).isZero();
        assertThat(s.workers().get(1).load().inFlight()).isZero();
        // Previewing twice with the same id is fine: nothing was admitted.
        RouteRequest same = request(p);
        s.preview(same);
        assertThat(now(s.route(same)).worker()).isEqualTo("w1");
    }

    @Test
    void stagedHashingFindsEveryDepthExactly() {
        // Depths around the stage boundaries (64, 256, 1024 blocks) and a prompt longer than all.
        int[] depths = {1, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 1500};
        Selector s = selector(depths.length, w -> new WorkerSpec(w.name(), 100_000_000L, w.bandwidth(), false, 0, 0), b -> b);
        int[] p = prompt(200, 1500 * BLOCK + 7);
        for (int w = 0; w < depths.length; w++) {
            store(s, w, Tier.HBM, java.util.Arrays.copyOf(p, depths[w] * BLOCK));
        }
        RouteDecision d = now(s.route(request(p, 10, null, true)));
        assertThat(d.worker()).isEqualTo("w" + (depths.length - 1));
        for (int w = 0; w < depths.length; w++) {
            assertThat(d.candidates().get(w).cost().hitTokens()).as("worker %d", w).isEqualTo(depths[w] * BLOCK);
        }
    }

    @Test
    void anApproximateWorkerIndexesTheWholePromptEvenWhenTheMatchStoppedEarly() {
        Selector s = selector(2, w -> new WorkerSpec(w.name(), w.kvCapacityTokens(), w.bandwidth(), true, 0, 0), b -> b);
        int[] p = prompt(300, 2000 * BLOCK);
        RouteDecision first = now(s.route(request(p)));
        assertThat(first.chosen().hitTokens()).isZero();
        s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.FINISHED, 0));
        RouteDecision again = now(s.route(request(p)));
        assertThat(again.worker()).isEqualTo(first.worker());
        assertThat(again.chosen().hitTokens()).isEqualTo(2000 * BLOCK - BLOCK);
    }

    private Selector oneSlot(UnaryOperator<SelectorSettings.Builder> tune) {
        return selector(1, w -> new WorkerSpec(w.name(), w.kvCapacityTokens(), w.bandwidth(), false, 1, 0), tune);
    }

    @Test
    void aRequestThatTimedOutInTheQueueIsNeverAdmittedLater() {
        Selector s = oneSlot(b -> b.maxQueueWait(Duration.ofSeconds(1)));
        RouteDecision running = now(s.route(request(prompt(400, 64))));
        CompletableFuture<RouteDecision> waiting = s.route(request(prompt(401, 64)));
        clock.addAndGet(Duration.ofSeconds(2).toNanos());
        s.tick();
        assertThat(waiting).isCompletedExceptionally();
        s.onRequestEvent(new RequestEvent(running.requestId(), RequestEvent.Type.FINISHED, 1));
        assertThat(s.inflight().size()).isZero();
        assertThat(s.queueLength()).isZero();
    }

    @Test
    void aCancelledWaiterIsSkippedAndTakesNoSlot() {
        Selector s = oneSlot(b -> b);
        RouteDecision running = now(s.route(request(prompt(410, 64))));
        CompletableFuture<RouteDecision> gone = s.route(request(prompt(411, 64)));
        CompletableFuture<RouteDecision> next = s.route(request(prompt(412, 64)));
        gone.cancel(false); // e.g. the HTTP client disconnected
        s.onRequestEvent(new RequestEvent(running.requestId(), RequestEvent.Type.FINISHED, 1));
        assertThat(next).isDone();
        assertThat(s.inflight().size()).isEqualTo(1);
        assertThat(s.inflight().workerOf(next.join().requestId())).isZero();
        assertThat(s.queueLength()).isZero();
    }

    @Test
    void aDuplicateIdIsRefusedAtOnceEvenWhileQueued() {
        Selector s = oneSlot(b -> b);
        now(s.route(request(prompt(420, 64))));
        RouteRequest queued = request(prompt(421, 64));
        assertThat(s.route(queued)).isNotDone();
        assertThatThrownBy(() -> s.route(queued)).isInstanceOf(IllegalStateException.class).hasMessageContaining("queued");
    }

    @Test
    void whileOthersWaitANewcomerQueuesBehindThemByPriority() {
        Selector s = selector(1, w -> new WorkerSpec(w.name(), w.kvCapacityTokens(), w.bandwidth(), false, 2, 0), b -> b);
        RouteDecision first = now(s.route(request(prompt(430, 64))));
        now(s.route(request(prompt(431, 64))));
        CompletableFuture<RouteDecision> big = s.route(request(prompt(432, 8192)));
        s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.FINISHED, 1));
        assertThat(big).isDone(); // the freed slot went to the one waiting
        CompletableFuture<RouteDecision> waiter = s.route(request(prompt(433, 8192)));
        assertThat(waiter).isNotDone();
        CompletableFuture<RouteDecision> small = s.route(request(prompt(434, 64)));
        assertThat(small).as("cheaper, so ahead of the waiter, but still queued: no slot is free").isNotDone();
        s.onRequestEvent(new RequestEvent(big.join().requestId(), RequestEvent.Type.FINISHED, 1));
        assertThat(small).isDone();
        assertThat(waiter).isNotDone();
    }

    @Test
    void whileAStepRunsItsWorkflowCountsAsNotIdle() {
        Selector s = selector(2);
        RouteRequest.AgentContext agent = new RouteRequest.AgentContext("wf-run", null, List.of());
        RouteDecision step1 = now(s.route(request(prompt(440, 64), 100, agent, false)));
        clock.addAndGet(Duration.ofSeconds(60).toNanos()); // still running: a fan-out step arrives
        RouteDecision fanOut = now(s.route(request(prompt(441, 64), 100, agent, true)));
        double decay = fanOut.candidates().get(step1.workerIndex()).cost().affinityDecay();
        assertThat(decay).isEqualTo(1.0);
    }

    @Test
    void aStepDroppedForLackOfEventsEndsItsWorkflowsRunningStep() {
        Selector s = selector(2, w -> w, b -> b.requestMaxAge(Duration.ofSeconds(2)));
        RouteRequest.AgentContext agent = new RouteRequest.AgentContext("wf-lost", null, List.of());
        RouteDecision step1 = now(s.route(request(prompt(442, 64), 100, agent, false)));
        clock.addAndGet(Duration.ofSeconds(3).toNanos());
        s.tick(); // no event for the max age: dropped, and its step ends now
        assertThat(s.expiredRequestCount()).isEqualTo(1);
        clock.addAndGet(Duration.ofSeconds(60).toNanos());

        RouteDecision step2 = now(s.route(request(prompt(443, 64), 100, agent, true)));
        double decay = step2.candidates().get(step1.workerIndex()).cost().affinityDecay();
        assertThat(decay).as("idle since the drop, not running for good")
                .isCloseTo(Math.exp(-60.0 / 120), org.assertj.core.api.Assertions.within(1e-9));
    }

    @Test
    void inputTokensThatContradictTheTokenIdsAreRefused() {
        assertThatThrownBy(() -> new RouteRequest("x", null, null, null, new int[]{1, 2, 3}, null, null, 0, 10, null, null, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("disagrees");
    }

    @Test
    void anExplainedDecisionSaysWhyAWorkerWasFiltered() {
        Selector s = selector(2, w -> new WorkerSpec(w.name(), w.kvCapacityTokens(), w.bandwidth(), false, 1, 0), b -> b);
        RouteDecision first = now(s.route(request(prompt(450, 64))));
        RouteDecision second = now(s.route(request(prompt(451, 64), 10, null, true)));
        RouteDecision.Candidate full = second.candidates().get(first.workerIndex());
        assertThat(full.excludedBecause()).isEqualTo("over load: 1 in flight ≥ 1");
        assertThat(full.cost()).isNotNull();
        assertThat(second.candidates().get(second.workerIndex()).excludedBecause()).isNull();
    }
}
